import type { Database } from "../db/orm.js";
import type { Scope } from "../db/scope.js";
import { WebhookDispatcher } from "../webhooks/dispatch.js";
import { createOutboxRelay, type OutboxRelay } from "./outbox.js";
import type { Consumer, MessageHandler, Queue } from "./queue.js";
import { startSchedule, type RunningSchedule, type ScheduledTask } from "./schedules.js";

/** The queue the relay fills from outbox rows of kind `webhook`. */
export const WEBHOOK_QUEUE = "webhook";

export interface WorkerOptions {
  db: Database;
  queue: Queue;
  now?: () => Date;
  /** Further consumers, e.g. the `event` queue of `Prefer: respond-async` (its handler lives with the event use cases). */
  consumers?: Array<{ queue: string; handler: MessageHandler; prefetch?: number }>;
  onError?: (error: unknown) => void;
  /** Passed to the webhook dispatcher (`CLUBE_ALLOW_PRIVATE_WEBHOOKS=1`). */
  allowPrivateAddresses?: boolean;
  /** Passed to the webhook dispatcher (`CLUBE_LEASE_SECONDS`). */
  leaseMs?: number;
  /** The periodic jobs (usecases/scheduled `workerTasks`); none by default. */
  tasks?: ScheduledTask[];
  /**
   * How long after the start the periodic jobs make their first
   * pass (FIRST_TASK_PASS_DELAY_MS by default); then every interval as before.
   */
  firstTaskPassDelayMs?: number;
  /** A scope's test clock, on which its webhook retries are scheduled (usecases/scheduled `clockOf`); real time by default. */
  clockFor?: (scope: Scope) => Promise<Date | null>;
}

export interface RunningWorker {
  /** The relay, for `relayNow()` after a commit in the same process. */
  relay: OutboxRelay;
  stop(): Promise<void>;
}

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

/**
 * Everything a worker process runs: the outbox relay on its interval, the
 * `webhook` queue consumer, the webhook retry scheduler, the periodic jobs
 * (options.tasks), and any extra consumers. Stateless: any number of workers
 * may run against the same database and broker.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const now = options.now ?? (() => new Date());
  const onError = options.onError ?? ((error) => console.error("[worker]", error));
  const relay = createOutboxRelay({ db: options.db, queue: options.queue, now, onError });
  const dispatcher = new WebhookDispatcher({
    db: options.db,
    now,
    onError,
    allowPrivateAddresses: options.allowPrivateAddresses,
    leaseMs: options.leaseMs,
    clockFor: options.clockFor,
  });
  const consumers: Consumer[] = [await options.queue.consume(WEBHOOK_QUEUE, dispatcher.handleOutboxMessage, { prefetch: WEBHOOK_PREFETCH })];
  for (const extra of options.consumers ?? []) {
    consumers.push(await options.queue.consume(extra.queue, extra.handler, { prefetch: extra.prefetch }));
  }
  relay.start();
  dispatcher.start();
  let schedule: RunningSchedule | undefined;
  const firstPass = setTimeout(() => {
    schedule = startSchedule(options.tasks ?? [], { now, onError });
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
