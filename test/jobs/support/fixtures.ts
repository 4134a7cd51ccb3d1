import { randomBytes } from "node:crypto";
import { Connection } from "rabbitmq-client";
import { openDatabase, type Database } from "../../../server/src/db/orm.js";
import { Job } from "../../../server/src/db/entities/index.js";
import { openEmbeddedQueue, type EmbeddedQueueOptions } from "../../../server/src/jobs/embedded.js";
import type { Queue } from "../../../server/src/jobs/queue.js";
import { openRabbitQueue, type RabbitQueueOptions } from "../../../server/src/jobs/rabbitmq.js";
import type { RetryPolicy } from "../../../server/src/jobs/retry.js";
import { queueTopology } from "../../../server/src/jobs/rabbitmq-topology.js";
import { describe } from "vitest";
import { createTestDatabase, postgresEnabled, type DatabaseKind } from "../../support/databases.js";

export const RABBITMQ_URL = process.env.CLUBE_TEST_AMQP_URL ?? "amqp://guest:guest@127.0.0.1:5672";

/** Fast retries so the suites see every attempt within a second. */
export const TEST_RETRY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 200 };

/**
 * One queue adapter under test. `open()` gives a new, independent instance —
 * its own connection or database handle — like another worker process.
 */
export interface QueueFixture {
  readonly name: string;
  setup(): Promise<void>;
  open(): Promise<Queue>;
  /** A queue name nobody else in this run uses. */
  queueName(): string;
  /** Cleans up a fixed queue name too (one the code under test chose, such as `webhook`). */
  track(queue: string): void;
  /** Ids of the messages that ran out of attempts on `queue`. */
  deadIds(queue: string): Promise<string[]>;
  teardown(): Promise<void>;
}

let queueCounter = 0;
const uniqueRun = () => randomBytes(4).toString("hex");

export function rabbitFixture(): QueueFixture & { prefix: string; open(overrides?: Partial<RabbitQueueOptions>): Promise<Queue> } {
  const prefix = `clube-test-${uniqueRun()}.`;
  const opened: Queue[] = [];
  const names = new Set<string>();
  let admin!: Connection;
  return {
    name: "rabbitmq",
    prefix,
    async setup() {
      admin = new Connection(RABBITMQ_URL);
      admin.on("error", () => undefined);
      await admin.onConnect(5_000);
    },
    async open(overrides: Partial<RabbitQueueOptions> = {}) {
      const queue = openRabbitQueue({
        url: RABBITMQ_URL,
        prefix,
        retry: TEST_RETRY,
        reconnectDelayMs: { low: 50, high: 300 },
        onHandlerFailure: () => undefined,
        onConnectionError: () => undefined,
        ...overrides,
      });
      opened.push(queue);
      return queue;
    },
    queueName() {
      const name = `q${++queueCounter}`;
      names.add(name);
      return name;
    },
    track(queue) {
      names.add(queue);
    },
    async deadIds(queue) {
      const ids: string[] = [];
      for (;;) {
        const message = await admin.basicGet({ queue: queueTopology(prefix, queue).dead.queue, noAck: true });
        if (!message) return ids;
        ids.push(message.messageId ?? "");
      }
    },
    async teardown() {
      await Promise.all(opened.map((queue) => queue.close()));
      for (const name of names) {
        const topology = queueTopology(prefix, name);
        // Delay buckets are powers of two; the suites never delay more than a few seconds.
        for (let bucket = 1; bucket <= 2 ** 16; bucket *= 2) await admin.queueDelete(`${topology.work.queue}.delay.${bucket}`);
        await admin.queueDelete(topology.work.queue);
        await admin.queueDelete(topology.dead.queue);
        await admin.exchangeDelete({ exchange: topology.deadExchange.exchange });
      }
      await admin.close();
    },
  };
}

export function embeddedFixture(kind: DatabaseKind): QueueFixture & {
  open(overrides?: Partial<EmbeddedQueueOptions>): Promise<Queue>;
  database(): Promise<Database>;
  location(): { url: string | undefined; dataDir: string };
} {
  let testDatabase: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
  const databases: Database[] = [];
  const opened: Queue[] = [];
  const fixture = {
    name: `embedded on ${kind}`,
    async setup() {
      testDatabase = await createTestDatabase(kind);
    },
    location() {
      if (!testDatabase) throw new Error("setup() first");
      return { url: testDatabase.url, dataDir: testDatabase.dataDir };
    },
    async database() {
      const db = await openDatabase({ databaseUrl: fixture.location().url, dataDir: fixture.location().dataDir });
      databases.push(db);
      return db;
    },
    async open(overrides: Partial<EmbeddedQueueOptions> = {}) {
      const queue = openEmbeddedQueue({
        db: await fixture.database(),
        retry: TEST_RETRY,
        pollIntervalMs: 50,
        onHandlerFailure: () => undefined,
        ...overrides,
      });
      opened.push(queue);
      return queue;
    },
    queueName() {
      return `q${++queueCounter}`;
    },
    // The fixture's database goes away as a whole.
    track() {},
    async deadIds(queue: string) {
      const db = databases[0] ?? (await fixture.database());
      const dead = await db.em().find(Job, { queue, status: "dead" }, { orderBy: { createdAt: "asc" } });
      return dead.map((job) => job.id);
    },
    async teardown() {
      await Promise.all(opened.map((queue) => queue.close()));
      await Promise.all(databases.map((db) => db.close()));
      await testDatabase?.drop();
    },
  };
  return fixture;
}

/**
 * Registers `body` once per adapter: RabbitMQ, embedded on SQLite, embedded
 * on PostgreSQL (shown as skipped with CLUBE_TEST_PG=off).
 */
export function describeEachQueue(title: string, body: (fixture: QueueFixture) => void): void {
  const fixtures: QueueFixture[] = [rabbitFixture(), embeddedFixture("sqlite"), embeddedFixture("postgresql")];
  for (const fixture of fixtures) {
    if (fixture.name === "embedded on postgresql" && !postgresEnabled) {
      describe.skip(`${title}: ${fixture.name} [skipped, CLUBE_TEST_PG=off]`, () => body(fixture));
    } else {
      describe(`${title}: ${fixture.name}`, () => body(fixture));
    }
  }
}
