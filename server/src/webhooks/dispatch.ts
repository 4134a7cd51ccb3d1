import type { SqlEntityManager } from "@mikro-orm/knex";
import type { Database } from "../db/orm.js";
import { WebhookSending } from "../db/entities/index.js";
import { newId } from "../db/ids.js";
import type { Scope } from "../db/scope.js";
import type { RelayedMessage } from "../jobs/outbox.js";
import type { MessageHandler } from "../jobs/queue.js";
import { insertWarning } from "../jobs/warnings.js";
import { ApiError, notFound } from "../usecases/shared/errors.js";
import { signingSecrets } from "../usecases/webhooks/index.js";
import { buildEnvelope, subscriptionMatches } from "./envelope.js";
import { nextAttemptAt } from "./schedule.js";
import { DEFAULT_SEND_TIMEOUT_MS, sendWebhook, type SendResult } from "./sender.js";
import { pruneAttemptLog } from "./attempt-log.js";
import { openSendingStore, type AttemptTiming, type Outcome, type SendingStore, type Target } from "./sending-store.js";
import { EndpointLanes, SuccessLog, TickBatch, type Success } from "./throughput.js";

/**
 * Requests in flight to one endpoint. 16 is enough for a local receiver
 * (about a millisecond per answer); 64 was tried and made the serve process
 * of the embedded stack busy enough with webhooks to change the pace of the
 * event path (test/async/processes.test.ts's restart test stopped seeing a
 * backlog), so a raise needs the embedded queue's claiming reworked first.
 */
const DEFAULT_PER_ENDPOINT_CONCURRENCY = 16;

/** The outbox payload of a webhook event, as `recordWebhook` (usecases/webhooks/outbox.ts) writes it. */
interface WebhookEvent {
  id: string;
  type: string;
  createdAt: Date;
  data: Record<string, unknown>;
}

/** A webhook message being handled: its event and the club and environment it belongs to. */
interface Arrival {
  scope: Scope;
  event: WebhookEvent;
}

/** A sending just created, with the endpoint it goes to. */
interface Created {
  sending: WebhookSending;
  endpoint: Target;
}

export interface WebhookDispatcherOptions {
  db: Database;
  /** Where sendings are stored; by default the adapter of `db`'s database (sending-store.ts). */
  store?: SendingStore;
  /** The clock for schedules and signatures; tests move it to walk the retry schedule. */
  now?: () => Date;
  /** Per-request timeout (the seed's 10 s by default). */
  timeoutMs?: number;
  /** How long past the request timeout a claimed attempt stays reserved, so that a crashed sender's attempt is taken over (60 s by default). */
  leaseMs?: number;
  /** Requests in flight at once in one `runDue` pass. */
  concurrency?: number;
  /** Requests in flight at once to one endpoint, across handlers and `runDue` (16 by default). */
  perEndpointConcurrency?: number;
  /** Sendings read per `runDue` pass. */
  batchSize?: number;
  /** How often `start()` looks for due retries. */
  intervalMs?: number;
  onError?: (error: unknown) => void;
  /** `CLUBE_ALLOW_PRIVATE_WEBHOOKS=1`: live endpoints may resolve to private addresses. */
  allowPrivateAddresses?: boolean;
  /**
   * The test clock of a scope, null without one. A failed attempt of a
   * clocked test environment's sending is rescheduled on its clock, so the
   * retry falls due when the clock is advanced (`runDueFor`), not in real
   * time. Signatures keep real time: receivers check them against their own clock.
   */
  clockFor?: (scope: Scope) => Promise<Date | null>;
}

/**
 * Turns webhook events into sendings and sends them.
 *
 * `handleOutboxMessage` is the consumer of the `webhook` queue: one sending per
 * enabled endpoint of the club and environment that subscribes to the event
 * (`webhook.test` goes only to the endpoint its data names), each created with
 * its final body and unique per (endpoint, event id), so a redelivered message
 * creates nothing twice; new sendings are attempted at once.
 *
 * `runDue` attempts every pending sending whose `nextAttemptAt` has come.
 * Each attempt first claims the sending by pushing `nextAttemptAt` past the
 * request timeout with a conditional update, so two workers never send the
 * same attempt; a worker that dies mid-request leaves it due again after that
 * lease. Failures are rescheduled by schedule.ts; the last one marks the
 * sending failed and warns the club's staff.
 */
