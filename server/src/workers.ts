import { newId } from "./db/ids.js";
import type { Database } from "./db/orm.js";
import { createOutboxRelay, type RelayedMessage } from "./jobs/outbox.js";
import { embeddedQueueOf, type EmbeddedQueue } from "./jobs/embedded.js";
import { openQueue } from "./jobs/open-queue.js";
import { startWorker } from "./jobs/worker.js";
import { GROUP_CAP, processQueuedEvent, queuedEventIds } from "./usecases/events/index.js";
import { processBacktest } from "./usecases/sandbox/index.js";
import { handEventsToJobs } from "./usecases/events/index.js";
import { testClockAt } from "./usecases/sandbox/index.js";
import { clockOf, workerTasks } from "./usecases/scheduled/index.js";
import type { Services } from "./services.js";

/** The queue the outbox relay fills with events accepted by `Prefer: respond-async`. */
export const EVENT_QUEUE = "event";
/** The queue of backtest jobs (outbox rows of kind `backtest`). */
export const BACKTEST_QUEUE = "backtest";
/**
 * How many event messages a consumer handles at once. A message names the
 * events of one accept group (up to GROUP_CAP); older ones name a single
 * event, and then this is two full group commits of queued events
 * (PostgreSQL applies two groups at a time), so the second group gathers
 * while the first waits for the database instead of the consumer waiting for
 * acknowledgements.
 */
const EVENT_PREFETCH = 2 * GROUP_CAP;

/**
 * The embedded queue is in the database itself: events accepted on `db` are
 * stored as its event jobs — the message the relay would publish — in the
 * accept's own transaction (see JobHandOff). Undone by the function returned.
 */
export function handEventsToEmbeddedQueue(db: Database, queue: EmbeddedQueue): () => void {
  return handEventsToJobs(db, {
    row: (scope, payload, at) => {
      const id = newId("job");
      const message: RelayedMessage = { id, clubId: scope.clubId, env: scope.env, payload };
      return queue.jobRow(EVENT_QUEUE, message, id, at);
    },
    stored: () => queue.stored(EVENT_QUEUE),
  });
}

export interface Processing {
  stop(): Promise<void>;
}

/**
 * Background work of one process.
 * - `consume: true` (`clube worker`, and `clube serve` on the embedded queue):
 *   the outbox relay, the webhook and event consumers, webhook retries, and the
 *   scheduled tasks (48-hour delivery scan, lot expiry, monthly tier review,
 *   automatic cashback).
 * - `consume: false` (`clube serve` with RabbitMQ): only the relay, so rows
 *   this process commits reach the broker at once; separate `clube worker`
 *   processes consume.
 * Either way, a commit that wrote outbox rows triggers a relay pass right away.
 */
export async function startProcessing(services: Services, options: { consume: boolean }): Promise<Processing> {
  const { db, settings } = services;
  const now = () => services.clock.now();
  const queue = openQueue({ amqpUrl: settings.amqpUrl, amqpPrefix: settings.amqpPrefix, db, leaseMs: settings.leaseMs });
  if (!options.consume) {
    const relay = createOutboxRelay({ db, queue, now });
    relay.start();
    services.onJobsChanged(() => void relay.relayNow());
    return {
      async stop() {
        await relay.stop();
        await queue.close();
      },
    };
  }
  const worker = await startWorker({
    db,
    queue,
    now,
    allowPrivateAddresses: settings.allowPrivateWebhooks,
    leaseMs: settings.leaseMs,
    tasks: workerTasks(db, settings.publicUrl),
    clockFor: (scope) => clockOf(db, scope),
    consumers: [
      {
        queue: EVENT_QUEUE,
        // Messages handled at once are applied together (group commit, see processQueuedEvent), each acknowledged after its group committed.
        prefetch: EVENT_PREFETCH,
        // Idempotent: a redelivered message finds its events processed and changes nothing.
        handler: async (message) => {
          const relayed = message as RelayedMessage;
          const eventIds = queuedEventIds(relayed.payload);
          if (eventIds === null) throw new Error(`event message ${relayed.id} names no event (event_ids)`);
          // A queued event of a test environment with a test clock is applied at the clock's time, like a synchronous one.
          const testClock = relayed.env === "test" ? await testClockAt(db, relayed.clubId) : null;
          // The after-commit hook of this message's work: the relay is woken once, after the commits, if any wrote outbox rows.
          let wroteOutbox = false;
          const opts = { now: testClock ?? now(), publicUrl: settings.publicUrl, afterCommit: () => (wroteOutbox = true) };
          const scope = { clubId: relayed.clubId, env: relayed.env };
          // The message's events are handed in together, in order, so they share group commits; it is acknowledged
          // once every one of them is applied, and retried whole when one failed (the others are then answered as processed).
          const outcomes = await Promise.allSettled(eventIds.map((eventId) => processQueuedEvent(db, scope, eventId, opts)));
          if (wroteOutbox) services.jobsChanged();
          const failed = outcomes.find((outcome) => outcome.status === "rejected");
          if (failed) throw failed.reason;
        },
      },
      {
        queue: BACKTEST_QUEUE,
        // Idempotent: a finished backtest is left alone; an interrupted one starts over.
        handler: async (message) => {
          const relayed = message as RelayedMessage;
          const backtestId = relayed.payload.backtest_id;
          if (typeof backtestId !== "string") throw new Error(`backtest message ${relayed.id} has no backtest_id`);
          await processBacktest(db, { clubId: relayed.clubId, env: relayed.env }, backtestId, now);
        },
      },
    ],
  });
  services.onJobsChanged(() => void worker.relay.relayNow());
  const embedded = embeddedQueueOf(queue);
  const relayEventsAgain = embedded ? handEventsToEmbeddedQueue(db, embedded) : () => {};
  return {
    async stop() {
      relayEventsAgain();
      await worker.stop();
      await queue.close();
    },
  };
}
