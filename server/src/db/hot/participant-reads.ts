import type { Scope } from "../scope.js";
import type { Database } from "../orm.js";
import { firstRow, readFirstNow, withHotReads, type HotStore } from "./index.js";

/*
 * The participant views' reads on the driver (db/hot): what a view of one
 * participant needs — the row, its balances and, for the missions, its
 * progress in the missions' current periods — in one statement, one index
 * probe per table: (club_id, env, external_id) of participants, then the
 * participant's rows of balances and mission_progress by their unique
 * indexes' leading participant_id. Balances and progress come back
 * aggregated into the participant's row as JSON arrays of tuples.
 */

/** The participant's columns a view shows or the engine reads. */
export interface ViewedParticipantRow {
  id: string;
  externalId: string;
  displayName: string | null;
  avatarUrl: string | null;
  email: string | null;
  phone: string | null;
  xp: number;
  level: number;
  tierCode: string | null;
  tags: string[];
  eventCounts: Record<string, number>;
  flags: Record<string, unknown>;
  peakMonth: string | null;
  peakLevel: number | null;
  priorMonthPeakLevel: number | null;
  updatedAt: Date;
}

/** A mission period's stored progress. */
export interface StoredMissionProgress {
  missionId: string;
  periodKey: string;
  progress: number;
  completed: boolean;
  claimed: boolean;
}

export interface ParticipantViewRows {
  participant: ViewedParticipantRow;
  /** Minor units by currency code (a currency without a row is absent). */
  balances: Record<string, number>;
  /** Progress rows of the missions asked for, in the periods asked for (see readParticipantView's `missions`). */
  missions: StoredMissionProgress[];
}

const COLUMNS =
  "p.id, p.external_id, p.display_name, p.avatar_url, p.email, p.phone, p.xp, p.level, p.tier_code, p.tags, p.event_counts, p.flags, " +
  "p.peak_month, p.peak_level, p.prior_month_peak_level, p.updated_at";

/** PostgreSQL: a participant's balances as a JSON array of [currency, amount] tuples. */
const BALANCES_OF_P =
  "(select coalesce(json_agg(json_build_array(b.currency, b.amount)), '[]'::json) from balances as b where b.participant_id = p.id) as balances";
const BALANCES = {
  postgresql: BALANCES_OF_P,
  sqlite: "(select json_group_array(json_array(b.currency, b.amount)) from balances as b where b.participant_id = p.id) as balances",
};

/** The progress rows `m` as one JSON array of [mission, period key, progress, completed, claimed] (progressOf reads it). */
const PROGRESS_ROWS_POSTGRESQL =
  "coalesce(json_agg(json_build_array(m.mission_id, m.period_key, m.progress, m.completed_at is not null, m.claimed_at is not null)), '[]'::json)";
const PROGRESS_ROWS_SQLITE = "json_group_array(json_array(m.mission_id, m.period_key, m.progress, m.completed_at is not null, m.claimed_at is not null))";

/** The participant's progress rows of the missions (ids) in the period keys bound (the caller keeps each mission's own). */
const MISSIONS = {
  postgresql: `(select ${PROGRESS_ROWS_POSTGRESQL}
    from mission_progress as m where m.participant_id = p.id and m.mission_id = any(?::text[]) and m.period_key = any(?::text[])) as missions`,
  sqlite: `(select ${PROGRESS_ROWS_SQLITE}
    from mission_progress as m where m.participant_id = p.id and m.mission_id in (select value from json_each(?)) and m.period_key in (select value from json_each(?))) as missions`,
};

function viewText(dialect: "postgresql" | "sqlite", missions: boolean): string {
  return `select ${COLUMNS}, ${BALANCES[dialect]}${missions ? `, ${MISSIONS[dialect]}` : ""} from participants as p where p.club_id = ? and p.env = ? and p.external_id = ?`;
}
const VIEW = { postgresql: viewText("postgresql", false), sqlite: viewText("sqlite", false) };

