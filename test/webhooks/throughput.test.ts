import { expect, it } from "vitest";
import { EndpointLanes, SuccessLog, TickBatch, type Success } from "../../server/src/webhooks/throughput.js";
import { gate } from "../jobs/support/wait.js";

it("runs at most the limit of tasks per endpoint, the rest in arrival order, other endpoints unaffected", async () => {
  const lanes = new EndpointLanes(2);
  const hold = gate();
  let running = 0;
  let peak = 0;
  const started: string[] = [];
  const task = (name: string) => async () => {
    started.push(name);
    peak = Math.max(peak, ++running);
    await hold.promise;
    running -= 1;
    return name;
  };
  const results = Promise.all(["a1", "a2", "a3", "a4"].map((name) => lanes.run("a", task(name))));
  const other = lanes.run("b", async () => "b1");
  expect(await other).toBe("b1");
  expect(started).toEqual(["a1", "a2"]);
  hold.open();
  expect(await results).toEqual(["a1", "a2", "a3", "a4"]);
  expect(started).toEqual(["a1", "a2", "a3", "a4"]);
  expect(peak).toBe(2);
  // A failing task frees its slot too.
  await expect(lanes.run("a", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
  expect(await lanes.run("a", async () => "after")).toBe("after");
});

it("writes the successes of one turn of the event loop together, and reports a failed write to each of them", async () => {
  const flushed: Success[][] = [];
  let fail = false;
  const log = new SuccessLog(async (batch) => {
    if (fail) throw new Error("database down");
    flushed.push([...batch]);
  });
  const one = (id: string): Success => ({ id, attempts: 0, statusCode: 200, startedAt: new Date(0), durationMs: 1 });
  await Promise.all([log.add(one("whd_1")), log.add(one("whd_2")), log.add(one("whd_3"))]);
  await log.add(one("whd_4"));
  expect(flushed.map((batch) => batch.map((s) => s.id))).toEqual([["whd_1", "whd_2", "whd_3"], ["whd_4"]]);
  fail = true;
  const failed = await Promise.allSettled([log.add(one("whd_5")), log.add(one("whd_6"))]);
  expect(failed.map((outcome) => outcome.status)).toEqual(["rejected", "rejected"]);
});

it("runs one flush at a time: what arrives meanwhile goes together into the next, each caller gets its own result", async () => {
  const flushed: number[][] = [];
  let release!: () => void;
  const firstHeld = new Promise<void>((resolve) => (release = resolve));
  const batch = new TickBatch<number, string>(async (items) => {
    flushed.push([...items]);
    if (flushed.length === 1) await firstHeld;
    return items.map((item) => `r${item}`);
  });
  const first = batch.add(1);
  await new Promise((resolve) => setImmediate(resolve));
  // The first flush is running: these wait for it, then go in one flush.
  const later = [batch.add(2), batch.add(3), batch.add(4)];
  await new Promise((resolve) => setImmediate(resolve));
  expect(flushed).toEqual([[1]]);
  release();
  expect(await Promise.all([first, ...later])).toEqual(["r1", "r2", "r3", "r4"]);
  expect(flushed).toEqual([[1], [2, 3, 4]]);
});
