import { getLoggedEvent, ingestEvent, listEventLog } from "../usecases/events/index.js";
import type { Services } from "../services.js";
import { scopeOf, useCaseContext } from "./context.js";
import type { HandlerSet } from "./types.js";

/** The console's event log: the events received, one event with its effects and trace, and test events sent from it. */
export function eventLogHandlers(services: Services): HandlerSet<"EventLog_list" | "EventLog_sendTest" | "EventLog_get"> {
  const { db, clock, settings } = services;
  return {
    async EventLog_list(req, ctx) {
      return { status: 200, body: await listEventLog(db, scopeOf(ctx), req.query, clock.now()) };
    },
    async EventLog_sendTest(req, ctx) {
      // A test event is a real event marked `meta.test`, so the console shows exactly what the rules do with it.
      const event = { ...req.body, meta: { ...req.body.meta, test: true } };
      const { scope, now, afterCommit } = useCaseContext(ctx, services);
      const result = await ingestEvent(db, scope, event, { now, publicUrl: settings.publicUrl, trace: true, afterCommit });
      return { status: 200, body: result };
    },
    async EventLog_get(req, ctx) {
      return { status: 200, body: await getLoggedEvent(db, scopeOf(ctx), req.path.id, clock.now()) };
    },
  };
}
