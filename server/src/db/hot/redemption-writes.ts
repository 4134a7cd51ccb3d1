import type { Scope } from "../scope.js";
import { lockingByExternalId } from "../participants/locks.js";
import { takeSqliteWriteLock } from "../write-lock.js";
import { keyClaimParameters } from "./idempotency-keys.js";
import type { HotStore } from "./index.js";
import { viewedParticipant, type ViewedParticipantRow } from "./participant-reads.js";

/*
 * A redemption's payment on the driver (db/hot), inside the redemption's
 * transaction: the participant's lock, the idempotency lookup and the
 * conditional debit in one statement on PostgreSQL, so the balance check and
 * the debit are one step (no read-then-write race) and nothing waits on a
 * lock across another round trip before it. The lock on the participant row
 * is taken first, as the event path takes it before its balance upserts, so
 * the two never wait on each other in opposite orders. Several redemptions
 * paid in one transaction (payRedemptionsTogether) lock their participants
 * in id order first, as the event path locks a group's.
 */

export interface RedemptionPayment {
  /** The participant's columns as locked (the latest committed version). */
  participant: ViewedParticipantRow;
  /** The result stored under the idempotency key (nothing was debited then). */
  stored: Record<string, unknown> | null;
  /** The balance of the currency after the debit; null when it was short (nothing debited). */
  balanceAfter: number | null;
  /**
   * The participant's balance of the paid currency (minor units; 0 without
   * one) as read by the statement, before the debit. On PostgreSQL a snapshot
   * taken before the lock was granted: exact unless the statement waited for
   * a transaction that moved it (balanceAfter is exact). The other
   * currencies' balances are not read: a reward that moves one rereads them
   * (readBalances).
   */
  balance: number;
  /**
   * The `events` list of each enabled endpoint of the scope, read by the same
   * statement: the outbox rows of the redemption no endpoint takes need not be
   * written (the relay would drop them unsent).
   */
  endpointEvents: string[][];
}

/** The request's Idempotency-Key, claimed by the payment's statement (see payPostgresql). */
export interface PaymentKeyClaim {
  key: string;
  operationId: string;
  fingerprint: string;
  lockedUntil: Date;
  createdAt: Date;
}

/**
 * Why a claiming payment paid nothing: another transaction is claiming the
 * key right now (`in_use`), or a row holds it already (`taken`: reused,
 * done or in flight; the caller's own claim statement sorts it out).
 */
export type ClaimRefused = { refused: "in_use" | "taken" };

/** The enabled endpoints' subscriptions of the scope (its first two parameters), as a JSON array of `events` arrays. */
const ENDPOINTS = {
  postgresql:
    "(select coalesce(json_agg(e.events), '[]'::json) from webhook_endpoints as e where e.club_id = ? and e.env = ? and e.enabled and e.deleted_at is null)",
  sqlite: "(select json_group_array(json(e.events)) from webhook_endpoints as e where e.club_id = ?1 and e.env = ?2 and e.enabled and e.deleted_at is null)",
};

const PARTICIPANT =
  "id, external_id, display_name, avatar_url, email, phone, xp, level, tier_code, tags, event_counts, flags, peak_month, peak_level, prior_month_peak_level, updated_at";

/**
 * The payment's statement; with `claim`, it first claims the request's
 * Idempotency-Key (inserted done: it commits with the redemption or not at
 * all), and debits only if it did. A transaction-scoped advisory lock on the
 * key, tried without waiting, tells a concurrent request with the same key
 * (whose uncommitted row an insert would wait for) to answer 409 at once.
 * The debit and the touch find their rows by the locked participant's id as
 * a value (a subquery), not by a join whose order the planner would choose.
 * The key is claimed only for a participant that exists (a payment of
 * several in one transaction leaves no claim for a request that failed).
 * Parameters: [claim: club, env, key;] club, env, external id; [claim: club,
 * env, key, operation, fingerprint, locked until, created at;] club, env,
 * key; amount, now, currency, amount; now; currency; club, env.
 */
