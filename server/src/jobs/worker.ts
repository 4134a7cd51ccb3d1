import type { Database } from "../db/orm.js";
import type { Scope } from "../db/scope.js";
import { creditDueCashbackForAllClubs } from "../usecases/cashback/index.js";
import { purgeOldTraces } from "../usecases/events/index.js";
import { expireCurrencyLots } from "../usecases/rewards/index.js";
import { expireRewards } from "../usecases/rewards/index.js";
import { reviewTiers } from "../usecases/participants/index.js";
import { settleTournaments, settleTournamentsForAllClubs } from "../usecases/tournaments/index.js";
import { testClockAt } from "../usecases/sandbox/index.js";
import { WebhookDispatcher } from "../webhooks/dispatch.js";
import { maintainTables } from "../db/table-maintenance.js";
import { createOutboxRelay, purgeRelayedOutbox, type OutboxRelay } from "./outbox.js";
import type { Consumer, MessageHandler, Queue } from "./queue.js";
import { startSchedule, type RunningSchedule, type ScheduledTask } from "./schedules.js";
import { warnUnconfirmedDeliveries } from "./warnings.js";

/** The queue the relay fills from outbox rows of kind `webhook`. */
export const WEBHOOK_QUEUE = "webhook";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** How often a worker checks whether tables need ANALYZE or VACUUM (db/table-maintenance.ts: big tables are acted on at most every 30 s). */
const TABLE_MAINTENANCE_MS = 5_000;

export interface WorkerOptions {
  db: Database;
  queue: Queue;
  now?: () => Date;
  /** Further consumers, e.g. the `event` queue of `Prefer: respond-async` (its handler lives with the event use cases). */
  consumers?: Array<{ queue: string; handler: MessageHandler; prefetch?: number }>;
  onError?: (error: unknown) => void;
  /** Passed to the webhook dispatcher (`CLUBE_ALLOW_PRIVATE_WEBHOOKS=1`). */
  allowPrivateAddresses?: boolean;
  /**
   * How long after the start the periodic jobs (workerTasks) make their first
   * pass (FIRST_TASK_PASS_DELAY_MS by default); then every interval as before.
   */
  firstTaskPassDelayMs?: number;
  /**
   * The service's public base URL (settings `publicUrl`), for the confirm and
   * fail links of the deliveries that automatic cashback creates. Without it
   * the worker pays no automatic cashback.
   */
  publicUrl?: string;
}

export interface RunningWorker {
  /** The relay, for `relayNow()` after a commit in the same process. */
  relay: OutboxRelay;
  stop(): Promise<void>;
}

/**
 * The periodic jobs of every worker, each safe to run in several workers at
 * once. The interval is how late a job may act: a delivery warning or a lot
 * expiry comes at most 5 minutes late; a tier review (once per club month)
 * and an `auto` cashback payment (due at the program's hour) at most an hour;
 * a tournament edition is settled at most a minute after it closes (2 minutes
 * after its end, see LATE_EVENT_GRACE_MS).
 */
export function workerTasks(db: Database, publicUrl: string | undefined): ScheduledTask[] {
  const tasks: ScheduledTask[] = [
    {
      name: "unconfirmed delivery warnings",
      intervalMs: 5 * MINUTE_MS,
      run: (now) => warnUnconfirmedDeliveries(db, now),
      runFor: (scope, now) => warnUnconfirmedDeliveries(db, now, undefined, scope),
    },
    {
      name: "currency lot expiry",
      intervalMs: 5 * MINUTE_MS,
      run: (now) => expireCurrencyLots(db, now),
      runFor: (scope, now) => expireCurrencyLots(db, now, undefined, scope),
    },
    {
      name: "reward expiry",
      intervalMs: 5 * MINUTE_MS,
      run: (now) => expireRewards(db, now),
      runFor: (scope, now) => expireRewards(db, now, scope),
    },
    { name: "monthly tier review", intervalMs: HOUR_MS, run: (now) => reviewTiers(db, now), runFor: (scope, now) => reviewTiers(db, now, scope) },
    { name: "event trace retention", intervalMs: HOUR_MS, run: (now) => purgeOldTraces(db, now) },
    { name: "relayed outbox retention", intervalMs: HOUR_MS, run: (now) => purgeRelayedOutbox(db, now) },
    // Often, so that a fresh install or a club that grows fast is planned for its size within seconds; a pass that finds nothing to do is two catalog reads.
    { name: "table statistics and vacuum", intervalMs: TABLE_MAINTENANCE_MS, run: () => maintainTables(db) },
  ];
  if (publicUrl !== undefined) {
    tasks.push({
      name: "automatic cashback",
      intervalMs: HOUR_MS,
      run: (now) => creditDueCashbackForAllClubs(db, { now, publicUrl }),
      runFor: (scope, now) => creditDueCashbackForAllClubs(db, { now, publicUrl }, scope),
    });
    // Prizes are paid at most a minute after an edition closes; a pass over settled editions only reads.
    tasks.push({
      name: "tournament settlement",
      intervalMs: MINUTE_MS,
      run: (now) => settleTournamentsForAllClubs(db, { now, publicUrl }),
      runFor: (scope, now) => settleTournaments(db, scope, { now, publicUrl }),
    });
  }
  return tasks;
}

