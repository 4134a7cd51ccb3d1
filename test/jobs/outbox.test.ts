import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { OutboxMessage, WebhookEndpoint } from "../../server/src/db/entities/index.js";
import { newId } from "../../server/src/db/ids.js";
import type { Database } from "../../server/src/db/orm.js";
import { openEmbeddedQueue } from "../../server/src/jobs/embedded.js";
import { createOutboxRelay, purgeRelayedOutbox, RELAYED_RETENTION_DAYS, type RelayedMessage } from "../../server/src/jobs/outbox.js";
import type { MessageMeta, Queue } from "../../server/src/jobs/queue.js";
import { describeEachDatabase, openTestDatabase } from "../support/databases.js";
import { RABBITMQ_URL, rabbitFixture } from "./support/fixtures.js";
import { TcpProxy } from "./support/tcp-proxy.js";
import { gate, waitFor } from "./support/wait.js";

/** Passes everything to `inner`, noting each publish (and optionally holding it) for the test. */
function recording(inner: Queue, hold?: Promise<void>) {
  const published: Array<{ queue: string; id: string | undefined }> = [];
  const queue: Queue = {
    async publish(name, payload, opts) {
      published.push({ queue: name, id: opts?.id });
      if (hold && published.length === 1) await hold;
      return inner.publish(name, payload, opts);
    },
    consume: (name, handler, opts) => inner.consume(name, handler, opts),
    close: () => inner.close(),
  };
  return { queue, published };
}

