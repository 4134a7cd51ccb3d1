import { Connection, ConsumerStatus } from "rabbitmq-client";
import type { AsyncMessage, Consumer as AmqpConsumer, ConnectionOptions, Publisher } from "rabbitmq-client";
import { newId } from "../db/ids.js";
import {
  DEFAULT_PREFETCH,
  checkPayload,
  logHandlerFailure,
  messageIdFor,
  type Consumer,
  type ConsumeOptions,
  type HandlerFailure,
  type MessageHandler,
  type PublishOptions,
  type Queue,
} from "./queue.js";
import { DEFAULT_RETRY_POLICY, retryDelayMs, type RetryPolicy } from "./retry.js";
import { ATTEMPT_HEADER, DEFAULT_DELIVERY_LIMIT, delayQueue, queueTopology, type QueueDeclaration, type QueueTopology } from "./rabbitmq-topology.js";

export interface RabbitQueueOptions {
  /** `amqp://user:pass@host:5672/vhost` (the `AMQP_URL` setting). */
  url: string;
  /** Prepended to every queue and exchange name, so several deployments (or test runs) share a broker. */
  prefix?: string;
  retry?: RetryPolicy;
  onHandlerFailure?: (failure: HandlerFailure) => void;
  /** Connection-level trouble (lost connection, failed consumer setup); the client reconnects by itself. */
  onConnectionError?: (error: unknown) => void;
  /** How long a publish waits for a (re)connection before failing; default 20 s. */
  acquireTimeoutMs?: number;
  /** Reconnect backoff bounds; defaults 1 s and 30 s. */
  reconnectDelayMs?: { low: number; high: number };
  /** Returns of an unacknowledged message the work queue allows before dead-lettering it (DEFAULT_DELIVERY_LIMIT). */
  deliveryLimit?: number;
}

/**
 * The queue port on RabbitMQ (`rabbitmq-client`, which reconnects and
 * re-creates consumers by itself).
 *
 * Nothing is lost silently:
 * - topology (see rabbitmq-topology.ts) is declared before the first publish
 *   and again after every reconnect, because publishing to a queue that does
 *   not exist yet drops the message;
 * - messages are persistent and published with confirms, and `mandatory`, so
 *   an unroutable message comes back and the publish rejects;
 * - consumers acknowledge manually after the handler finished, so a worker
 *   that dies mid-message gets it redelivered; work queues are quorum queues
 *   with a delivery limit, so a message that kills every worker taking it is
 *   dead-lettered after `deliveryLimit` returns instead of redelivered forever.
 *
 * A failed handler's message is re-published to a delay queue with the next
 * attempt number and then acknowledged (a crash between the two duplicates
 * the message, which at-least-once allows); after the last attempt it is
 * rejected into the queue's dead-letter exchange.
 */
export function openRabbitQueue(options: RabbitQueueOptions): Queue {
  return new RabbitQueue(options);
}

class RabbitQueue implements Queue {
  private readonly connection: Connection;
  private readonly publisher: Publisher;
  private readonly prefix: string;
  private readonly deliveryLimit: number;
  private readonly retry: RetryPolicy;
  private readonly onHandlerFailure: (failure: HandlerFailure) => void;
  private readonly onConnectionError: (error: unknown) => void;
  /** Declarations done on the current connection, by queue name. */
  private readonly declared = new Map<string, Promise<void>>();
  /** Message ids the broker returned as unroutable, checked once the confirm arrives. */
  private readonly returned = new Set<string>();
  private readonly consumers = new Set<AmqpConsumer>();

  constructor(options: RabbitQueueOptions) {
    const connectionOptions: ConnectionOptions = {
      url: options.url,
      connectionName: "clube",
      acquireTimeout: options.acquireTimeoutMs ?? 20_000,
      retryLow: options.reconnectDelayMs?.low ?? 1_000,
      retryHigh: options.reconnectDelayMs?.high ?? 30_000,
    };
    this.connection = new Connection(connectionOptions);
    this.prefix = options.prefix ?? "clube.";
    this.deliveryLimit = options.deliveryLimit ?? DEFAULT_DELIVERY_LIMIT;
    this.retry = options.retry ?? DEFAULT_RETRY_POLICY;
    this.onHandlerFailure = options.onHandlerFailure ?? logHandlerFailure;
    this.onConnectionError = options.onConnectionError ?? ((error) => console.error("[rabbitmq]", error));
    this.connection.on("error", this.onConnectionError);
    // A broker that came back without its data has none of our queues: declare
    // again after every reconnect (not on the first connection, which may
    // complete while the first declarations are already under way).
    let connectedBefore = false;
    this.connection.on("connection", () => {
      if (connectedBefore) this.declared.clear();
      connectedBefore = true;
    });
    // Retries happen in publish(), around the topology declaration too.
    this.publisher = this.connection.createPublisher({ confirm: true });
    this.publisher.on("basic.return", (message) => {
      if (message.messageId) this.returned.add(message.messageId);
    });
  }

