import type { Scope } from "../scope.js";
import type { HotStore } from "../hot/index.js";

/*
 * What a check-in claim reads under the participant's lock, on the driver, in
 * one statement issued after the lock was granted (so it sees every claim
 * committed before: a concurrent claim of the same day is refused here, and
 * the unique (participant, day) key stops any that slipped by).
 */

export interface CheckinClaimReads {
  /** The participant's check-in days. */
  claimedDays: string[];
  /** Whether an event of the required type was received in the window (false when none is required). */
  requiredEventSeen: boolean;
  /** Every balance of the participant, minor units by currency. */
  balances: Record<string, number>;
  /** The `events` list of each enabled endpoint of the scope. */
  endpointEvents: string[][];
}

/** Parameters: participant; type, participant, from, until (the event window, or nulls); club, env. */
const READ = {
  postgresql: `select
    (select coalesce(json_agg(c.day_key), '[]'::json) from checkin_claims as c where c.participant_id = ?) as days,
    exists (select 1 from events as e where e.type = ?::text and e.participant_id = ? and e.duplicate_of is null and e.status <> 'failed'
      and e.received_at >= ? and e.received_at < ?) as seen,
    (select coalesce(json_agg(json_build_array(b.currency, b.amount)), '[]'::json) from balances as b where b.participant_id = ?) as balances,
    (select coalesce(json_agg(w.events), '[]'::json) from webhook_endpoints as w where w.club_id = ? and w.env = ? and w.enabled and w.deleted_at is null) as endpoints`,
  sqlite: `select
    (select json_group_array(c.day_key) from checkin_claims as c where c.participant_id = ?) as days,
    exists (select 1 from events as e where e.type = ? and e.participant_id = ? and e.duplicate_of is null and e.status <> 'failed'
      and e.received_at >= ? and e.received_at < ?) as seen,
    (select json_group_array(json_array(b.currency, b.amount)) from balances as b where b.participant_id = ?) as balances,
    (select json_group_array(json(w.events)) from webhook_endpoints as w where w.club_id = ? and w.env = ? and w.enabled and w.deleted_at is null) as endpoints`,
};

function json<T>(value: T | string): T {
  return typeof value === "string" ? (JSON.parse(value) as T) : value;
}

/** Reads what a check-in claim of the locked participant decides on; `requiredEvent` null: no event is required. */
export async function readCheckinClaim(
  store: HotStore,
  scope: Scope,
  participantId: string,
  requiredEvent: { type: string; from: Date; until: Date } | null,
): Promise<CheckinClaimReads> {
  const time = (at: Date | undefined) => (at === undefined ? null : store.dialect === "postgresql" ? at : at.getTime());
  const [row] = await store.select<{
    days: string[] | string;
    seen: boolean | number;
    balances: [string, number | string][] | string;
    endpoints: string[][] | string;
  }>(READ, [
    participantId,
    requiredEvent?.type ?? null,
    participantId,
    time(requiredEvent?.from),
    time(requiredEvent?.until),
    participantId,
    scope.clubId,
    scope.env,
  ]);
  const balances: Record<string, number> = {};
  for (const [currency, amount] of json(row.balances)) balances[currency] = Number(amount);
  return {
    claimedDays: json(row.days),
    requiredEventSeen: requiredEvent !== null && Boolean(row.seen),
    balances,
    endpointEvents: json(row.endpoints),
  };
}