describeEachDatabase("outbox relay", (kind) => {
  let db: Database;
  let closeDb: () => Promise<void>;
  let queue: Queue;
  const clock = new Date("2025-03-01T12:00:00.000Z");

  beforeAll(async () => {
    ({ db, close: closeDb } = await openTestDatabase(kind));
    queue = openEmbeddedQueue({ db, pollIntervalMs: 50 });
  });
  afterAll(async () => {
    await queue.close();
    await closeDb();
  });
  beforeEach(async () => {
    await db.em().nativeDelete(OutboxMessage, {});
    await db.em().nativeDelete(WebhookEndpoint, {});
  });

  async function addRow(kindOfRow: "webhook" | "event", createdAt: Date, payload: Record<string, unknown> = {}): Promise<string> {
    const id = newId("out");
    await db.em().insert(OutboxMessage, { id, clubId: "club_1", env: "test", kind: kindOfRow, payload, createdAt });
    return id;
  }
  const at = (seconds: number) => new Date(clock.getTime() + seconds * 1000);
  const pending = () => db.em().count(OutboxMessage, { relayedAt: null });

  it("hands each row to the queue of its kind in creation order, with the row id as message id, then marks it relayed", async () => {
    const third = await addRow("webhook", at(3), { n: 3 });
    const first = await addRow("webhook", at(1), { n: 1 });
    const second = await addRow("event", at(2), { n: 2 });
    const { queue: watched, published } = recording(queue);
    const received: Array<{ message: RelayedMessage; meta: MessageMeta }> = [];
    const record = async (message: unknown, meta: MessageMeta) => void received.push({ message: message as RelayedMessage, meta });
    const consumers = [await queue.consume("webhook", record), await queue.consume("event", record)];

    const relay = createOutboxRelay({ db, queue: watched, now: () => clock });
    expect(await relay.relayNow()).toBe(3);
    expect(published).toEqual([
      { queue: "webhook", id: first },
      { queue: "event", id: second },
      { queue: "webhook", id: third },
    ]);
    expect(await pending()).toBe(0);
    expect((await db.em().findOneOrFail(OutboxMessage, { id: first })).relayedAt).toEqual(clock);
    expect(await relay.relayNow()).toBe(0);

    await waitFor("the three messages", () => received.length === 3);
    const byId = new Map(received.map((r) => [r.meta.id, r.message]));
    expect(byId.get(second)).toEqual({ id: second, clubId: "club_1", env: "test", payload: { n: 2 } });
    expect([...byId.keys()].sort()).toEqual([first, second, third].sort());
    await Promise.all(consumers.map((consumer) => consumer.close()));
  });

  it("reads in batches until nothing is left", async () => {
    for (let i = 0; i < 5; i++) await addRow("event", at(i));
    const relay = createOutboxRelay({ db, queue, batchSize: 2 });
    expect(await relay.relayNow()).toBe(5);
    expect(await pending()).toBe(0);
  });

  it("relays rows committed while a pass was running when asked during that pass", async () => {
    await addRow("event", at(1));
    const hold = gate();
    const { queue: slow, published } = recording(queue, hold.promise);
    const relay = createOutboxRelay({ db, queue: slow });
    const firstPass = relay.relayNow();
    await waitFor("the first pass to be publishing", () => published.length === 1);
    const late = await addRow("event", at(2));
    const secondPass = relay.relayNow();
    hold.open();
    await firstPass;
    await secondPass;
    expect((await db.em().findOneOrFail(OutboxMessage, { id: late })).relayedAt).not.toBeNull();
  });

  it("marks relayed without publishing the webhook rows no enabled endpoint of their club and environment takes", async () => {
    const envelope = (type: string, data: Record<string, unknown> = {}) => ({
      id: newId("evt"),
      type,
      created_at: clock.toISOString(),
      club_id: "club_1",
      env: "test",
      data,
    });
    const endpoint = async (fields: Partial<WebhookEndpoint>) => {
      const id = newId("we");
      await db.em().insert(WebhookEndpoint, {
        id,
        clubId: "club_1",
        env: "test",
        url: "http://127.0.0.1:9/hook",
        events: [],
        description: null,
        enabled: true,
        secret: "whsec_test",
        previousSecret: null,
        previousSecretExpiresAt: null,
        createdAt: clock,
        updatedAt: clock,
        deletedAt: null,
        ...fields,
      });
      return id;
    };
    const taken = await endpoint({ events: ["tier.changed"] });
    await endpoint({ events: ["wheel.spun"], enabled: false });
    await endpoint({ events: ["wheel.spun"], env: "live" });
    await endpoint({ events: ["code.redeemed"], deletedAt: clock });
    const tier = await addRow("webhook", at(1), envelope("tier.changed"));
    const wheel = await addRow("webhook", at(2), envelope("wheel.spun"));
    const redeemed = await addRow("webhook", at(3), envelope("code.redeemed"));
    const reward = await addRow("webhook", at(4), envelope("reward.delivered"));
    const test = await addRow("webhook", at(5), envelope("webhook.test", { endpoint_id: taken }));
    const queued = await addRow("event", at(6), { event_id: "evt_1" });
    const { queue: watched, published } = recording({ ...queue, publish: async () => undefined });

    expect(await createOutboxRelay({ db, queue: watched }).relayNow()).toBe(6);
    expect(published.map((p) => p.id)).toEqual([tier, test, queued]);
    expect(await pending()).toBe(0);
    for (const id of [wheel, redeemed, reward]) expect((await db.em().findOneOrFail(OutboxMessage, { id })).relayedAt).not.toBeNull();
  });

  it("marks only the rows up to the first failed publish, so none overtakes it", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await addRow("event", at(i)));
    const failing: Queue = { ...queue, publish: async (_name, _payload, opts) => (opts?.id === ids[2] ? Promise.reject(new Error("nack")) : undefined) };
    const errors: unknown[] = [];
    expect(await createOutboxRelay({ db, queue: failing, onError: (error) => errors.push(error) }).relayNow()).toBe(2);
    expect(errors).toHaveLength(1);
    const left = await db.em().find(OutboxMessage, { relayedAt: null }, { orderBy: { createdAt: "asc" } });
    expect(left.map((row) => row.id)).toEqual(ids.slice(2));
  });

  it("two relays passing at once hand every row over, each in one of them", async () => {
    for (let i = 0; i < 40; i++) await addRow("event", at(i));
    const { queue: a, published: byA } = recording({ ...queue, publish: async () => undefined });
    const { queue: b, published: byB } = recording({ ...queue, publish: async () => undefined });
    const [relayedA, relayedB] = await Promise.all([
      createOutboxRelay({ db, queue: a, batchSize: 7 }).relayNow(),
      createOutboxRelay({ db, queue: b, batchSize: 7 }).relayNow(),
    ]);
    expect(await pending()).toBe(0);
    const ids = [...byA, ...byB].map((p) => p.id);
    expect(new Set(ids).size).toBe(40);
    // PostgreSQL claims rows (SKIP LOCKED): no row twice. SQLite tolerates a duplicate (consumers deduplicate on the id).
    if (kind === "postgresql") expect(relayedA + relayedB).toBe(40);
  });

  it("purges rows relayed more than a week ago, keeping newer relayed rows and every unrelayed one", async () => {
    const day = 86_400_000;
    const old = await addRow("webhook", new Date(clock.getTime() - 9 * day));
    const recent = await addRow("webhook", new Date(clock.getTime() - 2 * day));
    const unrelayed = await addRow("webhook", new Date(clock.getTime() - 30 * day));
    await db.em().nativeUpdate(OutboxMessage, { id: old }, { relayedAt: new Date(clock.getTime() - (RELAYED_RETENTION_DAYS * day + 1)) });
    await db.em().nativeUpdate(OutboxMessage, { id: recent }, { relayedAt: new Date(clock.getTime() - (RELAYED_RETENTION_DAYS * day - 1)) });
    expect(await purgeRelayedOutbox(db, clock)).toBe(1);
    const left = await db.em().find(OutboxMessage, {}, { fields: ["id"] });
    expect(left.map((row) => row.id).sort()).toEqual([recent, unrelayed].sort());
  });

  it("relays on its interval once started", async () => {
    const id = await addRow("event", at(1));
    const relay = createOutboxRelay({ db, queue, intervalMs: 50 });
    relay.start();
    try {
      await waitFor("the interval pass", async () => (await db.em().findOneOrFail(OutboxMessage, { id })).relayedAt !== null);
    } finally {
      await relay.stop();
    }
  });

  it("keeps rows while the broker is unreachable and relays them, in order, once it is back", async () => {
    const rabbit = rabbitFixture();
    await rabbit.setup();
    const proxy = new TcpProxy(Number(new URL(RABBITMQ_URL).port || 5672), new URL(RABBITMQ_URL).hostname);
    await proxy.up();
    const url = new URL(RABBITMQ_URL);
    url.port = String(proxy.port);
    try {
      const broker = await rabbit.open({ url: url.toString(), acquireTimeoutMs: 300 });
      const name = rabbit.queueName();
      const received: string[] = [];
      await broker.consume(name, async (_message, meta) => void received.push(meta.id));
      // The relay publishes to the queue named by the row's kind; map the kind onto this run's queue.
      const renamed: Queue = {
        publish: (_kind, payload, opts) => broker.publish(name, payload, opts),
        consume: (queueName, handler, opts) => broker.consume(queueName, handler, opts),
        close: () => broker.close(),
      };
      const errors: unknown[] = [];
      const relay = createOutboxRelay({ db, queue: renamed, onError: (error) => errors.push(error) });

      await proxy.goDown();
      const first = await addRow("webhook", at(1));
      const second = await addRow("webhook", at(2));
      expect(await relay.relayNow()).toBe(0);
      expect(errors).toHaveLength(1);
      expect(await pending()).toBe(2);

      await proxy.up();
      expect(await relay.relayNow()).toBe(2);
      expect(await pending()).toBe(0);
      await waitFor("both rows through RabbitMQ", () => received.length === 2);
      expect(received).toEqual([first, second]);
    } finally {
      await proxy.up();
      await rabbit.teardown();
      await proxy.goDown();
    }
  });
});
