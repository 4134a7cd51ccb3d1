import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";

export function healthResource(api: Client<paths>) {
  return {
    /** Liveness and dependency checks. The route is public, so the secret key is not sent (`null` removes the client's default header). */
    get: () => unwrap(api.GET("/v1/health", { headers: { Authorization: null } })),
  };
}
