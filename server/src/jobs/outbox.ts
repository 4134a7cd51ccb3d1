import type { Database } from "../db/orm.js";
import type { Env } from "../db/scope.js";
import { openOutboxStore, type OutboxBatch, type OutboxStore, type PendingRow } from "./outbox-store.js";
import type { Queue } from "./queue.js";
import { yieldToEventLoop } from "../db/yield-to-event-loop.js";
import { hasSubscriber, type EndpointSubscription } from "../webhooks/subscribers.js";

/**
 * What the relay publishes for an outbox row, to the queue named after the
 * row's `kind` (`webhook`, `event`), with the row id as message id.
 */
export interface RelayedMessage {
  /** The outbox row id: stable across republishing, so consumers deduplicate on it. */
  id: string;
  clubId: string;
  env: Env;
  payload: Record<string, unknown>;
}

export interface OutboxRelayOptions {
  db: Database;
  /** Where the outbox rows are read and marked; by default the adapter of `db`'s database (outbox-store.ts). */
  store?: OutboxStore;
  queue: Queue;
  now?: () => Date;
  /** How often `start()` relays without being asked (catches rows of other processes and retries after an outage). */
  intervalMs?: number;
  /** Rows read (and published together) per pass of the loop. */
  batchSize?: number;
  /**
   * The least time between the starts of two passes (default RELAY_GAP_MS):
   * a process that commits outbox rows many times a second asks for a pass
   * after each commit, and each pass costs a transaction whatever it carries.
   */
  minGapMs?: number;
  /** A relay pass that stopped early (broker down, database error); the rows stay and are relayed later. */
  onError?: (error: unknown) => void;
}

export interface OutboxRelay {
  /**
   * Relays every pending row now, in creation order; resolves with how many
   * were handed over. Never rejects — failures go to `onError` — so a request
   * handler can call it after its commit without awaiting it.
   */
  relayNow(): Promise<number>;
  /** Relays on an interval until `stop()`. */
  start(): void;
  /** Stops the interval and waits for a pass in progress. */
  stop(): Promise<void>;
}

/** Module-level, not a closure per pass: see the comment above propertyColumn in db/hot/postgres.ts. */
function isWebhook(row: PendingRow): boolean {
  return row.kind === "webhook";
}

/**
 * The transactional outbox relay. Use cases write `OutboxMessage` rows in the
 * same transaction as the change they announce; the relay publishes them to
 * the queue and then marks them relayed. A row is only marked after the
 * queue confirmed it, so a broker outage leaves rows in place (relayed when it
 * returns) and a crash between publish and mark publishes the row again with
 * the same id — at least once, never lost.
 *
 * It works in batches: one statement reads up to `batchSize` rows, their
 * publishes are in flight together (RabbitMQ confirms them as a stream), and
 * one statement marks the batch relayed. Only the run of rows up to the first
 * failed publish is marked, so a row never overtakes an earlier one that
 * failed (the later ones are published again with the next pass: duplicates
 * the consumers tolerate, no reordering). Relayed rows stay, outside the
 * partial index of unrelayed rows the read uses (see the entity).
 *
 * Webhook rows no enabled endpoint takes are marked relayed without being
 * published: deciding here rather than when the row is written keeps the
 * dispatcher's rule (the endpoints at the time the event is handed over
 * receive it; past events are not replayed to endpoints made later) while the
 * hot path writes its rows blind, and spares the queue and the consumer a
 * message that would create no sending.
 *
 * Several processes may run a relay (each server after its commits, the
 * workers on their interval): how two relays share the rows is the store's
 * (OutboxStore.batch: claimed on PostgreSQL, tolerated duplicates on SQLite).
 */
