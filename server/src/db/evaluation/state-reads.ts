import { bothDialects, type HotStore } from "../hot/index.js";

/*
 * The rows an evaluation starts from (balances, badges, lots, mission
 * progress), read on the driver inside the transaction holding the
 * participants' locks: plain rows, no entity hydration. Bigint columns come
 * back as numeric strings from PostgreSQL and datetimes as epoch milliseconds
 * from SQLite, hence Number() and new Date().
 */

/** Minor units by currency code. */
export type Balances = Record<string, number>;

/** An unspent lot as the engine spends it (engine/types.ts Lot). */
export interface StoredLot {
  id: string;
  currency: string;
  remaining: number;
  grantedAt: string;
  expiresAt: string;
}

/** A mission period's stored progress (engine/types.ts MissionState). */
export interface StoredMissionProgress {
  periodKey: string;
  progress: number;
  completed: boolean;
  claimed: boolean;
}

/** `rows` grouped by participant, each mapped with `value`. */
function byParticipant<R extends { participantId: string }, V>(rows: R[], value: (row: R) => V): Map<string, V[]> {
  const grouped = new Map<string, V[]>();
  for (const row of rows) {
    const list = grouped.get(row.participantId);
    if (list) list.push(value(row));
    else grouped.set(row.participantId, [value(row)]);
  }
  return grouped;
}

/** Each participant's balances by currency code, in minor units. */
export async function readBalancesOf(store: HotStore, participantIds: string[]): Promise<Map<string, Balances>> {
  const rows = await store.select<{ participant_id: string; currency: string; amount: number | string }>(
    bothDialects((inList) => `select participant_id, currency, amount from balances where ${inList("participant_id")}`),
    [participantIds],
  );
  // One loop into the records (a batch reads ~1,000 rows; intermediate objects and pairs per row added up).
  const balances = new Map<string, Balances>();
  for (const row of rows) {
    let record = balances.get(row.participant_id);
    if (!record) balances.set(row.participant_id, (record = {}));
    record[row.currency] = Number(row.amount);
  }
  return balances;
}

/** Each participant's badge codes. */
export async function readBadges(store: HotStore, participantIds: string[]): Promise<Map<string, string[]>> {
  const rows = await store.select<{ participant_id: string; badge_code: string }>(
    bothDialects((inList) => `select participant_id, badge_code from badges where ${inList("participant_id")}`),
    [participantIds],
  );
  return byParticipant(
    rows.map((row) => ({ participantId: row.participant_id, badgeCode: row.badge_code })),
    (row) => row.badgeCode,
  );
}

/** Unspent lots of the `expiring` currencies (only those are credited as lots), oldest expiry first as the engine spends them. */
export async function readLots(store: HotStore, participantIds: string[], expiring: string[]): Promise<Map<string, StoredLot[]>> {
  if (expiring.length === 0) return new Map();
  const rows = await store.select<{
    id: string;
    participant_id: string;
    currency: string;
    remaining: number | string;
    created_at: Date | number;
    expires_at: Date | number;
  }>(
    bothDialects(
      (inList) => `select id, participant_id, currency, remaining, created_at, expires_at from currency_lots
      where ${inList("participant_id")} and ${inList("currency")} and remaining > 0 and expires_at is not null order by expires_at, id`,
    ),
    [participantIds, expiring],
  );
  return byParticipant(
    rows.map((row) => ({ ...row, participantId: row.participant_id })),
    (row) => ({
      id: row.id,
      currency: row.currency,
      remaining: Number(row.remaining),
      grantedAt: new Date(row.created_at).toISOString(),
      expiresAt: new Date(row.expires_at).toISOString(),
    }),
  );
}

/**
 * The participants' progress in the missions' current periods. SQLite probes
 * the unique (participant, mission, period) index once per participant and
 * (mission, current period) pair, in that join order (CROSS JOIN): with three
 * IN lists it probed every mission with every period key in use (the demo's 6
 * missions × 4 periods: 12,000 probes per 500 participants for 3,000 rows that
 * can match). The pairs as one JSON object (mission id → period key):
 * json_each hands both out as columns, where an array of pairs would be parsed
 * again for every probe; read into a materialized CTE once, not parsed again
 * per participant. Parameters are numbered: the CTE, first in the text, reads
 * the second. Figures and the alternative kept out: docs/performance-log.md#mission-progress-read.
 */
const MISSION_PROGRESS = {
  postgresql: bothDialects(
    (inList) => `select participant_id, mission_id, period_key, progress, completed_at, claimed_at from mission_progress
      where ${inList("participant_id")} and ${inList("mission_id")} and ${inList("period_key")}`,
  ).postgresql,
  sqlite: `with k(mission_id, period_key) as materialized (select key, value from json_each(?2))
      select m.participant_id, m.mission_id, m.period_key, m.progress, m.completed_at, m.claimed_at
      from json_each(?1) as p cross join k cross join mission_progress as m
      where m.participant_id = p.value and m.mission_id = k.mission_id and m.period_key = k.period_key`,
};

/** The participants' progress in the missions' current periods (`currentKey`: mission id → current period key), by participant and mission. */
export async function readMissionProgress(
  store: HotStore,
  participantIds: string[],
  currentKey: Map<string, string>,
): Promise<Map<string, Record<string, StoredMissionProgress>>> {
  const states = new Map<string, Record<string, StoredMissionProgress>>();
  if (currentKey.size === 0) return states;
  const rows = await store.select<{
    participant_id: string;
    mission_id: string;
    period_key: string;
    progress: number;
    completed_at: unknown;
    claimed_at: unknown;
  }>(
    MISSION_PROGRESS,
    store.dialect === "sqlite"
      ? [participantIds, JSON.stringify(Object.fromEntries(currentKey))]
      : [participantIds, [...currentKey.keys()], [...new Set(currentKey.values())]],
  );
  for (const row of rows) {
    if (currentKey.get(row.mission_id) !== row.period_key) continue;
    if (!states.has(row.participant_id)) states.set(row.participant_id, {});
    states.get(row.participant_id)![row.mission_id] = {
      periodKey: row.period_key,
      progress: Number(row.progress),
      completed: row.completed_at !== null,
      claimed: row.claimed_at !== null,
    };
  }
  return states;
}