function payPostgresql(claim: boolean): string {
  const locked = claim ? "lk as (select pg_try_advisory_xact_lock(hashtextextended(?::text || ':' || ?::text || ':' || ?::text, 0)) as got),\n  " : "";
  const claimed = claim
    ? `
  k as (insert into idempotency_keys (club_id, env, key, operation_id, fingerprint, state, locked_until, created_at)
    select ?, ?, ?, ?, ?, 'done', ?, ? from lk where lk.got and exists (select 1 from p) on conflict do nothing returning key),`
    : "";
  return `with ${locked}p as (select ${PARTICIPANT} from participants where club_id = ? and env = ? and external_id = ? for update),${claimed}
  s as (select result from redemptions where club_id = ? and env = ? and idempotency_key = ?),
  d as (update balances as b set amount = b.amount - ?::int8, updated_at = ?
    where b.participant_id = (select id from p) and b.currency = ? and b.amount >= ?::int8 and not exists (select 1 from s)${claim ? " and exists (select 1 from k)" : ""} returning b.amount, b.participant_id),
  t as (update participants as q set updated_at = ? where q.id = (select participant_id from d))
  select p.*, (select result from s) as stored, (select amount from d) as balance_after,
    (select b.amount from balances as b where b.participant_id = p.id and b.currency = ?) as balance,
    ${ENDPOINTS.postgresql} as endpoints${claim ? ", (select got from lk) as key_lock, exists (select 1 from k) as key_claimed" : ""}
  from p`;
}
const PAY_POSTGRESQL = payPostgresql(false);
const PAY_CLAIMING_POSTGRESQL = payPostgresql(true);
/** The payment's two PostgreSQL statements, for the plan tests. */
export const PAY_STATEMENTS = { paying: PAY_POSTGRESQL, claiming: PAY_CLAIMING_POSTGRESQL };

/** SQLite's claim, first in the transaction (which holds the write lock: no other claim can be open). */
const CLAIM_SQLITE = `insert into idempotency_keys (club_id, env, key, operation_id, fingerprint, state, locked_until, created_at)
  values (?, ?, ?, ?, ?, 'done', ?, ?) on conflict do nothing returning key`;

/** SQLite: the participant, the stored result and the paid currency's balance, read once the write lock is held. */
const READ_SQLITE = `select ${PARTICIPANT},
    (select result from redemptions where club_id = ?1 and env = ?2 and idempotency_key = ?4) as stored,
    (select b.amount from balances as b where b.participant_id = participants.id and b.currency = ?5) as balance,
    ${ENDPOINTS.sqlite} as endpoints
  from participants where club_id = ?1 and env = ?2 and external_id = ?3`;

const DEBIT_SQLITE = "update balances set amount = amount - ?1, updated_at = ?2 where participant_id = ?3 and currency = ?4 and amount >= ?1 returning amount";
const TOUCH_SQLITE = "update participants set updated_at = ?2 where id = ?1";

type Row = Parameters<typeof viewedParticipant>[0] & {
  stored: Record<string, unknown> | string | null;
  balance_after?: number | string | null;
  balance: number | string | null;
  endpoints: string[][] | string;
  key_lock?: boolean;
  key_claimed?: boolean;
};

function json<T>(value: T | string): T {
  return typeof value === "string" ? (JSON.parse(value) as T) : value;
}

function balancesOf(rows: [string, number | string][]): Record<string, number> {
  const balances: Record<string, number> = {};
  for (const [currency, amount] of rows) balances[currency] = Number(amount);
  return balances;
}

/** One redemption's payment: `amount` minor units of `currency` from the participant with `externalId`. */
export interface Payment {
  externalId: string;
  currency: string;
  amount: number;
  idempotencyKey: string | null;
  now: Date;
  claim?: PaymentKeyClaim | null;
}

/** The parameters of the payment's PostgreSQL statement (see payPostgresql). */
function paymentParameters(scope: Scope, pay: Payment): unknown[] {
  const { claim } = pay;
  const lock = claim ? [scope.clubId, scope.env, claim.key] : [];
  const claimed = claim ? [scope.clubId, scope.env, claim.key, claim.operationId, claim.fingerprint, claim.lockedUntil, claim.createdAt] : [];
  return [
    ...lock,
    scope.clubId,
    scope.env,
    pay.externalId,
    ...claimed,
    scope.clubId,
    scope.env,
    pay.idempotencyKey,
    pay.amount,
    pay.now,
    pay.currency,
    pay.amount,
    pay.now,
    pay.currency,
    scope.clubId,
    scope.env,
  ];
}

/** The payment as the PostgreSQL statement's row tells it; null when no such participant. */
function paymentOf(row: Row | undefined, claim: PaymentKeyClaim | null): RedemptionPayment | ClaimRefused | null {
  if (!row) return null;
  if (claim !== null && !row.key_claimed) return { refused: row.key_lock ? "taken" : "in_use" };
  const after = row.balance_after ?? null;
  return {
    participant: viewedParticipant(row),
    stored: json(row.stored),
    balanceAfter: after === null ? null : Number(after),
    balance: Number(row.balance ?? 0),
    endpointEvents: json(row.endpoints),
  };
}

