import { afterAll, beforeAll, expect, it } from "vitest";
import type { MessageMeta } from "../../server/src/jobs/queue.js";
import { describeEachQueue, TEST_RETRY } from "./support/fixtures.js";
import { gate, sleep, waitFor } from "./support/wait.js";

/** The same behaviour is required of every adapter of the queue port. */
describeEachQueue("queue contract", (fixture) => {
  beforeAll(() => fixture.setup());
  afterAll(() => fixture.teardown());

  it("delivers a published payload once, with the producer's id and attempt 1", async () => {
    const queue = await fixture.open();
    const name = fixture.queueName();
    const seen: Array<{ payload: unknown; meta: MessageMeta }> = [];
    await queue.consume(name, async (payload, meta) => void seen.push({ payload, meta }));
    await queue.publish(name, { club: "club_1", amount_cents: 1050, tags: ["vip"] }, { id: "out_first" });
    await waitFor("the message", () => seen.length === 1);
    await sleep(200);
    expect(seen).toEqual([{ payload: { club: "club_1", amount_cents: 1050, tags: ["vip"] }, meta: { id: "out_first", attempt: 1 } }]);
  });

  it("gives every message an id when the producer has none", async () => {
    const queue = await fixture.open();
    const name = fixture.queueName();
    const ids: string[] = [];
    await queue.consume(name, async (_payload, meta) => void ids.push(meta.id));
    await queue.publish(name, 1);
    await queue.publish(name, 2);
    await waitFor("both messages", () => ids.length === 2);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^job_[0-9A-Za-z]{24}$/);
  });

  it("keeps JSON payloads of every type", async () => {
    const queue = await fixture.open();
    const name = fixture.queueName();
    const payloads: unknown[] = ["text", 42, false, [1, "two", { three: 3 }], { nested: { deep: [true, null] } }];
    const seen = new Map<string, unknown>();
    await queue.consume(name, async (payload, meta) => void seen.set(meta.id, payload));
    for (const [index, payload] of payloads.entries()) await queue.publish(name, payload, { id: `p${index}` });
    await waitFor("every payload", () => seen.size === payloads.length);
    payloads.forEach((payload, index) => expect(seen.get(`p${index}`)).toEqual(payload));
  });

  it("refuses a null or missing payload", async () => {
    const queue = await fixture.open();
    await expect(queue.publish(fixture.queueName(), null)).rejects.toThrow(TypeError);
    await expect(queue.publish(fixture.queueName(), undefined)).rejects.toThrow(TypeError);
  });

  it("refuses a message id longer than 40 characters and accepts exactly 40", async () => {
    const queue = await fixture.open();
    const name = fixture.queueName();
    await expect(queue.publish(name, {}, { id: "x".repeat(41) })).rejects.toThrow(RangeError);
    await expect(queue.publish(name, {}, { id: "" })).rejects.toThrow(RangeError);
    const seen: string[] = [];
    await queue.consume(name, async (_payload, meta) => void seen.push(meta.id));
    await queue.publish(name, {}, { id: "x".repeat(40) });
    await waitFor("the 40-character id", () => seen.length === 1);
    expect(seen).toEqual(["x".repeat(40)]);
  });

  it("holds a delayed message for at least its delay", async () => {
    const queue = await fixture.open();
    const name = fixture.queueName();
    const arrivals: Array<{ id: string; at: number }> = [];
    await queue.consume(name, async (_payload, meta) => void arrivals.push({ id: meta.id, at: Date.now() }));
    const sentAt = Date.now();
    await queue.publish(name, {}, { id: "later", delayMs: 600 });
    await queue.publish(name, {}, { id: "now" });
    await waitFor("both messages", () => arrivals.length === 2);
    expect(arrivals.map((a) => a.id)).toEqual(["now", "later"]);
    const waited = arrivals[1].at - sentAt;
    // The delay is a lower bound; how late it arrives on a loaded machine is only bounded by the wait above.
    expect(waited).toBeGreaterThanOrEqual(590);
  });

  it("redelivers a message whose handler threw, with the same id and payload and the next attempt", async () => {
    const queue = await fixture.open();
    const name = fixture.queueName();
    const calls: Array<{ payload: unknown; meta: MessageMeta }> = [];
    await queue.consume(name, async (payload, meta) => {
      calls.push({ payload, meta });
      if (meta.attempt === 1) throw new Error("database briefly unavailable");
    });
    await queue.publish(name, { n: 7 }, { id: "flaky" });
    await waitFor("the retry", () => calls.length === 2);
    await sleep(300);
    expect(calls).toEqual([
      { payload: { n: 7 }, meta: { id: "flaky", attempt: 1 } },
      { payload: { n: 7 }, meta: { id: "flaky", attempt: 2 } },
    ]);
    expect(await fixture.deadIds(name)).toEqual([]);
  });

  it("dead-letters a poison message after the last attempt and stops retrying it", async () => {
    const queue = await fixture.open();
    const name = fixture.queueName();
    const attempts: number[] = [];
    await queue.consume(name, async (_payload, meta) => {
      attempts.push(meta.attempt);
      throw new Error("cannot handle this payload");
    });
    await queue.publish(name, { broken: true }, { id: "poison" });
    await waitFor("the dead letter", async () => attempts.length === TEST_RETRY.maxAttempts && (await fixture.deadIds(name)).length === 1);
    await sleep(400);
    expect(attempts).toEqual([1, 2, 3]);
  });

  it("hands each message to only one of two consumers (two workers) on the same queue", async () => {
    const name = fixture.queueName();
    const handledBy: Array<{ worker: string; id: string }> = [];
    for (const worker of ["a", "b"]) {
      const queue = await fixture.open();
      await queue.consume(
        name,
        async (_payload, meta) => {
          handledBy.push({ worker, id: meta.id });
          await sleep(15);
        },
        { prefetch: 2 },
      );
    }
    const producer = await fixture.open();
    for (let i = 0; i < 30; i++) await producer.publish(name, { i }, { id: `m${i}` });
    await waitFor("all 30 messages", () => handledBy.length >= 30);
    await sleep(300);
    expect(handledBy).toHaveLength(30);
    expect(new Set(handledBy.map((h) => h.id)).size).toBe(30);
    expect(handledBy.some((h) => h.worker === "a")).toBe(true);
    expect(handledBy.some((h) => h.worker === "b")).toBe(true);
  });

  it("runs at most `prefetch` handlers at once", async () => {
    const queue = await fixture.open();
    const name = fixture.queueName();
    const release = gate();
    let active = 0;
    let maxActive = 0;
    let done = 0;
    await queue.consume(
      name,
      async () => {
        active += 1;
        maxActive = Math.max(maxActive, active);
        await release.promise;
        active -= 1;
        done += 1;
      },
      { prefetch: 2 },
    );
    try {
      for (let i = 0; i < 5; i++) await queue.publish(name, { i });
      await waitFor("two running handlers", () => active === 2);
      await sleep(300);
      expect(maxActive).toBe(2);
    } finally {
      release.open();
    }
    await waitFor("all five", () => done === 5);
    expect(maxActive).toBe(2);
  });

  it("closes a consumer only after its running handler finished, then takes no more messages", async () => {
    const queue = await fixture.open();
    const name = fixture.queueName();
    const release = gate();
    const started: string[] = [];
    const finished: string[] = [];
    const consumer = await queue.consume(name, async (_payload, meta) => {
      started.push(meta.id);
      await release.promise;
      finished.push(meta.id);
    });
    let closed = false;
    let closing: Promise<unknown> = Promise.resolve();
    try {
      await queue.publish(name, {}, { id: "running" });
      await waitFor("the handler to start", () => started.length === 1);
      closing = consumer.close().then(() => (closed = true));
      await sleep(100);
      expect(closed).toBe(false);
    } finally {
      release.open();
    }
    await closing;
    expect(finished).toEqual(["running"]);
    await queue.publish(name, {}, { id: "after-close" });
    await sleep(300);
    expect(started).toEqual(["running"]);
  });
});
