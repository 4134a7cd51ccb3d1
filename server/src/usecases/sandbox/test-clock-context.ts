import { AsyncLocalStorage } from "node:async_hooks";

/*
 * The seam through which a club's test clock reaches everything: work done
 * for a (club, test) scope runs inside `withClockAt(time, work)`, and the
 * process clock (services.clock, see server/src/services.ts) answers that
 * time there instead of real time. A request authenticated for a test
 * environment with a clock runs inside it (server/src/http/auth.ts), and so
 * does every scheduled task that `POST /v1/test_clock/advance` runs, so any
 * use case or task reading `clock.now()` — or given the `now` of a
 * ScheduledTask.runFor — follows the test clock without knowing about it.
 */

const store = new AsyncLocalStorage<Date>();

/** Runs `work` with the process clock reading `time`. */
export function withClockAt<T>(time: Date, work: () => T): T {
  return store.run(new Date(time), work);
}

/** The test clock's time for the work under way; undefined outside one. */
export function clockOverride(): Date | undefined {
  const time = store.getStore();
  return time === undefined ? undefined : new Date(time);
}
