import { listWarnings } from "../usecases/club/index.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

/** Warnings for the club's staff (failed webhooks, configuration problems). */
export function warningHandlers({ db }: Services): HandlerSet<"Warnings_list"> {
  return {
    async Warnings_list(req, ctx) {
      return { status: 200, body: await listWarnings(db, scopeOf(ctx), req.query) };
    },
  };
}
