import { LockMode, type FilterQuery } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { dialectOf } from "../dialect.js";
import { Participant } from "../entities/index.js";
import { bothDialects, hotStore, type HotStore } from "../hot/index.js";
import { byScopedKeys } from "../hot/scoped-reads.js";
import type { Scope } from "../scope.js";
import { takeSqliteWriteLock } from "../write-lock.js";

/*
 * Participant row locks, so one participant's events, claims and
 * redemptions apply one after the other and none loses another's update.
 * PostgreSQL: `select … for update`, in id order (two transactions locking
 * overlapping sets take the shared rows in the same order, so neither holds
 * one the other waits for). SQLite has no row locks: the transaction takes
 * the database's write lock first (write-lock.ts), then reads.
 */

/** The participant's columns the engine reads and an evaluation moves; a locked row, or its state carried in memory between the events of a batch. */
export type ParticipantSnapshot = Pick<
  Participant,
  "id" | "externalId" | "xp" | "level" | "tierCode" | "tags" | "eventCounts" | "peakMonth" | "peakLevel" | "priorMonthPeakLevel"
> &
  Partial<Pick<Participant, "displayName" | "email" | "phone">>;

/** Locks the participant row matching `where` for the rest of the transaction (on the ORM); null when none matches. */
export async function lockParticipant(em: SqlEntityManager, where: FilterQuery<Participant>): Promise<Participant | null> {
  const [participant] = await lockParticipants(em, where);
  return participant ?? null;
}

/** Locks every participant row matching `where` (see lockParticipant), in id order on PostgreSQL. */
export async function lockParticipants(em: SqlEntityManager, where: FilterQuery<Participant>): Promise<Participant[]> {
  if (dialectOf(em) === "sqlite") {
    await takeSqliteWriteLock(em);
    return em.find(Participant, where);
  }
  return em.find(Participant, where, { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: "asc" } });
}

/**
 * The participant matching `where`, row-locked on PostgreSQL; read plainly on
 * SQLite, which serializes writers anyway (for work that writes at once).
 */
