import { randomBytes } from "node:crypto";
import type { components } from "../../../../generated/types.js";
import { changing } from "../../cache/changes.js";
import { ClubSecret } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { ApiError } from "../shared/errors.js";

export type TokenSecretRolled = components["schemas"]["TokenSecretRolled"];

/**
 * POST /v1/token_signing_secret/roll: a new participant-token signing secret
 * signs from now on; the current one becomes the previous secret, verifying
 * until the overlap ends. Only one previous secret is kept, so a second roll
 * inside an overlap retires the oldest secret at once.
 */
export async function rollTokenSecret(db: Database, scope: Scope, expireOldAfterSeconds: number, now: Date): Promise<TokenSecretRolled> {
  return changing(db, { what: "secrets", ...scope }, async (em) => {
    const row = await em.findOne(ClubSecret, scope);
    if (!row) {
      throw new ApiError(500, "signing_secret_missing", "This club has no participant-token signing secret for this environment; contact support.");
    }
    const previousExpiresAt = new Date(now.getTime() + expireOldAfterSeconds * 1000);
    row.previousTokenSigningSecret = row.tokenSigningSecret;
    row.previousExpiresAt = previousExpiresAt;
    row.tokenSigningSecret = randomBytes(32).toString("base64url");
    await em.flush();
    return { env: scope.env, rolled_at: now.toISOString(), previous_expires_at: previousExpiresAt.toISOString() };
  });
}
