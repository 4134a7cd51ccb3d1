import { Connection } from "rabbitmq-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { delayQueue, queueTopology } from "../../server/src/jobs/rabbitmq-topology.js";
import { RABBITMQ_URL, rabbitFixture } from "./support/fixtures.js";
import { TcpProxy } from "./support/tcp-proxy.js";
import { sleep, waitFor } from "./support/wait.js";

describe("RabbitMQ topology", () => {
  it("names the work, dead-letter and delay objects under the prefix", () => {
    expect(queueTopology("clube.", "webhook")).toEqual({
      work: {
        queue: "clube.v2.webhook",
        durable: true,
        arguments: { "x-queue-type": "quorum", "x-delivery-limit": 5, "x-dead-letter-exchange": "clube.v2.webhook.dead" },
      },
      deadExchange: { exchange: "clube.v2.webhook.dead", type: "fanout", durable: true },
      dead: { queue: "clube.v2.webhook.dead", durable: true, arguments: {} },
      deadBinding: { queue: "clube.v2.webhook.dead", exchange: "clube.v2.webhook.dead", routingKey: "" },
    });
    expect(queueTopology("clube.", "webhook", 2).work.arguments["x-delivery-limit"]).toBe(2);
  });

  it("puts a delay in the smallest power-of-two bucket that holds it, dead-lettering back to the work queue", () => {
    expect(delayQueue("clube.webhook", 1)).toEqual({
      queue: "clube.webhook.delay.1",
      durable: true,
      arguments: { "x-dead-letter-exchange": "", "x-dead-letter-routing-key": "clube.webhook" },
    });
    expect(delayQueue("w", 1024).queue).toBe("w.delay.1024");
    expect(delayQueue("w", 1025).queue).toBe("w.delay.2048");
    expect(delayQueue("w", 0.5).queue).toBe("w.delay.1");
    expect(() => delayQueue("w", 0)).toThrow(RangeError);
  });
});

describe("RabbitMQ adapter when the broker goes away", () => {
  const fixture = rabbitFixture();
  const proxy = new TcpProxy(Number(new URL(RABBITMQ_URL).port || 5672), new URL(RABBITMQ_URL).hostname);
  const viaProxy = () => {
    const url = new URL(RABBITMQ_URL);
    url.port = String(proxy.port);
    return url.toString();
  };

  beforeAll(async () => {
    await fixture.setup();
    await proxy.up();
  });
  afterAll(async () => {
    await proxy.up();
    await fixture.teardown();
    await proxy.goDown();
  });

  it("loses no message when the connection drops in the middle of a stream", async () => {
    const name = fixture.queueName();
    const consumerSide = await fixture.open({ url: viaProxy() });
    const producerSide = await fixture.open({ url: viaProxy() });
    const received = new Set<string>();
    await consumerSide.consume(name, async (_payload, meta) => {
      await sleep(5);
      received.add(meta.id);
    });
    const connectionsBefore = proxy.accepted;
    for (let i = 0; i < 60; i++) {
      if (i === 20 || i === 40) proxy.dropConnections();
      await producerSide.publish(name, { i }, { id: `m${i}` });
    }
    await waitFor("all 60 messages after two connection drops", () => received.size === 60, 60_000);
    // Both sides came back after each drop (producer twice; the consumer at least once).
    expect(proxy.accepted - connectionsBefore).toBeGreaterThanOrEqual(3);
  });

  it("holds a publish while the broker is unreachable and completes it when the broker is back", async () => {
    const name = fixture.queueName();
    const queue = await fixture.open({ url: viaProxy() });
    const received: string[] = [];
    await queue.consume(name, async (_payload, meta) => void received.push(meta.id));
    await proxy.goDown();
    let settled = false;
    const publishing = queue.publish(name, { during: "outage" }, { id: "held" }).finally(() => (settled = true));
    try {
      await sleep(800);
      expect(settled).toBe(false);
    } finally {
      await proxy.up();
    }
    await publishing;
    await waitFor("the held message", () => received.includes("held"));
  });

  it("fails the publish loudly when the broker stays away longer than the acquire timeout", async () => {
    const name = fixture.queueName();
    const queue = await fixture.open({ url: viaProxy(), acquireTimeoutMs: 300 });
    await queue.publish(name, { before: true });
    await proxy.goDown();
    try {
      await expect(queue.publish(name, { during: "outage" })).rejects.toThrow();
    } finally {
      await proxy.up();
    }
  });

  it("never reports an unroutable message as published: it declares the vanished queue again and delivers", async () => {
    const name = fixture.queueName();
    const queue = await fixture.open();
    await queue.publish(name, { first: true }, { id: "first" });
    const admin = new Connection(RABBITMQ_URL);
    try {
      // Deleted behind the adapter's back, after it declared (and cached) the topology.
      await admin.queueDelete(queueTopology(fixture.prefix, name).work.queue);
    } finally {
      await admin.close();
    }
    await queue.publish(name, { second: true }, { id: "second" });
    const received: string[] = [];
    await queue.consume(name, async (_payload, meta) => void received.push(meta.id));
    await waitFor("the message published after the deletion", () => received.includes("second"));
    await sleep(200);
    // "first" went down with the deleted queue; "second" was routed only after the new declaration.
    expect(received).toEqual(["second"]);
  });
});

describe("RabbitMQ quorum work queues", () => {
  const fixture = rabbitFixture();
  let admin: Connection;
  beforeAll(async () => {
    await fixture.setup();
    admin = new Connection(RABBITMQ_URL);
    admin.on("error", () => undefined);
    await admin.onConnect(5_000);
  });
  afterAll(async () => {
    await admin?.close();
    await fixture.teardown();
  });

  it("dead-letters a message that crashes every worker taking it, after the delivery limit", async () => {
    const name = fixture.queueName();
    const queue = await fixture.open({ deliveryLimit: 2 });
    await queue.publish(name, { poison: true }, { id: "poison" });
    const work = queueTopology(fixture.prefix, name).work.queue;
    // Each "worker" takes the message and dies before acknowledging it: its channel closes.
    let deliveries = 0;
    const deadline = Date.now() + 20_000;
    let dead: string[] = [];
    while (dead.length === 0) {
      if (Date.now() > deadline) throw new Error(`the poison message was not dead-lettered (${deliveries} deliveries)`);
      const channel = await admin.acquire();
      try {
        const message = await channel.basicGet({ queue: work, noAck: false });
        if (message) deliveries++;
      } finally {
        await channel.close();
      }
      dead = await fixture.deadIds(name);
      if (dead.length === 0) await sleep(20);
    }
    expect(dead).toEqual(["poison"]);
    // The first delivery and the two returns the limit allows.
    expect(deliveries).toBe(3);
  }, 30_000);

  it("starts next to a classic queue of the first topology with the same logical name", async () => {
    const name = fixture.queueName();
    const classic = `${fixture.prefix}${name}`;
    await admin.queueDeclare({ queue: classic, durable: true, arguments: { "x-dead-letter-exchange": `${classic}.dead` } });
    try {
      const queue = await fixture.open();
      const received: string[] = [];
      await queue.consume(name, async (_payload, meta) => void received.push(meta.id));
      await queue.publish(name, { hello: true }, { id: "after-upgrade" });
      await waitFor("the message on the quorum queue", () => received.includes("after-upgrade"));
    } finally {
      await admin.queueDelete(classic);
    }
  });
});