/** The participant's columns the profile and progress views show (ViewedParticipant of usecases/participants/views.ts). */
const PROFILE_COLUMNS = "p.id, p.external_id, p.display_name, p.avatar_url, p.xp, p.tier_code, p.flags, p.updated_at";
const PROFILE = {
  postgresql: `select ${PROFILE_COLUMNS}, ${BALANCES.postgresql} from participants as p where p.club_id = ? and p.env = ? and p.external_id = ?`,
  sqlite: `select ${PROFILE_COLUMNS}, ${BALANCES.sqlite} from participants as p where p.club_id = ? and p.env = ? and p.external_id = ?`,
};
const VIEW_WITH_MISSIONS = { postgresql: viewText("postgresql", true), sqlite: viewText("sqlite", true) };

interface Row {
  id: string;
  external_id: string;
  display_name: string | null;
  avatar_url: string | null;
  email: string | null;
  phone: string | null;
  xp: number | string;
  level: number;
  tier_code: string | null;
  tags: string[] | string;
  event_counts: Record<string, number> | string;
  flags: Record<string, unknown> | string;
  peak_month: string | null;
  peak_level: number | null;
  prior_month_peak_level: number | null;
  updated_at: Date | number | string;
  balances: [string, number | string][] | string;
  missions?: [string, string, number, boolean | number, boolean | number][] | string;
}

/** PostgreSQL parses json/jsonb; SQLite hands JSON back as text. */
function json<T>(value: T | string): T {
  return typeof value === "string" ? (JSON.parse(value) as T) : value;
}

/** The participant row of a view statement (bigints as numbers, JSON parsed, the datetime a Date). */
export function viewedParticipant(row: Omit<Row, "balances" | "missions">): ViewedParticipantRow {
  return {
    id: row.id,
    externalId: row.external_id,
    displayName: row.display_name,
    avatarUrl: row.avatar_url,
    email: row.email,
    phone: row.phone,
    xp: Number(row.xp),
    level: row.level,
    tierCode: row.tier_code,
    tags: json(row.tags),
    eventCounts: json(row.event_counts),
    flags: json(row.flags) ?? {},
    peakMonth: row.peak_month,
    peakLevel: row.peak_level,
    priorMonthPeakLevel: row.prior_month_peak_level,
    updatedAt: row.updated_at instanceof Date ? row.updated_at : new Date(row.updated_at),
  };
}

/** A participant row of PROFILE: what the profile and progress views show of it. */
export type ProfiledParticipantRow = Pick<ViewedParticipantRow, "id" | "externalId" | "displayName" | "avatarUrl" | "xp" | "tierCode" | "flags" | "updatedAt">;

type ProfileRow = Pick<Row, "id" | "external_id" | "display_name" | "avatar_url" | "xp" | "tier_code" | "flags" | "updated_at" | "balances">;

/**
 * The participant with `externalId` in the scope as the profile and progress
 * views show it, and its balances, in one statement of the columns they use
 * (none of the JSON the engine's state needs: tags, event counts); null
 * when no such participant.
 */
export async function readParticipantProfile(store: HotStore, scope: Scope, externalId: string): Promise<ParticipantProfileRows | null> {
  const row = await firstRow<ProfileRow>(store, PROFILE, [scope.clubId, scope.env, externalId]);
  return row ? profileRows(row) : null;
}

export interface ParticipantProfileRows {
  participant: ProfiledParticipantRow;
  /** Minor units by currency code (a currency without a row is absent). */
  balances: Record<string, number>;
}

function profileRows(row: ProfileRow): ParticipantProfileRows {
  return {
    participant: {
      id: row.id,
      externalId: row.external_id,
      displayName: row.display_name,
      avatarUrl: row.avatar_url,
      xp: Number(row.xp),
      tierCode: row.tier_code,
      flags: json(row.flags) ?? {},
      updatedAt: row.updated_at instanceof Date ? row.updated_at : new Date(row.updated_at),
    },
    balances: balancesOf(row.balances),
  };
}

