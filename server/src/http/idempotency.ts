import { createHash } from "node:crypto";
import { stringify } from "safe-stable-stringify";
import { IdempotencyKey } from "../db/entities/index.js";
import { holdingKey, insertIdempotencyClaim, markIdempotencyDone, type DeferredClaim } from "../db/hot/idempotency-keys.js";
import type { Database } from "../db/orm.js";
import type { Scope } from "../db/scope.js";
import { ApiError } from "../usecases/shared/errors.js";

/** How long an in-flight claim holds its key before a retry may take over (a process died mid-request). */
const IN_FLIGHT_LEASE_MS = 60_000;

export interface IdempotentRequest {
  scope: Scope;
  key: string;
  operationId: string;
  /** Everything that makes the request what it is: path, query, validated body, the calling participant. */
  request: unknown;
  /** The refusal of a reused key, when the route documents its own (an event whose key is its `id`); `idempotency_key_reused` otherwise. */
  reused?: () => ApiError;
}

/**
 * Stripe's `Idempotency-Key` semantics in front of a route's own replay.
 *
 * The key is bound to the request's fingerprint (SHA-256 of the operation and
 * the canonical JSON of path, query, validated body and calling participant)
 * the first time it is used:
 * - the same key with another fingerprint → 409 `idempotency_key_reused`
 *   naming the key; the first result is never shown to the second request;
 * - the same key while the first request is still running → 409
 *   `idempotency_key_in_use` (no waiting: the client retries, and the retry
 *   then replays the first result);
 * - the same key and fingerprint once the first succeeded → the route runs
 *   and answers its stored result (`duplicate: true`), as before.
 * A request that fails (any error or non-2xx answer) applied nothing, so its
 * claim is dropped and the key may be used again. Keys are kept (never
 * purged), so the 24 h minimum holds.
 */
export async function withIdempotencyKey<T extends { status: number }>(
  db: Database,
  now: () => Date,
  req: IdempotentRequest,
  run: () => Promise<T>,
): Promise<T> {
  const fingerprint = createHash("sha256")
    .update(stringify({ operation: req.operationId, request: req.request }) ?? "")
    .digest("hex");
  const id = { ...req.scope, key: req.key };
  const at = now();
  // Routes that claim the key in their own transaction get the claim to make instead (see CLAIMED_BY_ROUTE).
  const deferred: DeferredClaim | null = CLAIMED_BY_ROUTE.has(req.operationId)
    ? {
        operationId: req.operationId,
        fingerprint,
        lockedUntil: new Date(at.getTime() + IN_FLIGHT_LEASE_MS),
        createdAt: at,
        claimNow: () => claim(db, at, req, fingerprint),
        inUse: () => keyInUse(req.key),
      }
    : null;
  if (!deferred) await claim(db, at, req, fingerprint);
  const ran = await holdingKey(req.scope, req.key, run, deferred);
  // A key claimed in the route's transaction was inserted done, or rolled back with it; a deferred claim never made holds nothing.
  const heldInFlight = ran.claimed === "before" || ran.claimed === "now";
  if ("error" in ran) {
    if (heldInFlight) await db.em().nativeDelete(IdempotencyKey, { ...id, state: "in_flight" });
    throw ran.error;
  }
  const { result, done } = ran;
  if (result.status >= 200 && result.status < 300) {
    // A route may have marked it in its own transaction already (a redemption), with what the key guards.
    if (heldInFlight && !done) await markIdempotencyDone(db.orm.em, req.scope, req.key);
  } else if (heldInFlight) {
    await db.em().nativeDelete(IdempotencyKey, { ...id, state: "in_flight" });
  }
  return result;
}

/**
 * Operations whose use case claims the key inside its own transaction
 * (db/hot/idempotency-keys.ts keyClaimForTransaction): the key row is
 * inserted already done and commits with what it guards, instead of an
 * in-flight claim, a transaction and a mark. A request with the same key
 * whose transaction is still open is refused 409 `idempotency_key_in_use`
 * as before; every other case (a key reused, done, or left in flight by
 * another route) goes through claim() below, which the use case calls then.
 */
const CLAIMED_BY_ROUTE: ReadonlySet<string> = new Set(["Redemptions_create", "Me_redeemStoreItem"]);

function keyInUse(key: string): ApiError {
  return new ApiError(409, "idempotency_key_in_use", `A request with Idempotency-Key '${key}' is still being processed; retry shortly.`);
}

async function claim(db: Database, at: Date, req: IdempotentRequest, fingerprint: string): Promise<void> {
  const id = { ...req.scope, key: req.key };
  const lockedUntil = new Date(at.getTime() + IN_FLIGHT_LEASE_MS);
  // The root EntityManager: the claim needs only its driver (no fork per request).
  if (await insertIdempotencyClaim(db.orm.em, req.scope, { key: req.key, operationId: req.operationId, fingerprint, lockedUntil, createdAt: at })) return;
  const seen = await db.em().fork().findOne(IdempotencyKey, id, { disableIdentityMap: true });
  if (!seen) return claim(db, at, req, fingerprint); // dropped meanwhile by a failed first request
  if (seen.fingerprint !== fingerprint) {
    if (req.reused) throw req.reused();
    throw new ApiError(
      409,
      "idempotency_key_reused",
      `Idempotency-Key '${req.key}' was already used for a different request (another operation, body or participant); use a new key.`,
    );
  }
  if (seen.state === "done") return;
  // In flight: refused unless its lease ran out (the first process died), then taken over.
  const taken = await db.em().nativeUpdate(IdempotencyKey, { ...id, state: "in_flight", lockedUntil: { $lt: at } }, { lockedUntil });
  if (taken !== 1) throw keyInUse(req.key);
}
