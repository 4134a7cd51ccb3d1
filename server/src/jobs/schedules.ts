/*
 * Periodic work of a worker process (expiring lots, reviewing tiers, paying
 * cashback, warning about stale deliveries). Every worker runs every task:
 * the tasks are written to be safe when several workers run them at once, so
 * no leader has to be elected and a worker that dies takes nothing with it.
 */
import type { Scope } from "../db/scope.js";

export interface ScheduledTask {
  /** Names the task in the errors it reports. */
  name: string;
  intervalMs: number;
  /** One pass; `now` is the worker's clock when the pass starts. */
  run(now: Date): Promise<unknown>;
  /**
   * One pass for a single club and environment at `now`. A task that has it
   * follows test clocks: `POST /v1/test_clock/advance` runs it for the club's
   * test environment at each step (usecases/sandbox/test-clock.ts), inside the
   * clock context, so `clock.now()` there reads the test clock too.
   */
  runFor?(scope: Scope, now: Date): Promise<unknown>;
}

export interface RunningSchedule {
  /** Stops starting passes and resolves when the passes under way have ended. */
  stop(): Promise<void>;
}

export interface ScheduleOptions {
  now: () => Date;
  /** Receives each failed pass, as an Error naming the task with the failure as its `cause`. */
  onError: (error: unknown) => void;
}

/**
 * Runs each task once at once and then every `intervalMs`. A task runs one
 * pass at a time: a tick that comes while its previous pass is still running
 * is skipped, so a slow pass is never piled upon. A failed pass goes to
 * `onError` and the task runs again at its next tick.
 */
export function startSchedule(tasks: readonly ScheduledTask[], options: ScheduleOptions): RunningSchedule {
  const running = new Map<ScheduledTask, Promise<void>>();
  let stopped = false;
  const pass = (task: ScheduledTask) => {
    if (stopped || running.has(task)) return;
    // Started from a resolved promise, so a task that throws before returning its promise is reported like one that rejects.
    const current = Promise.resolve()
      .then(() => task.run(options.now()))
      .then(
        () => undefined,
        (error: unknown) => options.onError(new Error(`scheduled task "${task.name}" failed`, { cause: error })),
      )
      .finally(() => running.delete(task));
    running.set(task, current);
  };
  const timers = tasks.map((task) => setInterval(() => pass(task), task.intervalMs));
  for (const task of tasks) pass(task);
  return {
    async stop() {
      stopped = true;
      for (const timer of timers) clearInterval(timer);
      await Promise.all(running.values());
    },
  };
}