/**
 * Several participants' PROFILE rows of one scope (bound: club, env, the
 * external ids as an array): one probe of the unique (club_id, env,
 * external_id) per key, written as scoped-reads.ts byScopedKeys writes its
 * reads so that the plan cannot depend on statistics.
 */
export const PROFILES = {
  postgresql: `select x.* from (select ?::text as club_id, ?::text as env) as s cross join unnest(?::text[]) as k(key)
    cross join lateral (select ${PROFILE_COLUMNS}, ${BALANCES_OF_P} from participants as p where p.club_id = s.club_id and p.env = s.env and p.external_id = k.key offset 0) as x`,
  sqlite: `select ${PROFILE_COLUMNS}, ${BALANCES.sqlite} from participants as p where p.club_id = ? and p.env = ? and p.external_id in (select value from json_each(?))`,
};

/** A read's answer: at once where it ran at once (SQLite), else a promise of it. */
export type Found<T> = T | null | Promise<T | null>;

/**
 * The profile rows of the participants asked for by concurrent requests,
 * gathered until the event loop's check phase and read in one statement per
 * scope (PostgreSQL: one round trip, one socket write and read, instead of
 * one per request; the requests parsed in one poll of the sockets share it).
 * SQLite reads each at once on the read connection and answers without a
 * promise (readFirstNow).
 */
export function profileReader(db: Pick<Database, "orm" | "readConnection">): (scope: Scope, externalId: string) => Found<ParticipantProfileRows> {
  let reader = profileReaders.get(db.orm);
  if (!reader) {
    const now = readFirstNow(db);
    if (now) {
      reader = (scope, externalId) => {
        const row = now<ProfileRow>(PROFILE, [scope.clubId, scope.env, externalId]);
        return row ? profileRows(row) : null;
      };
    } else {
      const read = gathered<Scope, ProfileRow, ParticipantProfileRows>(
        db,
        (store, scope, externalIds) => store.select<ProfileRow>(PROFILES, [scope.clubId, scope.env, externalIds]),
        profileRows,
      );
      reader = (scope, externalId) => read(`${scope.clubId}\u0000${scope.env}`, scope, externalId);
    }
    profileReaders.set(db.orm, reader);
  }
  return reader;
}
const profileReaders = new WeakMap<object, (scope: Scope, externalId: string) => Found<ParticipantProfileRows>>();

/** The missions' ids and the period keys in use, of readParticipantMissions and readParticipantView. */
export interface MissionsAsked {
  ids: readonly string[];
  periodKeys: readonly string[];
  /** Each mission's id then its current period key, in turn (SQLite's read of one participant looks up exactly these). */
  pairs: readonly string[];
}

/**
 * What the missions list needs of a participant: its tags (a mission's
 * audience) and its progress rows of the missions asked for in the period
 * keys asked for (the caller keeps each mission's own period). None of the
 * profile's columns or balances, none of the engine's JSON but the tags.
 */
export interface ParticipantMissionsRows {
  tags: string[];
  missions: StoredMissionProgress[];
}

/**
 * The missions list's read (the participant's tags, and its progress rows in
 * the missions and period keys asked) of several participants of one scope
 * (bound: club, env, ids, period keys, the external ids), PostgreSQL in
 * byScopedKeys' form.
 */
export const MISSIONS_OF_MANY = {
  postgresql: `select x.* from (select ?::text as club_id, ?::text as env, ?::text[] as mission_ids, ?::text[] as period_keys) as s cross join unnest(?::text[]) as k(key)
    cross join lateral (select p.external_id, p.tags, (select ${PROGRESS_ROWS_POSTGRESQL}
    from mission_progress as m where m.participant_id = p.id and m.mission_id = any(s.mission_ids) and m.period_key = any(s.period_keys)) as missions
    from participants as p where p.club_id = s.club_id and p.env = s.env and p.external_id = k.key offset 0) as x`,
  sqlite: `select p.external_id, p.tags, (select ${PROGRESS_ROWS_SQLITE}
    from mission_progress as m where m.participant_id = p.id and m.mission_id in (select value from json_each(s.mission_ids)) and m.period_key in (select value from json_each(s.period_keys))) as missions
    from (select ? as club_id, ? as env, ? as mission_ids, ? as period_keys) as s join participants as p on p.club_id = s.club_id and p.env = s.env
    where p.external_id in (select value from json_each(?))`,
};

