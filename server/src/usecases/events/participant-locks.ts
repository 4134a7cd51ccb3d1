import type { SqlEntityManager } from "@mikro-orm/knex";
import type { ClubConfig } from "../../engine/config.js";
import { OutboxMessage, Participant } from "../../db/entities/index.js";
import { bothDialects, shapeOf, type HotStore } from "../../db/hot/index.js";
import type { Scope } from "../../db/scope.js";
import type { ParticipantSnapshot } from "../evaluation/index.js";
import { newParticipantRow, participantCreatedMessage } from "../participants/index.js";
import { byScopedKeys } from "../../db/hot/scoped-reads.js";

/*
 * The event path's participant locks on the driver (db/hot): one statement
 * locks a whole step's participants and returns the columns the engine
 * reads, and the absent ones are created with one insert, instead of an ORM
 * query (and hydration) per participant.
 */

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

/**
 * SQLite has no row locks: the write lock on the whole database is the
 * lock. An UPDATE that matches nothing takes it (waiting under busy_timeout,
 * as `BEGIN IMMEDIATE` would) without rewriting the rows it locks: an
 * `update … returning` of a step's 500 participants rewrote each row (and
 * dirtied its page) only for the batch's own update to rewrite it again,
 * ~4.7 of a stored batch's ~50 ms of event loop; the lock and a plain read
 * take ~1.5 ms. Already held (a second lock in the transaction), it costs
 * one statement step.
 */
async function takeSqliteWriteLock(store: HotStore): Promise<void> {
  if (store.dialect === "sqlite") await store.run({ postgresql: "", sqlite: "update participants set updated_at = updated_at where 0" }, []);
}

/** The ids of the scope's participants with the external ids: one probe of the unique index per key (see db/hot/scoped-reads.ts). */
const IDS_BY_EXTERNAL_ID = byScopedKeys({ table: "participants", columns: ["id"], key: "external_id" }).postgresql;

/**
 * Locks the participants of the scope with `externalIds` (those that exist)
 * for the rest of the transaction, in one statement; by external id. As
 * lockParticipants does on the ORM: PostgreSQL `select … for update` in id
 * order (overlapping sets lock their shared rows in the same order); SQLite
 * takes the database's write lock first (takeSqliteWriteLock), then reads.
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
      postgresql: `select ${COLUMNS} from participants where id = any(array(${IDS_BY_EXTERNAL_ID})) and external_id = any(?::text[]) order by id for update`,
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
      // `+club_id`/`+env`: on the primary key, not a search of the club's (club_id, env, external_id) index (see OWNERS in queued-rows.ts).
      sqlite: `select ${COLUMNS} from participants where +club_id = ? and +env = ? and id in (select value from json_each(?))`,
    },
    store.dialect === "postgresql" ? [ids, scope.clubId, scope.env] : [scope.clubId, scope.env, ids],
  );
  return rows.map(snapshotOf);
}

/** The stored columns of participants the transaction already holds locked (read again after a write that bypassed the carried state). */
export async function readLocked(store: HotStore, ids: string[]): Promise<Map<string, ParticipantSnapshot>> {
  const rows = await store.select<ParticipantRow>(bothDialects((inList) => `select ${COLUMNS} from participants where ${inList("id")}`), [ids]);
  return new Map(rows.map((row) => [row.id, snapshotOf(row)]));
}

/**
 * Locks the participants with `externalIds`, creating those seen for the
 * first time (newParticipantRow, with their `participant.created` in the
 * outbox) in one insert; by external id. A participant another transaction
 * created meanwhile is skipped by the insert and locked as it stored it.
 * `onCreate` is told before anything is created.
 */
export async function lockOrCreateParticipants(
  em: SqlEntityManager,
  store: HotStore,
  scope: Scope,
  externalIds: string[],
  at: { now: Date; config: () => Promise<ClubConfig>; onCreate?: () => void },
): Promise<Map<string, ParticipantSnapshot>> {
  const locked = await lockByExternalId(store, scope, externalIds);
  // Sorted: concurrent creators insert shared keys in the same order, so neither waits on a key the other holds.
  const absent = externalIds.filter((externalId) => !locked.has(externalId)).sort();
  if (absent.length === 0) return locked;
  at.onCreate?.();
  const config = await at.config();
  const rows = absent.map((externalId) => newParticipantRow(scope, config, { external_id: externalId }, at.now));
  const inserted = await store.insertAbsent(shapeOf(em, Participant), rows, ["club_id", "env", "external_id"]);
  const created = rows.filter((row) => inserted.has(row.id));
  await store.insert(shapeOf(em, OutboxMessage), created.map((row) => participantCreatedMessage(scope, row, at.now)));
  // The inserting transaction holds its new rows until it commits: they are as locked as the others.
  for (const row of created) locked.set(row.externalId, snapshotOf(insertedRow(row)));
  const raced = absent.filter((externalId) => !locked.has(externalId));
  if (raced.length > 0) for (const [externalId, participant] of await lockByExternalId(store, scope, raced)) locked.set(externalId, participant);
  return locked;
}

/** A row of newParticipantRow as the lock statement would return it. */
function insertedRow(row: ReturnType<typeof newParticipantRow>): ParticipantRow {
  return {
    id: row.id,
    external_id: row.externalId,
    xp: row.xp,
    level: row.level,
    tier_code: row.tierCode ?? null,
    tags: row.tags,
    event_counts: row.eventCounts as Record<string, number>,
    peak_month: null,
    peak_level: null,
    prior_month_peak_level: null,
    display_name: row.displayName,
    email: row.email ?? null,
    phone: row.phone ?? null,
  };
}
