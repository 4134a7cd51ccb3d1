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

/** Claims the key in flight; false when a row holds it already (nothing written then). */
export async function insertIdempotencyClaim(
  em: SqlEntityManager,
  scope: Scope,
  claim: { key: string; operationId: string; fingerprint: string; lockedUntil: Date; createdAt: Date },
): Promise<boolean> {
  return withHotAutocommit(em, async (store) => {
    const rows = await store.select<{ key: string }>({ postgresql: CLAIM, sqlite: CLAIM }, [
      scope.clubId,
      scope.env,
      claim.key,
      claim.operationId,
      claim.fingerprint,
      claim.lockedUntil,
      claim.createdAt,
    ]);
    return rows.length === 1;
  });
}

const DONE = "update idempotency_keys set state = 'done' where club_id = ? and env = ? and key = ?";

/** Marks the key's request done: later repeats run the route again, which answers its stored result. */
export async function markIdempotencyDone(em: SqlEntityManager, scope: Scope, key: string): Promise<void> {
  await withHotAutocommit(em, (store) => store.run({ postgresql: DONE, sqlite: DONE }, [scope.clubId, scope.env, key]));
}

/** A key the running request holds in flight; `done` once a committed transaction of the request marked it. */
interface HeldKey {
  scope: Scope;
  key: string;
  done: boolean;
}
const held = new AsyncLocalStorage<HeldKey>();

/**
 * Runs `run` (the keyed request) holding `key`; true in `done` when the
 * request marked the key done in a transaction of its own that committed
 * (doneWithTransaction), so the caller need not mark it again.
 */
export async function holdingKey<T>(scope: Scope, key: string, run: () => Promise<T>): Promise<{ result: T; done: boolean }> {
  const holding: HeldKey = { scope, key, done: false };
  const result = await held.run(holding, run);
  return { result, done: holding.done };
}

/**
 * The write marking `key` done within the caller's transaction, when the
 * running request holds that key in flight (holdingKey); null otherwise
 * (no keyed request around: nothing to mark). Call `committed()` once the
 * transaction committed; until then the holder still marks it itself.
 */
export function doneWithTransaction(scope: Scope, key: string | null): { write: Write; committed(): void } | null {
  const holding = held.getStore();
  if (key === null || !holding || holding.key !== key || holding.scope.clubId !== scope.clubId || holding.scope.env !== scope.env) return null;
  return {
    write: { statement: { postgresql: DONE, sqlite: DONE }, params: [scope.clubId, scope.env, key] },
    committed: () => void (holding.done = true),
  };
}
