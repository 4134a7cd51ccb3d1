import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";
import type { QueryParams } from "../types.js";

export function warningsResource(api: Client<paths>) {
  return {
    /** Warnings for club staff: deliveries unconfirmed after 48 hours, failed deliveries and webhooks. */
    list: (query?: QueryParams<"Warnings_list">) => unwrap(api.GET("/v1/warnings", { params: { query } })),
  };
}