/**
 * SQLite: the missions list's read of one participant, each mission's (id,
 * current period key) pair looked up on the unique index, one probe per
 * mission (bound: the pairs, then club, env and the external id). The ids ×
 * keys of `in (json_each)` probed every combination and built both lists'
 * tables on each run (docs/performance-log.md#sqlite-missions-by-pair). The
 * text depends only on the number of missions.
 */
function missionPairsOfOne(count: number): { sqlite: string } {
  let sql = missionPairTexts.get(count);
  if (sql === undefined) {
    const pairs = Array.from({ length: count }, () => "(m.mission_id = ? and m.period_key = ?)").join(" or ") || "false";
    sql = {
      sqlite: `select p.tags, (select ${PROGRESS_ROWS_SQLITE}
    from mission_progress as m where m.participant_id = p.id and (${pairs})) as missions
  from participants as p where p.club_id = ? and p.env = ? and p.external_id = ?`,
    };
    missionPairTexts.set(count, sql);
  }
  return sql;
}
const missionPairTexts = new Map<number, { sqlite: string }>();

type MissionsRow = Pick<Row, "external_id" | "tags"> & { missions: NonNullable<Row["missions"]> };

function missionsRows(row: Omit<MissionsRow, "external_id">): ParticipantMissionsRows {
  return { tags: json(row.tags), missions: progressOf(row.missions) };
}

/** As profileReader, for readParticipantMissions: gathered by scope and missions asked on PostgreSQL, at once on SQLite's read connection. */
export function missionsReader(
  db: Pick<Database, "orm" | "readConnection">,
): (scope: Scope, externalId: string, missions: MissionsAsked) => Found<ParticipantMissionsRows> {
  let reader = missionsReaders.get(db.orm);
  if (!reader) {
    const now = readFirstNow(db);
    if (now) {
      reader = (scope, externalId, missions) => {
        const row = now<MissionsRow>(missionPairsOfOne(missions.pairs.length / 2), [...missions.pairs, scope.clubId, scope.env, externalId]);
        return row ? missionsRows(row) : null;
      };
    } else {
      const read = gathered<{ scope: Scope; missions: MissionsAsked }, MissionsRow, ParticipantMissionsRows>(
        db,
        (store, { scope, missions }, externalIds) =>
          store.select<MissionsRow>(MISSIONS_OF_MANY, [scope.clubId, scope.env, missions.ids, missions.periodKeys, externalIds]),
        missionsRows,
      );
      reader = (scope, externalId, missions) =>
        read(
          `${scope.clubId}\u0000${scope.env}\u0000${missions.ids.join("\u0001")}\u0000${missions.periodKeys.join("\u0001")}`,
          { scope, missions },
          externalId,
        );
    }
    missionsReaders.set(db.orm, reader);
  }
  return reader;
}
const missionsReaders = new WeakMap<object, (scope: Scope, externalId: string, missions: MissionsAsked) => Found<ParticipantMissionsRows>>();

interface Waiting<T> {
  resolve(rows: T | null): void;
  reject(err: unknown): void;
}

/**
 * Reads of participants by external id asked for until the check phase,
 * one statement per group (`key`: callers whose `params` are the same) for
 * all of the group's external ids; each caller gets its participant's `make`
 * of its row, or null.
 */
