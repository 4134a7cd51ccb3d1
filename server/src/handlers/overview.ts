import { clubOverview } from "../usecases/club/index.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

/** The console's overview of the last 24 hours. */
export function overviewHandlers({ db, clock }: Services): HandlerSet<"Overview_get"> {
  return {
    async Overview_get(_req, ctx) {
      return { status: 200, body: await clubOverview(db, scopeOf(ctx), clock.now()) };
    },
  };
}