  async publish(queue: string, payload: unknown, opts: PublishOptions = {}): Promise<void> {
    checkPayload(payload);
    const id = messageIdFor(opts);
    const topology = queueTopology(this.prefix, queue, this.deliveryLimit);
    const body = Buffer.from(JSON.stringify(payload), "utf8");
    // One retry: a connection reset between declaring and the confirm is usual
    // during a broker restart, and the second try waits (up to the acquire
    // timeout) for the new connection. Unroutable messages also get a second
    // try, after declaring their queue again.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.declareTopology(topology);
        await this.send(topology.work.queue, body, id, 1, opts.delayMs ?? 0);
        return;
      } catch (error) {
        if (attempt === 2) throw error;
      }
    }
  }

  async consume(queue: string, handler: MessageHandler, opts: ConsumeOptions = {}): Promise<Consumer> {
    const topology = queueTopology(this.prefix, queue, this.deliveryLimit);
    await this.declareTopology(topology);
    const prefetch = opts.prefetch ?? DEFAULT_PREFETCH;
    const consumer = this.connection.createConsumer(
      {
        queue: topology.work.queue,
        queueOptions: topology.work,
        qos: { prefetchCount: prefetch },
        concurrency: prefetch,
        // A throw here means the retry could not be published: give the message back.
        requeue: true,
      },
      (message) => this.handle(queue, topology, handler, message),
    );
    consumer.on("error", this.onConnectionError);
    this.consumers.add(consumer);
    await new Promise<void>((resolve) => consumer.once("ready", resolve));
    return {
      close: async () => {
        this.consumers.delete(consumer);
        await consumer.close();
      },
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((consumer) => consumer.close()));
    this.consumers.clear();
    await this.publisher.close();
    await this.connection.close();
  }

  private async handle(queue: string, topology: QueueTopology, handler: MessageHandler, message: AsyncMessage): Promise<ConsumerStatus> {
    // Our publishers always set messageId; a message from elsewhere gets one for logging.
    const id = message.messageId ?? newId("job");
    const attempt = Number(message.headers?.[ATTEMPT_HEADER] ?? 1);
    try {
      await handler(message.body, { id, attempt });
      return ConsumerStatus.ACK;
    } catch (error) {
      const delay = retryDelayMs(this.retry, attempt);
      this.onHandlerFailure({ queue, id, attempt, dead: delay === null, error });
      if (delay === null) return ConsumerStatus.DROP;
      const body = Buffer.from(JSON.stringify(message.body), "utf8");
      await this.send(topology.work.queue, body, id, attempt + 1, delay);
      return ConsumerStatus.ACK;
    }
  }

  private async send(workQueue: string, body: Buffer, id: string, attempt: number, delayMs: number): Promise<void> {
    let routingKey = workQueue;
    let expiration: string | undefined;
    if (delayMs > 0) {
      const holding = delayQueue(workQueue, delayMs);
      await this.declareQueue(holding);
      routingKey = holding.queue;
      expiration = String(Math.ceil(delayMs));
    }
    await this.publisher.send(
      {
        exchange: "",
        routingKey,
        mandatory: true,
        durable: true,
        messageId: id,
        contentType: "application/json",
        expiration,
        headers: attempt > 1 ? { [ATTEMPT_HEADER]: attempt } : undefined,
      },
      body,
    );
    // The broker sends basic.return before the confirm of an unroutable message,
    // but the client emits it on setImmediate, after the confirm resolved: let it arrive.
    await new Promise((resolve) => setImmediate(resolve));
    if (this.returned.delete(id)) {
      // The queue vanished behind our back (deleted by hand?): declare it again on the next publish.
      this.declared.delete(routingKey);
      throw new Error(`RabbitMQ could not route message ${id} to queue ${routingKey}`);
    }
  }

  private declareTopology(topology: QueueTopology): Promise<void> {
    return this.once(topology.work.queue, async () => {
      await this.connection.exchangeDeclare(topology.deadExchange);
      await this.connection.queueDeclare(topology.dead);
      await this.connection.queueBind(topology.deadBinding);
      await this.connection.queueDeclare(topology.work);
    });
  }

  private declareQueue(declaration: QueueDeclaration): Promise<void> {
    return this.once(declaration.queue, async () => {
      await this.connection.queueDeclare(declaration);
    });
  }

  /** Runs a declaration once per connection; a failed one is tried again next time. */
  private once(key: string, declare: () => Promise<void>): Promise<void> {
    let pending = this.declared.get(key);
    if (!pending) {
      pending = declare().catch((error: unknown) => {
        this.declared.delete(key);
        throw error;
      });
      this.declared.set(key, pending);
    }
    return pending;
  }
}
