import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";
import type { RequestBody } from "../types.js";

export function referralsResource(api: Client<paths>) {
  return {
    /** Registers a new user who signed up with a referral code (`?ref=`). */
    register: (input: RequestBody<"Referrals_register">) => unwrap(api.POST("/v1/referrals", { body: input })),
  };
}
