import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";
import type { QueryParams, RequestBody } from "../types.js";

export function configResource(api: Client<paths>) {
  return {
    /** The published configuration (may be cached for 60 seconds). */
    get: () => unwrap(api.GET("/v1/config")),
    getDraft: () => unwrap(api.GET("/v1/config/draft")),
    /** Validates and stores the draft; the published configuration is unchanged until `publish`. */
    saveDraft: (config: RequestBody<"ConfigVersions_saveDraft">) => unwrap(api.PUT("/v1/config/draft", { body: config })),
    /** Publishes the latest draft, or the draft `version` given. */
    publish: (input?: RequestBody<"ConfigVersions_publish">) => unwrap(api.POST("/v1/config/publish", { body: input })),
    versions: (query?: QueryParams<"ConfigVersions_list">) => unwrap(api.GET("/v1/config/versions", { params: { query } })),
    /** Replays a period's events through configuration `version` and compares with what was granted; writes nothing. */
    backtest: (version: number, input: RequestBody<"Backtests_run">) =>
      unwrap(api.POST("/v1/config/versions/{version}/backtest", { params: { path: { version } }, body: input })),
    /** A backtest job (large periods): progress, then the result. */
    backtestJob: (id: string) => unwrap(api.GET("/v1/config/backtests/{id}", { params: { path: { id } } })),
  };
}
