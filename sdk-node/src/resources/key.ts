import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";

export function keyResource(api: Client<paths>) {
  return {
    /** Which club and environment the configured key belongs to. */
    get: () => unwrap(api.GET("/v1/key")),
  };
}
