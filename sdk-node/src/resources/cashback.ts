import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";
import type { RequestBody } from "../types.js";

export function cashbackResource(api: Client<paths>) {
  return {
    /** The cashback program (may be cached for 60 seconds). */
    get: () => unwrap(api.GET("/v1/cashback")),
    /** Changes the program; takes effect at once, without publishing. */
    update: (input: RequestBody<"CashbackSettings_update">) => unwrap(api.PUT("/v1/cashback", { body: input })),
  };
}
