import { AsyncLocalStorage } from "node:async_hooks";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { Scope } from "../scope.js";
import { withHotAutocommit, type Write } from "./index.js";

/*
 * The Idempotency-Key claims of http/idempotency.ts on the driver (db/hot):
 * a keyed POST (a redemption, a claim) claims its key in flight with one
 * statement committing by itself, and marks it done either with another such
 * statement or, where the use case offers it, inside the use case's own
 * transaction (doneWithTransaction): the mark then commits with what the key
 * guards, and costs no round trip of its own.
 */

const CLAIM = `insert into idempotency_keys (club_id, env, key, operation_id, fingerprint, state, locked_until, created_at)
  values (?, ?, ?, ?, ?, 'in_flight', ?, ?) on conflict do nothing returning key`;

/** A key claim's parameters, in the order of the claim statements' columns (here and in redemption-writes.ts). */
export function keyClaimParameters(
  scope: Scope,
  claim: { key: string; operationId: string; fingerprint: string; lockedUntil: Date; createdAt: Date },
): unknown[] {
  return [scope.clubId, scope.env, claim.key, claim.operationId, claim.fingerprint, claim.lockedUntil, claim.createdAt];
}

/** Claims the key in flight; false when a row holds it already (nothing written then). */
export async function insertIdempotencyClaim(
  em: SqlEntityManager,
  scope: Scope,
  claim: { key: string; operationId: string; fingerprint: string; lockedUntil: Date; createdAt: Date },
): Promise<boolean> {
  return withHotAutocommit(em, async (store) => {
    const rows = await store.select<{ key: string }>({ postgresql: CLAIM, sqlite: CLAIM }, keyClaimParameters(scope, claim));
    return rows.length === 1;
  });
}

const DONE = "update idempotency_keys set state = 'done' where club_id = ? and env = ? and key = ?";

/** Marks the key's request done: later repeats run the route again, which answers its stored result. */
export async function markIdempotencyDone(em: SqlEntityManager, scope: Scope, key: string): Promise<void> {
  await withHotAutocommit(em, (store) => store.run({ postgresql: DONE, sqlite: DONE }, [scope.clubId, scope.env, key]));
}

/**
 * How the running request holds its key: claimed before the route ran
 * (`before`), left to the route's transaction and not claimed yet
 * (`deferred`), claimed by the route with its own statement after all
 * (`now`), or inserted by the route's transaction, already done (`transaction`).
 */
export type KeyClaimed = "before" | "deferred" | "now" | "transaction";

/** What a route needs to claim the request's key in its own transaction (http/idempotency.ts provides it). */
export interface DeferredClaim {
  operationId: string;
  fingerprint: string;
  lockedUntil: Date;
  createdAt: Date;
  /** Claims the key by its own statement, as for every keyed route: refuses a key reused or still running. */
  claimNow(): Promise<void>;
  /** The refusal of a key another transaction is claiming at this moment (409 `idempotency_key_in_use`). */
  inUse(): Error;
}

/** A key the running request holds; `done` once a committed transaction of the request marked it. */
interface HeldKey {
  scope: Scope;
  key: string;
  done: boolean;
  claimed: KeyClaimed;
  deferred: DeferredClaim | null;
}
const held = new AsyncLocalStorage<HeldKey>();

/**
 * Runs `run` (the keyed request) holding `key`: claimed already, or, with
 * `deferred`, left to the route (keyClaimForTransaction, claimKeyNow). `done`
 * is true when the request marked the key done in a transaction of its own
 * that committed (doneWithTransaction, or a claim made in the transaction),
 * so the caller need not mark it again; `claimed` says how it was held when
 * `run` returned or threw (`error`).
 */
export async function holdingKey<T>(
  scope: Scope,
  key: string,
  run: () => Promise<T>,
  deferred: DeferredClaim | null = null,
): Promise<({ result: T; done: boolean } | { error: unknown }) & { claimed: KeyClaimed }> {
  const holding: HeldKey = { scope, key, done: false, claimed: deferred ? "deferred" : "before", deferred };
  try {
    const result = await held.run(holding, run);
    return { result, done: holding.done, claimed: holding.claimed };
  } catch (error) {
    return { error, claimed: holding.claimed };
  }
}

function holding(scope: Scope, key: string | null): HeldKey | null {
  const found = held.getStore();
  if (key === null || !found || found.key !== key || found.scope.clubId !== scope.clubId || found.scope.env !== scope.env) return null;
  return found;
}

/**
 * The write marking `key` done within the caller's transaction, when the
 * running request holds that key in flight (holdingKey); null otherwise
 * (no keyed request around, or its key not claimed yet: nothing to mark).
 * Call `committed()` once the transaction committed; until then the holder
 * still marks it itself.
 */
export function doneWithTransaction(scope: Scope, key: string | null): { write: Write; committed(): void } | null {
  const found = holding(scope, key);
  if (!found || (found.claimed !== "before" && found.claimed !== "now")) return null;
  return {
    write: { statement: { postgresql: DONE, sqlite: DONE }, params: [scope.clubId, scope.env, key] },
    committed: () => void (found.done = true),
  };
}

const RELEASE = "delete from idempotency_keys where club_id = ? and env = ? and key = ?";

/**
 * The write releasing `key`, claimed in the caller's transaction for a
 * request that failed there while the transaction commits others' work
 * (payments together, see db/hot/redemption-writes.ts): a request that
 * failed holds no key.
 */
export function keyReleasedWithTransaction(scope: Scope, key: string): Write {
  return { statement: { postgresql: RELEASE, sqlite: RELEASE }, params: [scope.clubId, scope.env, key] };
}

/** The claim of the running request's key a route makes in its transaction (see db/hot/redemption-writes.ts). */
export interface TransactionKeyClaim {
  key: string;
  operationId: string;
  fingerprint: string;
  lockedUntil: Date;
  createdAt: Date;
  /** Once the transaction that inserted the key (done) committed. */
  committed(): void;
  inUse(): Error;
}

/**
 * The running request's key to claim inside the caller's transaction, when
 * the request left it to the route and it is not claimed yet; null
 * otherwise (no key, or claimed already).
 */
export function keyClaimForTransaction(scope: Scope, key: string | null): TransactionKeyClaim | null {
  const found = holding(scope, key);
  if (!found || found.claimed !== "deferred" || !found.deferred) return null;
  const { operationId, fingerprint, lockedUntil, createdAt, inUse } = found.deferred;
  return {
    key: found.key,
    operationId,
    fingerprint,
    lockedUntil,
    createdAt,
    inUse,
    committed: () => {
      found.claimed = "transaction";
      found.done = true;
    },
  };
}

/**
 * Claims the running request's key now, by its own statement, when the
 * request left it to the route and the route cannot claim it in its
 * transaction (or found it taken there): the refusals and replays of every
 * keyed route then apply. Nothing to do otherwise.
 */
export async function claimKeyNow(scope: Scope, key: string | null): Promise<void> {
  const found = holding(scope, key);
  if (!found || found.claimed !== "deferred" || !found.deferred) return;
  await found.deferred.claimNow();
  found.claimed = "now";
}
