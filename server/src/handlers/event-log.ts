import { getLoggedEvent } from "../usecases/events/index.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

/** The event log's single-event read (the console's event debugger). */
export function eventLogHandlers({ db, clock }: Services): HandlerSet<"EventLog_get"> {
  return {
    async EventLog_get(req, ctx) {
      return { status: 200, body: await getLoggedEvent(db, scopeOf(ctx), req.path.id, clock.now()) };
    },
  };
}
