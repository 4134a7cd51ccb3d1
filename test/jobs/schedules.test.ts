import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { startSchedule, type ScheduledTask } from "../../server/src/jobs/schedules.js";
import { workerTasks } from "../../server/src/usecases/scheduled/index.js";
import type { Database } from "../../server/src/db/orm.js";
import { gate } from "./support/wait.js";

const clock = () => new Date("2026-12-01T03:00:00.000Z");

/** A task that records the `now` of each pass and runs `body`. */
function recordingTask(name: string, intervalMs: number, body: () => Promise<void> = async () => {}): ScheduledTask & { passes: Date[] } {
  const passes: Date[] = [];
  return {
    name,
    intervalMs,
    passes,
    async run(now) {
      passes.push(now);
      await body();
    },
  };
}

describe("the worker's scheduler", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs each task at once and then on its own interval, with the injected clock", async () => {
    const lots = recordingTask("lots", 5 * 60_000);
    const tiers = recordingTask("tiers", 60 * 60_000);
    const schedule = startSchedule([lots, tiers], { now: clock, onError: (error) => expect.unreachable(String(error)) });
    await vi.advanceTimersByTimeAsync(0);
    expect([lots.passes.length, tiers.passes.length]).toEqual([1, 1]);
    await vi.advanceTimersByTimeAsync(5 * 60_000 - 1);
    expect(lots.passes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(lots.passes).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(55 * 60_000);
    expect([lots.passes.length, tiers.passes.length]).toEqual([13, 2]);
    expect(lots.passes.every((now) => now.toISOString() === "2026-12-01T03:00:00.000Z")).toBe(true);
    await schedule.stop();
  });

  it("runs one pass of a task at a time: ticks during a slow pass are skipped", async () => {
    const release = gate();
    let active = 0;
    let mostActive = 0;
    const slow = recordingTask("slow", 1_000, async () => {
      active += 1;
      mostActive = Math.max(mostActive, active);
      await release.promise;
      active -= 1;
    });
    const schedule = startSchedule([slow], { now: clock, onError: (error) => expect.unreachable(String(error)) });
    await vi.advanceTimersByTimeAsync(10_500);
    expect(slow.passes).toHaveLength(1);
    release.open();
    await vi.advanceTimersByTimeAsync(500);
    expect(slow.passes).toHaveLength(2);
    expect(mostActive).toBe(1);
    await schedule.stop();
  });

  it("reports a failed pass, naming the task, and runs the task again at its next tick", async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const flaky: ScheduledTask = {
      name: "currency lot expiry",
      intervalMs: 1_000,
      async run() {
        calls += 1;
        if (calls === 1) throw new Error("connection reset");
      },
    };
    const schedule = startSchedule([flaky], { now: clock, onError: (error) => errors.push(error) });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls).toBe(2);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ message: 'scheduled task "currency lot expiry" failed', cause: { message: "connection reset" } });
    await schedule.stop();
  });

  it("stop() waits for the pass under way and starts no other", async () => {
    const release = gate();
    let finished = false;
    const task = recordingTask("tiers", 1_000, async () => {
      await release.promise;
      finished = true;
    });
    const schedule = startSchedule([task], { now: clock, onError: (error) => expect.unreachable(String(error)) });
    await vi.advanceTimersByTimeAsync(0);
    let stopped = false;
    const stopping = schedule.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(5_000);
    expect(stopped).toBe(false);
    release.open();
    await stopping;
    expect(finished).toBe(true);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(task.passes).toHaveLength(1);
  });
});

describe("the worker's periodic jobs", () => {
  const db = {} as Database;
  const intervals = (tasks: ScheduledTask[]) => Object.fromEntries(tasks.map((task) => [task.name, task.intervalMs / 60_000]));

  it("expire lots and rewards and warn about deliveries every 5 minutes, review tiers, pay cashback and purge hourly, check table statistics every 5 s", () => {
    expect(intervals(workerTasks(db, "https://clube.cassino.example.com"))).toEqual({
      "unconfirmed delivery warnings": 5,
      "currency lot expiry": 5,
      "reward expiry": 5,
      "monthly tier review": 60,
      "event trace retention": 60,
      "relayed outbox retention": 60,
      "automatic cashback": 60,
      "tournament settlement": 1,
      "table statistics and vacuum": 5 / 60,
    });
  });

  it("pay no automatic cashback without the public URL its delivery links need", () => {
    expect(Object.keys(intervals(workerTasks(db, undefined)))).not.toContain("automatic cashback");
  });
});