/** The participants of several payments, locked in id order, as every transaction locking several takes them. */
const LOCK_IN_ID_ORDER = lockingByExternalId("id");

/**
 * Whether the database pays several redemptions in one transaction
 * (payRedemptionsTogether): PostgreSQL. SQLite writes one transaction at a
 * time anyway, in-process, so gathering them would save it no round trip.
 */
export function paysTogether(db: { dialect: "postgresql" | "sqlite" }): boolean {
  return db.dialect === "postgresql";
}

/**
 * PostgreSQL, in a driver transaction: the payments of several redemptions,
 * of distinct participants, in one round trip. Their participants are
 * locked first, in id order, then each payment's statement runs as
 * payRedemption runs it (so each sees the ones before it); each payment's
 * outcome, in order. All claim their keys, or none does.
 */
export async function payRedemptionsTogether(store: HotStore, scope: Scope, pays: readonly Payment[]): Promise<(RedemptionPayment | ClaimRefused | null)[]> {
  if (!store.selectInOrder) throw new Error("payments together need a PostgreSQL driver transaction");
  const claiming = pays[0].claim != null;
  if (pays.some((pay) => (pay.claim != null) !== claiming)) throw new Error("payments together all claim their keys, or none does");
  const externalIds = pays.map((pay) => pay.externalId);
  const sql = claiming ? PAY_CLAIMING_POSTGRESQL : PAY_POSTGRESQL;
  const results = await store.selectInOrder([
    { sql: LOCK_IN_ID_ORDER, params: [scope.clubId, scope.env, externalIds, externalIds] },
    ...pays.map((pay) => ({ sql, params: paymentParameters(scope, pay), prepared: true })),
  ]);
  return pays.map((pay, i) => paymentOf(results[i + 1][0] as Row | undefined, pay.claim ?? null));
}

/**
 * Locks the participant with `externalId` for the rest of the transaction
 * and takes `amount` minor units of `currency` from its balance if the
 * balance holds them and no redemption is stored under `idempotencyKey`;
 * null when no such participant. For currencies without lots (that never
 * expire): the balance alone says what can be spent.
 */
export async function payRedemption(store: HotStore, scope: Scope, pay: Payment): Promise<RedemptionPayment | ClaimRefused | null> {
  const claim = pay.claim ?? null;
  if (store.dialect === "postgresql") {
    const [row] = await store.select<Row>({ postgresql: claim === null ? PAY_POSTGRESQL : PAY_CLAIMING_POSTGRESQL, sqlite: "" }, paymentParameters(scope, pay));
    return paymentOf(row, claim);
  }
  // The write lock first, waited for under busy_timeout (see db/write-lock.ts).
  await takeSqliteWriteLock(store);
  if (claim !== null) {
    const claimed = await store.select<{ key: string }>({ postgresql: "", sqlite: CLAIM_SQLITE }, keyClaimParameters(scope, claim));
    if (claimed.length === 0) return { refused: "taken" };
  }
  const [row] = await store.select<Row>({ postgresql: "", sqlite: READ_SQLITE }, [scope.clubId, scope.env, pay.externalId, pay.idempotencyKey, pay.currency]);
  if (!row) return null;
  const participant = viewedParticipant(row);
  const balance = Number(row.balance ?? 0);
  const stored = row.stored === null ? null : json(row.stored);
  const endpointEvents = json(row.endpoints);
  if (stored !== null) return { participant, stored, balanceAfter: null, balance, endpointEvents };
  const [debited] = await store.select<{ amount: number }>({ postgresql: "", sqlite: DEBIT_SQLITE }, [
    pay.amount,
    pay.now.getTime(),
    participant.id,
    pay.currency,
  ]);
  if (debited !== undefined) await store.run({ postgresql: "", sqlite: TOUCH_SQLITE }, [participant.id, pay.now.getTime()]);
  return { participant, stored: null, balanceAfter: debited === undefined ? null : Number(debited.amount), balance, endpointEvents };
}

/** The participant's balances (minor units by currency), read again inside the transaction holding its lock. */
export async function readBalances(store: HotStore, participantId: string): Promise<Record<string, number>> {
  const rows = await store.select<{ currency: string; amount: number | string }>(
    { postgresql: "select currency, amount from balances where participant_id = ?", sqlite: "select currency, amount from balances where participant_id = ?" },
    [participantId],
  );
  return balancesOf(rows.map((row) => [row.currency, row.amount]));
}
