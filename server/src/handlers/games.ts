import { listGames, syncGames } from "../usecases/club/index.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

/** The game catalog that game filters refer to. */
export function gameHandlers({ db, clock }: Services): HandlerSet<"Games_list" | "Games_sync"> {
  return {
    async Games_list(req, ctx) {
      return { status: 200, body: await listGames(db, scopeOf(ctx), req.query) };
    },
    async Games_sync(req, ctx) {
      return { status: 200, body: await syncGames(db, scopeOf(ctx), req.body, clock.now()) };
    },
  };
}