/**
 * What `POST /v1/test_clock/advance` runs at each step: the worker's tasks,
 * then the webhook retries due on the club's test clock. (A worker's
 * dispatcher retries on real time; a clocked test environment's sendings are
 * scheduled on its clock, see WebhookDispatcherOptions.clockFor, so only an
 * advance makes them due.)
 */
export function testClockTasks(db: Database, publicUrl: string | undefined): ScheduledTask[] {
  const dispatcher = new WebhookDispatcher({ db, clockFor: (scope) => clockOf(db, scope) });
  return [
    ...workerTasks(db, publicUrl),
    { name: "webhook retries", intervalMs: MINUTE_MS, run: () => dispatcher.runDue(), runFor: (scope, now) => dispatcher.runDueFor(scope, now) },
  ];
}

/** A scope's test clock: only a test environment has one. */
function clockOf(db: Database, scope: Scope): Promise<Date | null> {
  return scope.env === "test" ? testClockAt(db, scope.clubId) : Promise.resolve(null);
}

/**
 * Everything a worker process runs: the outbox relay on its interval, the
 * `webhook` queue consumer, the webhook retry scheduler, the periodic jobs
 * (workerTasks), and any extra consumers. Stateless: any number of workers
 * may run against the same database and broker.
 */
/**
 * Webhook messages taken at once. Each one waits on a receiver's answer, so a
 * small prefetch caps sendings at prefetch ÷ receiver latency; and the
 * dispatcher creates and records the sendings of the messages in hand
 * together, so more in hand means fewer statements per sending. It bounds
 * what is in flight per endpoint on its own (16 by default). Larger values
 * gained nothing measurable (docs/performance-log.md#queues-and-webhooks).
 */
const WEBHOOK_PREFETCH = 64;

/**
 * A worker starts its periodic jobs this long after it started consuming. A
 * worker usually starts into a backlog (a deploy, a restart after a crash),
 * and the first passes of every job at once (ORM reads over every club, on
 * code not yet optimized) slowed its draining measurably
 * (docs/performance-log.md#queues-and-webhooks). The jobs' intervals are 5 s
 * to an hour and each says how late it may act, so ten seconds more at a
 * start changes nothing in practice.
 */
export const FIRST_TASK_PASS_DELAY_MS = 10_000;

export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const now = options.now ?? (() => new Date());
  const onError = options.onError ?? ((error) => console.error("[worker]", error));
  const relay = createOutboxRelay({ db: options.db, queue: options.queue, now, onError });
  const dispatcher = new WebhookDispatcher({
    db: options.db,
    now,
    onError,
    allowPrivateAddresses: options.allowPrivateAddresses,
    clockFor: (scope) => clockOf(options.db, scope),
  });
  const consumers: Consumer[] = [await options.queue.consume(WEBHOOK_QUEUE, dispatcher.handleOutboxMessage, { prefetch: WEBHOOK_PREFETCH })];
  for (const extra of options.consumers ?? []) {
    consumers.push(await options.queue.consume(extra.queue, extra.handler, { prefetch: extra.prefetch }));
  }
  relay.start();
  dispatcher.start();
  let schedule: RunningSchedule | undefined;
  const firstPass = setTimeout(() => {
    schedule = startSchedule(workerTasks(options.db, options.publicUrl), { now, onError });
  }, options.firstTaskPassDelayMs ?? FIRST_TASK_PASS_DELAY_MS);
  return {
    relay,
    async stop() {
      clearTimeout(firstPass);
      await schedule?.stop();
      await relay.stop();
      await dispatcher.stop();
      await Promise.all(consumers.map((consumer) => consumer.close()));
    },
  };
}