export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const store = options.store ?? openOutboxStore(options.db);
  const now = options.now ?? (() => new Date());
  const batchSize = options.batchSize ?? 500;
  const onError = options.onError ?? ((error) => console.error("[outbox relay]", error));
  const minGapMs = options.minGapMs ?? RELAY_GAP_MS;
  let current: Promise<number> | undefined;
  let next: Promise<number> | undefined;
  /** A pass waiting for the gap since the last one: it has read nothing yet, so later requests join it. */
  let waiting: Promise<number> | undefined;
  let lastStart = -Infinity;
  let timer: NodeJS.Timeout | undefined;

  /** One batch: how many rows were handed over (or dropped as unsubscribed), and whether more may be waiting. */
  async function relayBatch(batch: OutboxBatch): Promise<{ relayed: number; more: boolean; error?: unknown }> {
    const rows = await batch.pending(batchSize);
    if (rows.length === 0) return { relayed: 0, more: false };
    const endpoints = await batch.endpoints(rows.filter(isWebhook));
    // A message is handed on only once the commit that wrote its row is on disk (db/wal-sync.ts): whatever it causes
    // outside the database (a RabbitMQ message, a webhook sent by its handler) never tells of a commit a crash could undo.
    await options.db.durable();
    const outcomes = await Promise.allSettled(
      rows.map((row) => {
        if (row.kind === "webhook" && !subscribed(endpoints.of(row), row.payload)) return Promise.resolve();
        const message: RelayedMessage = { id: row.id, clubId: row.clubId, env: row.env, payload: row.payload };
        return options.queue.publish(row.kind, message, { id: row.id });
      }),
    );
    const failed = outcomes.findIndex((outcome) => outcome.status === "rejected");
    const done = failed === -1 ? rows : rows.slice(0, failed);
    if (done.length > 0)
      await batch.markRelayed(
        done.map((row) => row.id),
        now(),
      );
    if (failed !== -1) return { relayed: done.length, more: false, error: (outcomes[failed] as PromiseRejectedResult).reason };
    return { relayed: done.length, more: rows.length === batchSize };
  }

  async function drain(): Promise<number> {
    let relayed = 0;
    try {
      for (;;) {
        const batch = await store.batch(relayBatch);
        relayed += batch.relayed;
        if (batch.error !== undefined) {
          onError(batch.error);
          return relayed;
        }
        if (!batch.more) return relayed;
        await yieldToEventLoop();
      }
    } catch (error) {
      onError(error);
      return relayed;
    }
  }

  function relayNow(): Promise<number> {
    if (waiting) return waiting;
    // A pass already running may have read past rows committed since: queue one more pass after it.
    if (current) {
      next ??= current.then(() => {
        next = undefined;
        return relayNow();
      });
      return next;
    }
    const wait = lastStart + minGapMs - performance.now();
    if (wait > 0) {
      waiting = new Promise((resolve) => setTimeout(resolve, wait)).then(() => {
        waiting = undefined;
        return relayNow();
      });
      return waiting;
    }
    lastStart = performance.now();
    current = drain().finally(() => {
      current = undefined;
    });
    return current;
  }

  return {
    relayNow,
    start() {
      timer ??= setInterval(() => void relayNow(), options.intervalMs ?? 1_000);
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await waiting;
      await next;
      await current;
    },
  };
}

/** How long a relay waits at least between the starts of two passes (OutboxRelayOptions.minGapMs); rows wait that much longer at most. */
export const RELAY_GAP_MS = 20;

/** A webhook row's envelope (`type`, `data`) against the endpoints of its scope; a malformed one is published for the consumer to reject. */
function subscribed(endpoints: readonly EndpointSubscription[], payload: Record<string, unknown>): boolean {
  const { type, data } = payload;
  if (typeof type !== "string" || typeof data !== "object" || data === null) return true;
  return hasSubscriber(endpoints, type, data as Record<string, unknown>);
}

/**
 * How long relayed rows are kept. The relay never reads them again (its scan
 * covers only unrelayed rows through a partial index); they stay a week for
 * whoever inspects the table, then go, so the table does not grow forever on
 * a machine where autovacuum is off.
 */
export const RELAYED_RETENTION_DAYS = 7;

/** Deletes the rows relayed more than RELAYED_RETENTION_DAYS before `now`; how many. */
export async function purgeRelayedOutbox(db: Database, now: Date, store: OutboxStore = openOutboxStore(db)): Promise<number> {
  return store.purgeRelayed(new Date(now.getTime() - RELAYED_RETENTION_DAYS * 86_400_000));
}
