import type { Services } from "../services.js";
import { listStandings, listTournaments } from "../usecases/tournaments/index.js";
import { scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

/** Tournaments and paged edition standings for the club's own UI (secret key). */
export function tournamentHandlers({ db, clock }: Services): HandlerSet<"Tournaments_list" | "Tournaments_standings"> {
  return {
    async Tournaments_list(_req, ctx) {
      return { status: 200, body: await listTournaments(db, scopeOf(ctx), clock.now()) };
    },
    async Tournaments_standings(req, ctx) {
      const { tournament_id, edition_id } = req.path;
      return {
        status: 200,
        body: await listStandings(db, scopeOf(ctx), tournament_id, edition_id, { limit: req.query.limit, afterRank: req.query.after_rank, now: clock.now() }),
      };
    },
  };
}
