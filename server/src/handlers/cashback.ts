import { cashbackProgramView } from "../engine/cashback.js";
import { getCashbackProgram } from "../usecases/cashback/index.js";
import { getKeyInfo } from "../usecases/club/index.js";
import { requirePublishedConfig } from "../usecases/club/index.js";
import type { Services } from "../services.js";
import { keyIdOf, scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

/** The seed lets callers cache the configuration and the cashback program for 60 seconds. */
const CALLER_CACHE = "private, max-age=60";

export function clubHandlers({ db }: Services): HandlerSet<"Config_get" | "Cashback_get" | "Keys_get"> {
  return {
    async Config_get(_req, ctx) {
      const scope = scopeOf(ctx);
      const { config } = await requirePublishedConfig(db, scope);
      return { status: 200, body: { club_id: scope.clubId, env: scope.env, config }, headers: { "Cache-Control": CALLER_CACHE } };
    },
    async Cashback_get(_req, ctx) {
      return { status: 200, body: cashbackProgramView(await getCashbackProgram(db, scopeOf(ctx))), headers: { "Cache-Control": CALLER_CACHE } };
    },
    async Keys_get(_req, ctx) {
      return { status: 200, body: await getKeyInfo(db, scopeOf(ctx), keyIdOf(ctx)) };
    },
  };
}
