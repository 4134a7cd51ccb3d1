import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";
import type { QueryParams } from "../types.js";

export function tournamentsResource(api: Client<paths>) {
  return {
    /** Every enabled tournament and official track with its current and previous editions. */
    list: () => unwrap(api.GET("/v1/tournaments")),
    /** An edition's standings by rank: `limit` rows after `after_rank`. */
    standings: (tournamentId: string, editionId: string, query?: QueryParams<"Tournaments_standings">) =>
      unwrap(
        api.GET("/v1/tournaments/{tournament_id}/editions/{edition_id}/standings", {
          params: { path: { tournament_id: tournamentId, edition_id: editionId }, query },
        }),
      ),
  };
}
