import type { Database } from "../db/orm.js";
import { openEmbeddedQueue } from "./embedded.js";
import type { Queue } from "./queue.js";
import { openRabbitQueue } from "./rabbitmq.js";

/**
 * The queue the settings ask for: RabbitMQ when `AMQP_URL` is set (several
 * worker processes on several machines), otherwise the embedded queue in the
 * database (one machine, nothing else to run).
 */
export function openQueue(options: { amqpUrl: string | undefined; amqpPrefix?: string; db: Database; leaseMs?: number }): Queue {
  return options.amqpUrl
    ? openRabbitQueue({ url: options.amqpUrl, prefix: options.amqpPrefix })
    : openEmbeddedQueue({ db: options.db, leaseMs: options.leaseMs });
}
