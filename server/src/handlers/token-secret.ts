import { rollTokenSecret } from "../usecases/club/index.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

/** The secret participant tokens are signed with; it expires in real time, never on a test clock. */
export function tokenSecretHandlers({ db, clock, realClock }: Services): HandlerSet<"TokenSecret_roll"> {
  const now = () => (realClock ?? clock).now();
  return {
    async TokenSecret_roll(req, ctx) {
      return { status: 200, body: await rollTokenSecret(db, scopeOf(ctx), req.body.expire_old_after_seconds ?? 0, now()) };
    },
  };
}
