import { listFairSpins } from "../usecases/wheel/index.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

/** The provably fair wheel's audit, for operators and regulators (secret key). */
export function wheelAuditHandlers({ db }: Services): HandlerSet<"WheelAudit_list"> {
  return {
    async WheelAudit_list(req, ctx) {
      return { status: 200, body: await listFairSpins(db, scopeOf(ctx), req.path.external_id, req.query) };
    },
  };
}
