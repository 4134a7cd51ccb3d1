import { testClockTasks } from "../usecases/scheduled/index.js";
import { advanceTestClock, deleteTestClock, getTestClock } from "../usecases/sandbox/index.js";
import { systemClock, type Services } from "../services.js";
import { afterCommitOf, scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

/**
 * Test clocks. "Real now" is the process clock outside any test clock
 * (a request for a clocked test environment reads the test clock through
 * `clock`, so real time comes from the base clock the tests may control).
 */
export function testClockHandlers(services: Services): HandlerSet<"TestClocks_get" | "TestClocks_advance" | "TestClocks_delete"> {
  const { db, settings } = services;
  const realNow = () => (services.realClock ?? systemClock).now();
  return {
    async TestClocks_get(_req, ctx) {
      return { status: 200, body: await getTestClock(db, scopeOf(ctx), realNow()) };
    },
    async TestClocks_advance(req, ctx) {
      const result = await advanceTestClock(db, scopeOf(ctx), new Date(req.body.to), testClockTasks(db, settings.publicUrl), realNow());
      afterCommitOf(ctx, services)("outbox");
      return { status: 200, body: result };
    },
    async TestClocks_delete(_req, ctx) {
      return { status: 200, body: await deleteTestClock(db, scopeOf(ctx), realNow()) };
    },
  };
}
