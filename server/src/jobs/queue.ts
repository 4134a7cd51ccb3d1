import { newId } from "../db/ids.js";

/**
 * The queue port: what workers need from a message queue, implemented by
 * RabbitMQ (`rabbitmq.ts`, when AMQP_URL is set) and by a durable in-database
 * queue (`embedded.ts`, the default).
 *
 * Delivery is at least once: a message may be handled twice (a worker dies
 * after the work but before the acknowledgement, a publisher retries after a
 * lost confirmation), so every handler must be idempotent — typically by
 * keying its writes on `meta.id`. A handler that throws is retried with
 * backoff (`retry.ts`) until the policy's maximum, then the message is
 * dead-lettered (RabbitMQ) or marked dead (embedded) for an operator to see.
 */

export interface PublishOptions {
  /** Deliver no earlier than this many milliseconds from now. */
  delayMs?: number;
  /**
   * The message id handed to the handler as `meta.id`; a producer that may
   * publish the same thing twice (the outbox relay) passes a stable id so the
   * consumer can deduplicate. A random id is used when absent. At most
   * `MAX_MESSAGE_ID_LENGTH` characters (the embedded queue's key column).
   */
  id?: string;
}

export interface MessageMeta {
  id: string;
  /**
   * 1 on the first delivery, +1 after each attempt whose handler threw. The
   * embedded queue also counts an attempt whose worker died (its lease ran
   * out); RabbitMQ redelivers such a message with the same number.
   */
  attempt: number;
}

export type MessageHandler = (payload: unknown, meta: MessageMeta) => Promise<void>;

export interface ConsumeOptions {
  /** At most this many messages are handled at once by this consumer. */
  prefetch?: number;
}

export interface Consumer {
  /** Stops taking messages and waits for the handlers already running. */
  close(): Promise<void>;
}

export interface Queue {
  /**
   * Resolves once the message is durably stored; rejects (never drops it
   * silently) otherwise. `payload` is any JSON value except null.
   */
  publish(queue: string, payload: unknown, opts?: PublishOptions): Promise<void>;
  /** Resolves once the consumer is receiving messages. */
  consume(queue: string, handler: MessageHandler, opts?: ConsumeOptions): Promise<Consumer>;
  /** Closes every consumer (waiting for running handlers) and the connection. */
  close(): Promise<void>;
}

/** What a failed handler leads to, reported to the adapter's `onError` hook. */
export interface HandlerFailure {
  queue: string;
  id: string;
  attempt: number;
  /** True when no attempts remain and the message was dead-lettered. */
  dead: boolean;
  error: unknown;
}

export const DEFAULT_PREFETCH = 10;

export const MAX_MESSAGE_ID_LENGTH = 40;

/**
 * Refuses what cannot travel the same way on both adapters: a payload must be
 * JSON, and null is excluded because the embedded queue's JSON column stores
 * it as SQL NULL.
 */
export function checkPayload(payload: unknown): void {
  if (payload === null || payload === undefined) throw new TypeError("a queue payload must be a JSON value other than null");
}

/** The id a published message carries: the producer's, checked, or a new random one. */
export function messageIdFor(opts: PublishOptions): string {
  if (opts.id === undefined) return newId("job");
  if (opts.id.length === 0 || opts.id.length > MAX_MESSAGE_ID_LENGTH) {
    throw new RangeError(`message id must be 1..${MAX_MESSAGE_ID_LENGTH} characters, got ${opts.id.length}`);
  }
  return opts.id;
}

/** Logs handler failures on stderr; adapters accept their own hook instead. */
export function logHandlerFailure(failure: HandlerFailure): void {
  const what = failure.dead ? "dead-lettered" : "will be retried";
  const reason = failure.error instanceof Error ? failure.error.message : String(failure.error);
  console.error(`[queue ${failure.queue}] message ${failure.id} attempt ${failure.attempt} failed (${what}): ${reason}`);
}
