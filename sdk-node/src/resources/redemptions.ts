import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";
import { idempotencyKey } from "../idempotency.js";
import type { RequestBody } from "../types.js";

export function redemptionsResource(api: Client<paths>) {
  return {
    /** Spends the participant's currency on a priced reward; a repeated key answers the stored result with `duplicate: true`. */
    create: (input: RequestBody<"Redemptions_create">, options: { idempotencyKey?: string } = {}) =>
      unwrap(api.POST("/v1/redemptions", { body: input, params: { header: { "Idempotency-Key": idempotencyKey(options.idempotencyKey) } } })),
  };
}
