import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";
import type { QueryParams, RequestBody } from "../types.js";

export function gamesResource(api: Client<paths>) {
  return {
    /** The game catalog, a page at a time (`starting_after` the last id of the previous page). */
    list: (query?: QueryParams<"Games_list">) => unwrap(api.GET("/v1/games", { params: { query } })),
    /** Upserts catalog records; with `deactivate_missing`, games not sent are deactivated. */
    sync: (input: RequestBody<"Games_sync">) => unwrap(api.POST("/v1/games", { body: input })),
  };
}