export class WebhookDispatcher {
  private readonly now: () => Date;
  private readonly timeoutMs: number;
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<number> | undefined;
  /** Requests in flight per endpoint, bounded so one slow receiver is not flooded. */
  private readonly lanes: EndpointLanes;
  /** Succeeded attempts, recorded together (one UPDATE per tick). */
  private readonly successes: SuccessLog;
  /** Webhook messages handled at once, turned into sendings together (one read of endpoints, one INSERT per tick). */
  private readonly arrivals: TickBatch<Arrival, Created[]>;
  private readonly store: SendingStore;

  constructor(private readonly options: WebhookDispatcherOptions) {
    this.store = options.store ?? openSendingStore(options.db);
    this.now = options.now ?? (() => new Date());
    this.timeoutMs = options.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
    this.lanes = new EndpointLanes(options.perEndpointConcurrency ?? DEFAULT_PER_ENDPOINT_CONCURRENCY);
    this.successes = new SuccessLog((batch) => this.recordSuccesses(batch));
    this.arrivals = new TickBatch((arrivals) => this.createSendings(arrivals));
  }

  /** The `webhook` queue handler (payload: a RelayedMessage of kind `webhook`). */
  readonly handleOutboxMessage: MessageHandler = async (message) => {
    const relayed = parseRelayedMessage(message);
    const event = parseWebhookEvent(relayed.payload);
    const created = await this.arrivals.add({ scope: { clubId: relayed.clubId, env: relayed.env }, event });
    await Promise.all(created.map(({ sending, endpoint }) => this.send(sending, endpoint, sending.createdAt)));
  };

  /**
   * Attempts every due sending in real time; resolves with the number of
   * attempts made. A test environment that follows a test clock is left out:
   * its retries fall due on its clock, and only an advance (runDueFor) runs them.
   */
  async runDue(): Promise<number> {
    const now = this.now();
    return (await this.runDueOf(await this.store.dueInRealTime(now, this.batchSize()), now)).attempted;
  }

  /**
   * Attempts the sendings of one scope due at `now` (its test clock's time,
   * when a clock advance runs it): only those attempted before (retries, and
   * resends, which keep their last outcome). A sending never attempted is in
   * its first attempt, made at once by the handler that created it, and
   * claimed until real time passes its lease: a test clock hours ahead would
   * see that lease run out and send it a second time meanwhile.
   */
  async runDueFor(scope: Scope, now: Date): Promise<number> {
    // Batch after batch until none is due at `now`, so an advance step leaves no due retry behind. Each
    // attempt (or another process's claim) moves its sending's next attempt past `now`, so every batch
    // is new; one seen again means the scope is not draining, and the next advance takes it up.
    const tried = new Set<string>();
    let attempted = 0;
    for (;;) {
      const batch = await this.runDueOf(await this.store.dueRetriesOf(scope, now, this.batchSize()), now);
      attempted += batch.attempted;
      if (batch.ids.length === 0 || batch.ids.some((id) => tried.has(id))) return attempted;
      for (const id of batch.ids) tried.add(id);
    }
  }

  private batchSize(): number {
    return this.options.batchSize ?? 100;
  }