function gathered<P, R extends { external_id: string }, T>(
  db: Pick<Database, "orm" | "readConnection">,
  select: (store: HotStore, params: P, externalIds: string[]) => Promise<R[]>,
  make: (row: R) => T,
): (key: string, params: P, externalId: string) => Promise<T | null> {
  let pending = new Map<string, { params: P; waiting: Map<string, Waiting<T>[]> }>();
  const flush = () => {
    const groups = pending;
    pending = new Map();
    for (const { params, waiting } of groups.values()) {
      withHotReads(db, (store) => select(store, params, [...waiting.keys()])).then(
        (rows) => {
          const found = new Map(rows.map((row) => [row.external_id, row]));
          for (const [externalId, waiters] of waiting) {
            const row = found.get(externalId);
            for (const waiter of waiters) {
              // Each caller its own objects: a view may be changed by whoever receives it.
              waiter.resolve(row ? make(row) : null);
            }
          }
        },
        (err: unknown) => {
          for (const waiters of waiting.values()) for (const waiter of waiters) waiter.reject(err);
        },
      );
    }
  };
  return (key, params, externalId) =>
    new Promise((resolve, reject) => {
      if (pending.size === 0) setImmediate(flush);
      let group = pending.get(key);
      if (!group) pending.set(key, (group = { params, waiting: new Map() }));
      let waiters = group.waiting.get(externalId);
      if (!waiters) group.waiting.set(externalId, (waiters = []));
      waiters.push({ resolve, reject });
    });
}

/** Minor units by currency code from the statement's [currency, amount] tuples. */
function balancesOf(tuples: Row["balances"]): Record<string, number> {
  const balances: Record<string, number> = {};
  for (const [currency, amount] of json(tuples)) balances[currency] = Number(amount);
  return balances;
}

/**
 * The participant with `externalId` in the scope, its balances and (with
 * `missions`: mission ids and the period keys in use) its progress in those
 * missions and periods, in one statement; null when no such participant.
 * A read outside any transaction: one consistent snapshot of the three tables.
 */
export async function readParticipantView(store: HotStore, scope: Scope, externalId: string, missions?: MissionsAsked): Promise<ParticipantViewRows | null> {
  const row = missions
    ? await firstRow<Row>(store, VIEW_WITH_MISSIONS, [missions.ids, missions.periodKeys, scope.clubId, scope.env, externalId])
    : await firstRow<Row>(store, VIEW, [scope.clubId, scope.env, externalId]);
  return row ? viewRows(row) : null;
}

function viewRows(row: Row): ParticipantViewRows {
  const balances = balancesOf(row.balances);
  return { participant: viewedParticipant(row), balances, missions: row.missions === undefined ? [] : progressOf(row.missions) };
}

/** Progress rows from the statement's [mission, period key, progress, completed, claimed] tuples. */
function progressOf(tuples: NonNullable<Row["missions"]>): StoredMissionProgress[] {
  return json(tuples).map(([missionId, periodKey, value, completed, claimed]) => ({
    missionId,
    periodKey,
    progress: Number(value),
    completed: Boolean(completed),
    claimed: Boolean(claimed),
  }));
}

const ACTIVE_CODES = `select coalesce(max(case when ends_at is null then 1 else 0 end), 0) as unending, max(ends_at) as last_end
  from promotion_codes where club_id = ? and env = ? and status = 'active'`;

/**
 * The scope's active promotional codes as GET /v1/me/config's `codes` card
 * needs them: whether one has no end, else the latest end (compared with the
 * time of each request by cache/registry.ts activeCodesAt).
 */
export async function activePromotionCodes(store: HotStore, scope: Scope): Promise<{ unending: boolean; lastEnd: Date | null }> {
  const row = await firstRow<{ unending: number | string; last_end: Date | string | number | null }>(
    store,
    { postgresql: ACTIVE_CODES, sqlite: ACTIVE_CODES },
    [scope.clubId, scope.env],
  );
  const lastEnd = row?.last_end ?? null;
  return { unending: Number(row?.unending ?? 0) > 0, lastEnd: lastEnd === null ? null : new Date(lastEnd) };
}
