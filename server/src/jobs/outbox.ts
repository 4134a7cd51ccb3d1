import type { Database } from "../db/orm.js";
import { OutboxMessage } from "../db/entities/index.js";
import type { Env } from "../db/scope.js";
import type { Queue } from "./queue.js";
import { yieldToEventLoop } from "../db/yield-to-event-loop.js";

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
  queue: Queue;
  now?: () => Date;
  /** How often `start()` relays without being asked (catches rows of other processes and retries after an outage). */
  intervalMs?: number;
  /** Rows read per query. */
  batchSize?: number;
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

/**
 * The transactional outbox relay. Use cases write `OutboxMessage` rows in the
 * same transaction as the change they announce; the relay publishes each row
 * to the queue and then marks it relayed. A row is only marked after the
 * queue confirmed it, so a broker outage leaves rows in place (relayed when it
 * returns) and a crash between publish and mark publishes the row again with
 * the same id — at least once, never lost. A pass stops at the first failure
 * so rows keep their order.
 *
 * Several processes may run a relay (the server after each commit, the worker
 * on its interval); they can both publish a row, which is one more duplicate
 * the consumers already tolerate.
 */
export function createOutboxRelay(options: OutboxRelayOptions): OutboxRelay {
  const now = options.now ?? (() => new Date());
  const batchSize = options.batchSize ?? 100;
  const onError = options.onError ?? ((error) => console.error("[outbox relay]", error));
  let current: Promise<number> | undefined;
  let next: Promise<number> | undefined;
  let timer: NodeJS.Timeout | undefined;

  async function drain(): Promise<number> {
    let relayed = 0;
    try {
      for (;;) {
        const em = options.db.em();
        const rows = await em.find(OutboxMessage, { relayedAt: null }, { orderBy: { createdAt: "asc", id: "asc" }, limit: batchSize });
        for (const row of rows) {
          const message: RelayedMessage = { id: row.id, clubId: row.clubId, env: row.env, payload: row.payload };
          await options.queue.publish(row.kind, message, { id: row.id });
          await em.nativeUpdate(OutboxMessage, { id: row.id }, { relayedAt: now() });
          relayed += 1;
          await yieldToEventLoop();
        }
        if (rows.length < batchSize) return relayed;
      }
    } catch (error) {
      onError(error);
      return relayed;
    }
  }

  function relayNow(): Promise<number> {
    // A pass already running may have read past rows committed since: queue one more pass after it.
    if (current) {
      next ??= current.then(() => {
        next = undefined;
        return relayNow();
      });
      return next;
    }
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
      await next;
      await current;
    },
  };
}