  /** Attempts the due sendings `found`, `concurrency` at a time. */
  private async runDueOf(found: string[], now: Date): Promise<{ ids: string[]; attempted: number }> {
    const ids = [...found];
    let attempted = 0;
    const worker = async () => {
      for (let id = ids.shift(); id !== undefined; id = ids.shift()) if (await this.attempt(id, now)) attempted += 1;
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency ?? 10, ids.length) }, worker));
    return { ids: found, attempted };
  }

  /** Runs `runDue` on an interval (one pass at a time) until `stop()`. */
  start(): void {
    this.timer ??= setInterval(() => {
      this.pass ??= this.runDue()
        .catch((error: unknown) => {
          (this.options.onError ?? ((e) => console.error("[webhooks]", e)))(error);
          return 0;
        })
        .finally(() => (this.pass = undefined));
    }, this.options.intervalMs ?? 1_000);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.pass;
  }

  /**
   * The sendings of the events of one tick (one list per arrival), created
   * already claimed for their first attempt (`nextAttemptAt` past the lease,
   * as `attempt` would set it), so the handlers send them with no claim and
   * no re-read; one that exists already (a redelivered message) belongs to
   * the scheduler. The endpoints are read once for the whole tick: those
   * enabled when the messages are handled receive them, as before.
   */
  private async createSendings(arrivals: readonly Arrival[]): Promise<Created[][]> {
    const clubIds = [...new Set(arrivals.map(({ scope }) => scope.clubId))];
    const planned = this.plan(arrivals, await this.store.enabledEndpoints(clubIds));
    const rows: WebhookSending[] = [];
    for (const list of planned) for (const { sending } of list) rows.push(sending);
    const inserted = await this.store.insertNew(rows);
    return planned.map((list) => list.filter(({ sending }) => inserted.has(sending.id)));
  }

  /** The sendings of each arrival (one list per arrival) to the enabled `endpoints` read for them. */
  private plan(arrivals: readonly Arrival[], endpoints: readonly Target[]): Created[][] {
    const now = this.now();
    const lease = this.leaseFrom(now);
    return arrivals.map(({ scope, event }): Created[] => {
      const inScope = endpoints.filter((endpoint) => endpoint.clubId === scope.clubId && endpoint.env === scope.env);
      const targets =
        event.type === "webhook.test"
          ? inScope.filter((endpoint) => endpoint.id === event.data.endpoint_id)
          : inScope.filter((endpoint) => subscriptionMatches(endpoint.events, event.type));
      if (targets.length === 0) return [];
      const body = buildEnvelope({ ...event, ...scope });
      return targets.map((endpoint) => ({
        endpoint,
        sending: {
          id: newId("whd"),
          ...scope,
          endpointId: endpoint.id,
          eventId: event.id,
          eventType: event.type,
          body,
          status: "pending" as const,
          attempts: 0,
          lastError: null,
          lastStatusCode: null,
          nextAttemptAt: lease,
          createdAt: now,
          updatedAt: now,
        } as WebhookSending,
      }));
    });
  }

  /** How long a claimed attempt is reserved: past the request timeout, so nobody else claims it meanwhile. */
  private leaseFrom(attemptedAt: Date): Date {
    return new Date(attemptedAt.getTime() + this.timeoutMs + (this.options.leaseMs ?? 60_000));
  }

  /** One attempt of one sending, if it is due at `attemptedAt` and nobody else claimed it; true when a request was made. */
  private async attempt(id: string, attemptedAt: Date): Promise<boolean> {
    if (!(await this.store.claim(id, attemptedAt, this.leaseFrom(attemptedAt)))) return false;
    const { sending, endpoint } = await this.store.load(id);
    if (!endpoint || endpoint.deletedAt || !endpoint.enabled) {
      // The club removed or switched off the endpoint meanwhile: stop here; a resend works once it is back.
      await this.finish(sending, {
        status: "failed",
        attempts: sending.attempts,
        lastError: endpoint && !endpoint.deletedAt ? "endpoint disabled" : "endpoint deleted",
        lastStatusCode: sending.lastStatusCode,
        nextAttemptAt: null,
      });
      return false;
    }
    await this.send(sending, endpoint, attemptedAt);
    return true;
  }

  /** Makes the claimed attempt of `sending` to `endpoint` and records its outcome. */
  private async send(sending: WebhookSending, endpoint: Target, attemptedAt: Date): Promise<void> {
    // The address was checked when the endpoint was saved; DNS may have changed since, so the
    // sender checks the address it actually connects to (a refused one counts as a failed attempt).
    const guard = sending.env === "live" && !this.options.allowPrivateAddresses;
    let timing: AttemptTiming | undefined;
    const result = await this.lanes.run(endpoint.id, async () => {
      // Timed from the request itself, not the wait for a lane: the log shows how long the endpoint took.
      const startedAt = this.now();
      const started = performance.now();
      const sent = await sendWebhook(
        { url: endpoint.url, secret: signingSecrets(endpoint, attemptedAt), eventType: sending.eventType, sendingId: sending.id, body: sending.body },
        { now: this.now, timeoutMs: this.timeoutMs, guard },
      );
      timing = { startedAt, durationMs: Math.round(performance.now() - started) };
      return sent;
    });
    await this.record(sending, endpoint.url, result, attemptedAt, timing!);
  }

  private async record(sending: WebhookSending, url: string, result: SendResult, attemptedAt: Date, timing: AttemptTiming) {
    const attempts = sending.attempts + 1;
    const lastStatusCode = result.statusCode ?? null;
    if (result.ok) {
      await this.successes.add({ id: sending.id, attempts: sending.attempts, statusCode: lastStatusCode, ...timing });
      return;
    }
    // A clocked test environment's retry is due on its clock (runDueFor while advancing it makes it due).
    const next = nextAttemptAt(attempts, (await this.options.clockFor?.(sending)) ?? attemptedAt);
    const lastError = result.error ?? "failed";
    await this.finish(sending, { status: next ? "pending" : "failed", attempts, lastError, lastStatusCode, nextAttemptAt: next }, timing);
    if (!next) {
      await insertWarning(this.options.db.em(), {
        clubId: sending.clubId,
        env: sending.env,
        kind: "webhook_failed",
        subjectId: sending.id,
        message: `Webhook ${sending.eventType} (${sending.eventId}) to ${url} failed ${attempts} times; last error: ${lastError}`,
        createdAt: this.now(),
      });
    }
  }

  /** Marks succeeded attempts together (guarded like `finish`, by status and attempt count). */
  private recordSuccesses(batch: readonly Success[]): Promise<void> {
    return this.store.recordSuccesses(batch, this.now());
  }

  private async finish(sending: WebhookSending, outcome: Outcome, timing?: AttemptTiming): Promise<void> {
    // Guarded like the claim: only the worker holding this attempt records it
    // (the lease outlasts the request timeout, so nobody else claims meanwhile).
    await this.store.finish(sending, outcome, this.now(), timing);
  }
}

