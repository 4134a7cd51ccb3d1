import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";
import type { ReferralRegistration } from "../types.js";

export function referralsResource(api: Client<paths>) {
  return {
    /** Registers a new user who signed up with a referral code (`?ref=`). */
    register: (input: ReferralRegistration) => unwrap(api.POST("/v1/referrals", { body: input })),
  };
}
