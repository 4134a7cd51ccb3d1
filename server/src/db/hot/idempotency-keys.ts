import type { SqlEntityManager } from "@mikro-orm/knex";
import type { Scope } from "../scope.js";
import { withHotAutocommit } from "./index.js";

/*
 * The Idempotency-Key claims of http/idempotency.ts on the driver (db/hot):
 * two of them wrap every keyed POST (a redemption, a claim), each one
 * statement committing by itself.
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
    const rows = await store.select<{ key: string }>(
      { postgresql: CLAIM, sqlite: CLAIM },
      [scope.clubId, scope.env, claim.key, claim.operationId, claim.fingerprint, claim.lockedUntil, claim.createdAt],
    );
    return rows.length === 1;
  });
}

const DONE = "update idempotency_keys set state = 'done' where club_id = ? and env = ? and key = ?";

/** Marks the key's request done: later repeats run the route again, which answers its stored result. */
export async function markIdempotencyDone(em: SqlEntityManager, scope: Scope, key: string): Promise<void> {
  await withHotAutocommit(em, (store) => store.run({ postgresql: DONE, sqlite: DONE }, [scope.clubId, scope.env, key]));
}
