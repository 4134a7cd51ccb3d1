/**
 * The RabbitMQ objects behind one logical queue, as plain data. For the
 * logical queue `webhook` with prefix `clube.`:
 *
 * - `clube.webhook`: the work queue, durable; messages rejected without
 *   requeue go to its dead-letter exchange.
 * - `clube.webhook.dead` (fanout exchange) → `clube.webhook.dead` (queue):
 *   where messages land after their last attempt, kept for an operator.
 * - `clube.webhook.delay.<ms>`: consumer-less queues holding delayed messages
 *   (per-message TTL); an expired message is dead-lettered through the
 *   default exchange straight back into the work queue.
 *
 * Why several delay queues: RabbitMQ only expires a message when it reaches
 * the head of its queue, so in a single delay queue a 2-minute message would
 * hold back a 2-second one queued after it. Delays are grouped in
 * power-of-two buckets instead; within a bucket every TTL is at most the
 * bucket size, so a message waits at least its delay and at most twice it,
 * with at most 33 buckets per queue for delays up to 49 days.
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

export function queueTopology(prefix: string, logicalQueue: string): QueueTopology {
  const work = `${prefix}${logicalQueue}`;
  const dead = `${work}.dead`;
  return {
    work: { queue: work, durable: true, arguments: { "x-dead-letter-exchange": dead } },
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
