import { cashbackProgramView } from "../engine/cashback.js";
import { getCashbackProgram, updateCashbackProgram } from "../usecases/cashback/index.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
import { CALLER_CACHE } from "./config.js";
import type { HandlerSet } from "./types.js";

/** The cashback program: read by the client's server, changed by the club's staff. */
export function cashbackHandlers({ db, clock }: Services): HandlerSet<"Cashback_get" | "CashbackSettings_update"> {
  return {
    async Cashback_get(_req, ctx) {
      return { status: 200, body: cashbackProgramView(await getCashbackProgram(db, scopeOf(ctx))), headers: { "Cache-Control": CALLER_CACHE } };
    },
    async CashbackSettings_update(req, ctx) {
      return { status: 200, body: await updateCashbackProgram(db, scopeOf(ctx), req.body, clock.now()) };
    },
  };
}
