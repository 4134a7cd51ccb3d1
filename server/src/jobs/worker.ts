import type { Database } from "../db/orm.js";
import { WebhookDispatcher } from "../webhooks/dispatch.js";
import { createOutboxRelay, type OutboxRelay } from "./outbox.js";
import type { Consumer, MessageHandler, Queue } from "./queue.js";
import { warnUnconfirmedDeliveries } from "./warnings.js";

/** The queue the relay fills from outbox rows of kind `webhook`. */
export const WEBHOOK_QUEUE = "webhook";

/** How often the 48-hour delivery check runs; a warning comes at most this late. */
const DELIVERY_SCAN_INTERVAL_MS = 5 * 60_000;

export interface WorkerOptions {
  db: Database;
  queue: Queue;
  now?: () => Date;
  /** Further consumers, e.g. the `event` queue of `Prefer: respond-async` (its handler lives with the event use cases). */
  consumers?: Array<{ queue: string; handler: MessageHandler; prefetch?: number }>;
  onError?: (error: unknown) => void;
  /** Passed to the webhook dispatcher (`CLUBE_ALLOW_PRIVATE_WEBHOOKS=1`). */
  allowPrivateAddresses?: boolean;
}

export interface RunningWorker {
  /** The relay, for `relayNow()` after a commit in the same process. */
  relay: OutboxRelay;
  stop(): Promise<void>;
}

/**
 * Everything a worker process runs: the outbox relay on its interval, the
 * `webhook` queue consumer, the webhook retry scheduler, the 48-hour
 * unconfirmed-delivery scan, and any extra consumers. Stateless: any number of
 * workers may run against the same database and broker.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const now = options.now ?? (() => new Date());
  const onError = options.onError ?? ((error) => console.error("[worker]", error));
  const relay = createOutboxRelay({ db: options.db, queue: options.queue, now, onError });
  const dispatcher = new WebhookDispatcher({ db: options.db, now, onError, allowPrivateAddresses: options.allowPrivateAddresses });
  const consumers: Consumer[] = [await options.queue.consume(WEBHOOK_QUEUE, dispatcher.handleOutboxMessage)];
  for (const extra of options.consumers ?? []) {
    consumers.push(await options.queue.consume(extra.queue, extra.handler, { prefetch: extra.prefetch }));
  }
  relay.start();
  dispatcher.start();
  let scan: Promise<unknown> | undefined;
  const scanDeliveries = () => {
    scan ??= warnUnconfirmedDeliveries(options.db, now())
      .catch(onError)
      .finally(() => (scan = undefined));
  };
  const scanTimer = setInterval(scanDeliveries, DELIVERY_SCAN_INTERVAL_MS);
  scanDeliveries();
  return {
    relay,
    async stop() {
      clearInterval(scanTimer);
      await scan;
      await relay.stop();
      await dispatcher.stop();
      await Promise.all(consumers.map((consumer) => consumer.close()));
    },
  };
}
