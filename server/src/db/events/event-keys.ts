import type { HotStore } from "../hot/index.js";
import { byScopedKeys } from "../hot/scoped-reads.js";
import type { Scope } from "../scope.js";

/*
 * Reads of the event path by key, each one index probe per key whatever the
 * statistics (db/hot/scoped-reads.ts): the events stored under idempotency
 * keys, and the participants with a pending referral.
 */

export const STORED_KEYS = byScopedKeys({ table: "events", columns: ["id", "idempotency_key"], key: "idempotency_key" });

/** The ids of the scope's events stored under `keys`, by key. */
export async function storedEventIds(store: HotStore, scope: Scope, keys: string[]): Promise<Map<string, string>> {
  const rows = await store.select<{ id: string; idempotency_key: string }>(STORED_KEYS, [scope.clubId, scope.env, keys]);
  return new Map(rows.map((row) => [row.idempotency_key, row.id]));
}

const ORIGINALS = byScopedKeys({ table: "events", columns: ["id", "idempotency_key", "effects", "participant_id", "type"], key: "idempotency_key" });

/** A stored event a repeat of its key answers with. */
export interface StoredEvent {
  id: string;
  participantId: string;
  type: string;
  /** Its stored effects (the API's, as answered then). */
  effects: unknown[];
}

/** The scope's stored events under `keys` (the originals a repeat answers with), by key. */
export async function storedEventsByKey(store: HotStore, scope: Scope, keys: string[]): Promise<Map<string, StoredEvent>> {
  const rows = await store.select<{ id: string; idempotency_key: string; effects: unknown[] | string; participant_id: string; type: string }>(ORIGINALS, [
    scope.clubId,
    scope.env,
    keys,
  ]);
  // SQLite hands JSON columns back as text.
  return new Map(
    rows.map((row) => [
      row.idempotency_key,
      {
        id: row.id,
        participantId: row.participant_id,
        type: row.type,
        effects: typeof row.effects === "string" ? JSON.parse(row.effects) : row.effects,
      },
    ]),
  );
}

/** The pending referrals of referred participants (ids), one index probe each. */
export const PENDING_REFERRALS = byScopedKeys({ table: "referrals", columns: ["referred_id"], key: "referred_id", where: "status = 'pending'" });

/** Which of the participants `ids` have a pending referral (as referred). */
export async function withPendingReferral(store: HotStore, scope: Scope, ids: string[]): Promise<string[]> {
  const rows = await store.select<{ referred_id: string }>(PENDING_REFERRALS, [scope.clubId, scope.env, ids]);
  return rows.map((row) => row.referred_id);
}
