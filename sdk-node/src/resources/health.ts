import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";

export function healthResource(api: Client<paths>) {
  return {
    /** Liveness and dependency checks (needs no key). */
    get: () => unwrap(api.GET("/v1/health")),
  };
}