export function findParticipantForUpdate(em: SqlEntityManager, where: FilterQuery<Participant>): Promise<Participant | null> {
  return em.findOne(Participant, where, dialectOf(em) === "postgresql" ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
}

/**
 * lockParticipant by external id on the driver: one prepared statement and a
 * plain snapshot instead of an ORM query and entity, for the participant's
 * own claims, which read only its columns.
 */
export async function lockParticipantByExternalId(em: SqlEntityManager, scope: Scope, externalId: string): Promise<ParticipantSnapshot | null> {
  const locked = await lockByExternalId(await hotStore(em), scope, [externalId]);
  return locked.get(externalId) ?? null;
}

/** The columns of a ParticipantSnapshot. */
const COLUMNS = "id, external_id, xp, level, tier_code, tags, event_counts, peak_month, peak_level, prior_month_peak_level, display_name, email, phone";

interface ParticipantRow {
  id: string;
  external_id: string;
  xp: number | string;
  level: number;
  tier_code: string | null;
  tags: string[] | string;
  event_counts: Record<string, number> | string;
  peak_month: string | null;
  peak_level: number | null;
  prior_month_peak_level: number | null;
  display_name: string | null;
  email: string | null;
  phone: string | null;
}

/** PostgreSQL parses jsonb; SQLite hands JSON columns back as text. */
function json<T>(value: T | string): T {
  return typeof value === "string" ? (JSON.parse(value) as T) : value;
}

function snapshotOf(row: ParticipantRow): ParticipantSnapshot {
  return {
    id: row.id,
    externalId: row.external_id,
    // A bigint column: a numeric string from PostgreSQL.
    xp: Number(row.xp),
    level: row.level,
    tierCode: row.tier_code,
    tags: json(row.tags),
    eventCounts: json(row.event_counts),
    peakMonth: row.peak_month,
    peakLevel: row.peak_level,
    priorMonthPeakLevel: row.prior_month_peak_level,
    displayName: row.display_name,
    email: row.email,
    phone: row.phone,
  };
}

/** The ids of the scope's participants with the external ids: one probe of the unique index per key (see db/hot/scoped-reads.ts). */
const IDS_BY_EXTERNAL_ID = byScopedKeys({ table: "participants", columns: ["id"], key: "external_id" }).postgresql;

/**
 * PostgreSQL: the statement locking the scope's participants with the
 * external ids, in id order, selecting `columns` (see lockByExternalId).
 * Parameters: club, env, external ids, external ids.
 */
export function lockingByExternalId(columns: string): string {
  return `select ${columns} from participants where id = any(array(${IDS_BY_EXTERNAL_ID})) and external_id = any(?::text[]) order by id for update`;
}

const LOCK_BY_EXTERNAL_ID = lockingByExternalId(COLUMNS);

/**
 * Locks the participants of the scope with `externalIds` (those that exist)
 * for the rest of the transaction, in one statement; by external id.
 *
 * PostgreSQL finds the ids first by one probe per key (an InitPlan) and
 * locks by the primary key alone: with `club_id = … and external_id =
 * any(…)` the planner could take the external ids as a Filter over every
 * participant of the club. The `external_id` recheck drops a row renamed
 * while this waited for its lock (the lock re-reads the row).
 */
export async function lockByExternalId(store: HotStore, scope: Scope, externalIds: string[]): Promise<Map<string, ParticipantSnapshot>> {
  await takeSqliteWriteLock(store);
  const rows = await store.select<ParticipantRow>(
    {
      postgresql: LOCK_BY_EXTERNAL_ID,
      sqlite: `select ${COLUMNS} from participants where club_id = ? and env = ? and external_id in (select value from json_each(?))`,
    },
    store.dialect === "postgresql" ? [scope.clubId, scope.env, externalIds, externalIds] : [scope.clubId, scope.env, externalIds],
  );
  return new Map(rows.map((row) => [row.external_id, snapshotOf(row)]));
}

/**
 * Locks the scope's participants with `ids` (those that exist) for the rest
 * of the transaction, in one statement, as lockByExternalId does; by id. The
 * worker's queued events know their participants by id: this spares it the
 * ORM's lock query and the hydration of an entity per participant.
 *
 * By the primary key alone, club and env checked on the locked rows (outside
 * the fenced subquery): `club_id = …` beside `id = any(…)` would let the
 * (club_id, env, external_id) index serve it with the ids as a Filter.
 */
export async function lockById(store: HotStore, scope: Scope, ids: string[]): Promise<ParticipantSnapshot[]> {
  await takeSqliteWriteLock(store);
  const rows = await store.select<ParticipantRow>(
    {
      postgresql: `select ${COLUMNS} from (select ${COLUMNS}, club_id, env from participants where id = any(?::text[]) order by id offset 0 for update) as l
        where l.club_id = ? and l.env = ?`,
      // `+club_id`/`+env`: on the primary key, not a search of the club's (club_id, env, external_id) index (see OWNERS in db/events/queued-rows.ts).
      sqlite: `select ${COLUMNS} from participants where +club_id = ? and +env = ? and id in (select value from json_each(?))`,
    },
    store.dialect === "postgresql" ? [ids, scope.clubId, scope.env] : [scope.clubId, scope.env, ids],
  );
  return rows.map(snapshotOf);
}

/** The stored columns of participants the transaction already holds locked (read again after a write that bypassed the carried state). */
export async function readLocked(store: HotStore, ids: string[]): Promise<Map<string, ParticipantSnapshot>> {
  const rows = await store.select<ParticipantRow>(
    bothDialects((inList) => `select ${COLUMNS} from participants where ${inList("id")}`),
    [ids],
  );
  return new Map(rows.map((row) => [row.id, snapshotOf(row)]));
}

/** The ids of the scope's participants with `externalIds` (those that exist), by external id; no lock. */
export async function participantIdsOf(store: HotStore, scope: Scope, externalIds: string[]): Promise<Map<string, string>> {
  const rows = await store.select<{ id: string; external_id: string }>(PARTICIPANT_IDS, [scope.clubId, scope.env, externalIds]);
  return new Map(rows.map((row) => [row.external_id, row.id]));
}

// One index probe per key whatever the statistics (db/hot/scoped-reads.ts).
export const PARTICIPANT_IDS = byScopedKeys({ table: "participants", columns: ["id", "external_id"], key: "external_id" });