/**
 * Sends a `failed` or `succeeded` sending again (the management route): back
 * to `pending`, due now, `attempts` restarting at 0 so the whole schedule
 * applies again; the body and id stay, so the receiver sees the same envelope
 * id and X-Clube-Delivery. A pending sending is refused with 409 `sending_pending`.
 * The attempt log is pruned to make room for the new round (attempt-log.ts).
 */
export async function resendSending(em: SqlEntityManager, scope: Scope, id: string, now: Date): Promise<WebhookSending> {
  const sending = await em.findOne(WebhookSending, { id, ...scope });
  if (!sending) throw notFound(`Webhook sending '${id}'`);
  if (sending.status === "pending") {
    const at = sending.nextAttemptAt ? `; next attempt at ${sending.nextAttemptAt.toISOString()}` : "";
    throw new ApiError(409, "sending_pending", `Sending '${id}' is pending${at}`);
  }
  const changed = await em.transactional(async (tx) => {
    const updated = await tx.nativeUpdate(
      WebhookSending,
      { id, status: sending.status },
      { status: "pending", attempts: 0, nextAttemptAt: now, updatedAt: now },
    );
    if (updated === 1) await pruneAttemptLog(tx, id);
    return updated;
  });
  if (changed !== 1) throw new ApiError(409, "sending_pending", `Sending '${id}' is pending`);
  return em.fork().findOneOrFail(WebhookSending, { id });
}

function parseRelayedMessage(message: unknown): RelayedMessage {
  const m = message as Partial<RelayedMessage> | null;
  if (
    typeof m?.id !== "string" ||
    typeof m.clubId !== "string" ||
    (m.env !== "test" && m.env !== "live") ||
    typeof m.payload !== "object" ||
    m.payload === null
  ) {
    throw new Error(`not an outbox message: ${JSON.stringify(message)}`);
  }
  return m as RelayedMessage;
}

function parseWebhookEvent(payload: Record<string, unknown>): WebhookEvent {
  const { id, type, created_at: createdAt, data } = payload;
  const created = typeof createdAt === "string" ? new Date(createdAt) : undefined;
  if (
    typeof id !== "string" ||
    !id.startsWith("evt_") ||
    typeof type !== "string" ||
    !created ||
    Number.isNaN(created.getTime()) ||
    typeof data !== "object" ||
    data === null
  ) {
    throw new Error(`not a webhook event payload: ${JSON.stringify(payload)}`);
  }
  return { id, type, createdAt: created, data: data as Record<string, unknown> };
}
