/**
 * The RabbitMQ objects behind one logical queue, as plain data. For the
 * logical queue `webhook` with prefix `clube.`:
 *
 * - `clube.v2.webhook`: the work queue, a durable quorum queue with a
 *   delivery limit; messages rejected without requeue, and messages delivered
 *   more than the limit (a message that crashes every worker that takes it,
 *   so it is never acknowledged nor rejected), go to its dead-letter exchange.
 * - `clube.v2.webhook.dead` (fanout exchange) → `clube.v2.webhook.dead` (queue):
 *   where messages land after their last attempt, kept for an operator.
 * - `clube.v2.webhook.delay.<ms>`: consumer-less queues holding delayed messages
 *   (per-message TTL); an expired message is dead-lettered through the
 *   default exchange straight back into the work queue.
 *
 * Why several delay queues: RabbitMQ only expires a message when it reaches
 * the head of its queue, so in a single delay queue a 2-minute message would
 * hold back a 2-second one queued after it. Delays are grouped in
 * power-of-two buckets instead; within a bucket every TTL is at most the
 * bucket size, so a message waits at least its delay and at most twice it,
 * with at most 33 buckets per queue for delays up to 49 days.
 *
 * Why `v2.`: the first topology declared classic work queues (`clube.webhook`),
 * which count no redeliveries. A queue's type cannot change once declared (a
 * declaration with other arguments fails), so the quorum queues have new names
 * and a broker that still holds the classic ones starts fine; those are left
 * alone for an operator to drain (`TOPOLOGY_VERSION` names the generation).
 */

type Arguments = Record<string, string | number>;

export interface QueueDeclaration {
  queue: string;
  durable: true;
  arguments: Arguments;
}

export interface QueueTopology {
  work: QueueDeclaration;
  deadExchange: { exchange: string; type: "fanout"; durable: true };
  dead: QueueDeclaration;
  deadBinding: { queue: string; exchange: string; routingKey: "" };
}

/** The generation of the names below, after the deployment's prefix. */
export const TOPOLOGY_VERSION = "v2";

/**
 * Returns of one message to its queue (a delivery never acknowledged nor
 * rejected: its worker died or lost its connection) that the broker allows;
 * at the next return it dead-letters the message instead. A handler that fails is not a redelivery (the adapter
 * acknowledges and re-publishes it with its attempt number); only a message
 * whose worker died or lost its connection mid-handling comes back, so a few
 * such returns already mean the message itself is the problem.
 */
export const DEFAULT_DELIVERY_LIMIT = 5;

export function queueTopology(prefix: string, logicalQueue: string, deliveryLimit = DEFAULT_DELIVERY_LIMIT): QueueTopology {
  const work = `${prefix}${TOPOLOGY_VERSION}.${logicalQueue}`;
  const dead = `${work}.dead`;
  return {
    work: {
      queue: work,
      durable: true,
      arguments: { "x-queue-type": "quorum", "x-delivery-limit": deliveryLimit, "x-dead-letter-exchange": dead },
    },
    deadExchange: { exchange: dead, type: "fanout", durable: true },
    dead: { queue: dead, durable: true, arguments: {} },
    deadBinding: { queue: dead, exchange: dead, routingKey: "" },
  };
}

/** The delay queue holding a message for `delayMs` (> 0) before it returns to `workQueue`. */
export function delayQueue(workQueue: string, delayMs: number): QueueDeclaration {
  if (!(delayMs > 0)) throw new RangeError(`delayMs must be > 0, got ${delayMs}`);
  let bucket = 1;
  while (bucket < delayMs) bucket *= 2;
  return {
    queue: `${workQueue}.delay.${bucket}`,
    durable: true,
    arguments: { "x-dead-letter-exchange": "", "x-dead-letter-routing-key": workQueue },
  };
}

/** The message header carrying the attempt number (absent on the first delivery). */
export const ATTEMPT_HEADER = "x-clube-attempt";
