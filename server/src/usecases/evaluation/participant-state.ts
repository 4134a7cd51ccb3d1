import { createHash } from "node:crypto";
import { LockMode, raw, type FilterQuery, type RequiredEntityData } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import type { ApiEffect, ClubConfig, MissionConfig, RuleConfig } from "../../engine/config.js";
import { fromMinorUnits, toMinorUnits } from "../../engine/money.js";
import { parseRewardSpec } from "../../engine/rewards.js";
import { dedupeKey } from "../../engine/rules.js";
import { tierForLevel } from "../../engine/tiers.js";
import { dayKey, periodKey } from "../../engine/time.js";
import type { EngineEvent, Evaluation, Lot, MissionState, ParticipantState, RewardGrant, RuleRunState, StateDelta } from "../../engine/types.js";
import { Notification, Participant, type DeliveryKind } from "../../db/entities/index.js";
import { bothDialects, hotStore, type HotStore } from "../../db/hot/index.js";
import { newId, newTimeOrderedId } from "../../db/ids.js";
import type { Dialect } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { webhookMessage } from "../webhooks/index.js";
import type { Balances } from "../participants/index.js";
import { messageRequest, participantVariables, renderClubMessage, type MessageRecipient } from "../club/index.js";
import type { MessageVariables, RenderedMessage } from "../../engine/messages/render.js";
import { peakColumnsAfter, storedPeakLevel } from "./peak-level.js";
import { PendingWrites, type ParticipantChanges } from "./pending-writes.js";
import { lockByExternalId } from "../events/index.js";

/** The time zone of club days, weeks and months when the club has no `checkin` section to name one. */
const DEFAULT_TIME_ZONE = "America/Sao_Paulo";

/** The club time zone the engine computes days, weeks and months in (`checkin.timezone`). */
export function clubTimeZone(config: ClubConfig): string {
  return config.checkin?.timezone ?? DEFAULT_TIME_ZONE;
}

/**
 * Locks the participant row for the rest of the transaction, so one
 * participant's events, claims and redemptions apply one after the other and
 * none loses another's update; null when no participant matches.
 *
 * PostgreSQL: `SELECT … FOR UPDATE`. SQLite has no row locks: inside one
 * process the single pooled connection already runs transactions one at a
 * time, but knex begins them DEFERRED, and a transaction that reads first and
 * writes later fails with SQLITE_BUSY, without waiting, when another process
 * on the same file (a worker) wrote in between. Writing first takes the
 * database's write lock at once and waits for it under busy_timeout, as
 * `BEGIN IMMEDIATE` would.
 */
export async function lockParticipant(em: SqlEntityManager, dialect: Dialect, where: FilterQuery<Participant>): Promise<Participant | null> {
  const [participant] = await lockParticipants(em, dialect, where);
  return participant ?? null;
}

/**
 * lockParticipant by external id on the driver (events/participant-locks.ts):
 * one prepared statement and a plain snapshot instead of an ORM query and
 * entity, for the participant's own claims, which read only its columns.
 */
export async function lockParticipantByExternalId(em: SqlEntityManager, scope: Scope, externalId: string): Promise<ParticipantSnapshot | null> {
  const locked = await lockByExternalId(await hotStore(em), scope, [externalId]);
  return locked.get(externalId) ?? null;
}

/**
 * Locks every participant row matching `where` (see lockParticipant), in id
 * order: two transactions locking overlapping sets take the shared rows in
 * the same order, so neither holds one the other waits for.
 */
export async function lockParticipants(em: SqlEntityManager, dialect: Dialect, where: FilterQuery<Participant>): Promise<Participant[]> {
  if (dialect === "sqlite") {
    await em.createQueryBuilder(Participant).update({ updatedAt: raw("updated_at") }).where(where).execute();
    return em.find(Participant, where);
  }
  return em.find(Participant, where, { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: "asc" } });
}

/** The participant's columns the engine reads and an evaluation moves; a locked row, or its state carried in memory between the events of a batch. */
export type ParticipantSnapshot = Pick<
  Participant,
  "id" | "externalId" | "xp" | "level" | "tierCode" | "tags" | "eventCounts" | "peakMonth" | "peakLevel" | "priorMonthPeakLevel"
> & Partial<Pick<Participant, "displayName" | "email" | "phone">>;

/** A plain copy of the row's snapshot columns: changing it never touches the ORM's tracked entity. */
export function participantSnapshot(row: ParticipantSnapshot): ParticipantSnapshot {
  const { id, externalId, xp, level, tierCode, tags, eventCounts, peakMonth, peakLevel, priorMonthPeakLevel, displayName, email, phone } = row;
  return { id, externalId, xp, level, tierCode, tags, eventCounts, peakMonth, peakLevel, priorMonthPeakLevel, displayName, email, phone };
}

/** The participant's tier as the engine's state holds it: the stored one, or (never stored yet) the one of its level. */
export function storedTierCode(participant: ParticipantSnapshot, config: ClubConfig): string {
  return participant.tierCode ?? tierForLevel(config.progression.tiers, participant.level).code;
}

/**
 * What the engine needs to know about the participant, read inside the
 * transaction that holds the participant's lock: for evaluating `event`, or
 * without one for a claim, a redemption or a view of missions and the store.
 *
 * Only what the engine will consult is read; the rest is left empty:
 * - for an event, the rules it triggers decide: badges only when one grants a
 *   badge (a badge held is not granted again), lots only when one debits (a
 *   debit spends lots), missions only those the event or a rule can advance;
 *   without an event, lots and every mission, but no badges (claims and
 *   redemptions grant rewards, never badges);
 * - rule counters only for the rules the event triggers, and only those a
 *   limit of the rule looks at: the dedupe key the event resolves to, the run
 *   total and last run for `max_runs_per_participant`/`cooldown_seconds`, and
 *   today's runs and grants for `per_participant_per_day` (the engine's
 *   updates of the others are not stored either: see gatherRuleRuns);
 * - missions in their current period only, since the engine starts any other
 *   period over.
 */
export async function loadParticipantState(
  em: SqlEntityManager,
  participant: ParticipantSnapshot,
  config: ClubConfig,
  at: { now: Date; timeZone: string; event?: EngineEvent },
): Promise<ParticipantState> {
  const [state] = await loadStates(em, [participant], config, at, at.event ? [[at.event]] : null);
  return state;
}

/**
 * The states for evaluating events of several participants, each
 * participant's one after the other (a batch): what any of the events needs,
 * read with one query per kind for all of them, as `loadParticipantState`
 * reads it for one event (the union of their rules, missions and dedupe
 * keys). `events[i]` are the events of `participants[i]`. The caller carries
 * each state forward from one event to the next.
 */
export async function loadStatesForEvents(
  em: SqlEntityManager,
  participants: ParticipantSnapshot[],
  config: ClubConfig,
  at: { now: Date; timeZone: string },
  events: EngineEvent[][],
): Promise<ParticipantState[]> {
  return loadStates(em, participants, config, at, events);
}

/** `events` null: the states for a claim or a redemption. */
async function loadStates(
  em: SqlEntityManager,
  participants: ParticipantSnapshot[],
  config: ClubConfig,
  at: { now: Date; timeZone: string },
  events: EngineEvent[][] | null,
): Promise<ParticipantState[]> {
  const all = events?.flat() ?? null;
  const types = new Set(all?.map((event) => event.type));
  const triggered = config.rules.filter((rule) => rule.enabled && types.has(rule.trigger.event));
  const effectTypes = new Set(triggered.flatMap((rule) => rule.effects.map((effect) => effect.type)));
  const missionIds = all ? advanceableMissions(config, types, triggered) : new Set(config.missions.map((mission) => mission.id));
  const ids = participants.map((participant) => participant.id);
  // A view of missions or the store may come without a transaction; the driver's statements run in one.
  if (!em.getTransactionContext()) return em.transactional((trx) => loadStates(trx, participants, config, at, events));
  const store = await hotStore(em);
  // Issued together: on PostgreSQL they share one round trip (see HotStore.select).
  const [balances, lots, badges, missions, ruleRuns] = await Promise.all([
    loadBalancesOf(store, ids),
    !all || effectTypes.has("debit_currency") ? loadLots(store, ids, config) : new Map<string, Lot[]>(),
    effectTypes.has("grant_badge") ? loadBadges(store, ids) : new Map<string, string[]>(),
    loadMissions(store, ids, config.missions.filter((mission) => missionIds.has(mission.id)), at.now, at.timeZone),
    events ? loadRuleRuns(store, participants.map((participant, i) => ({ participantId: participant.id, events: events[i] })), triggered, at) : null,
  ]);
  // One literal per participant, no second object merged in (once per participant of a batch); keys in the order
  // stateAfter (carried-state.ts) builds the states after each event, so every state of a batch has one shape. What
  // nothing was read for is the one shared empty record or list.
  return participants.map((participant): ParticipantState => {
    const { id } = participant;
    return {
      xp: participant.xp,
      level: participant.level,
      tierCode: storedTierCode(participant, config),
      tags: participant.tags,
      eventCountsBefore: participant.eventCounts,
      peakLevel: storedPeakLevel(participant),
      balances: balances.get(id) ?? (NO_RECORD as Record<string, number>),
      lots: lots.get(id) ?? NO_LIST,
      badges: badges.get(id) ?? NO_LIST,
      ruleRuns: ruleRuns?.get(id) ?? (NO_RECORD as Record<string, RuleRunState>),
      missions: missions.get(id) ?? (NO_RECORD as Record<string, MissionState>),
    };
  });
}

/**
 * The state of a participant for a view (missions, the store), from rows read
 * without a lock (db/hot/participant-reads.ts): no lots, badges or rule runs,
 * which no view consults.
 */
export function viewedState(participant: ParticipantSnapshot, config: ClubConfig, balances: Balances, missions: Record<string, MissionState>): ParticipantState {
  return {
    xp: participant.xp,
    level: participant.level,
    tierCode: storedTierCode(participant, config),
    tags: participant.tags,
    eventCountsBefore: participant.eventCounts,
    peakLevel: storedPeakLevel(participant),
    balances,
    lots: NO_LIST,
    badges: NO_LIST,
    ruleRuns: NO_RECORD as Record<string, RuleRunState>,
    missions,
  };
}

/**
 * The empty record and list of a loaded state without rows of a kind: states
 * are read, never changed in place (the engine and carried-state.ts build new
 * ones), so every participant of a batch shares these (frozen: a write would throw).
 */
const NO_RECORD: Readonly<Record<string, never>> = Object.freeze({});
const NO_LIST = Object.freeze([]) as unknown as never[];

/** The missions events of `types` can move: those listening to one of them, and those their triggered rules advance. */
function advanceableMissions(config: ClubConfig, types: Set<string>, triggered: RuleConfig[]): Set<string> {
  const ids = new Set(config.missions.filter((mission) => types.has(mission.event)).map((mission) => mission.id));
  for (const rule of triggered) {
    for (const effect of rule.effects) if (effect.type === "progress_mission") ids.add(effect.mission);
  }
  return ids;
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

/*
 * The state reads below run on the driver (db/hot): plain rows, no entity
 * hydration. Bigint columns come back as numeric strings from PostgreSQL and
 * datetimes as epoch milliseconds from SQLite, hence Number() and new Date().
 */

/** Each participant's balances by currency code, in minor units. */
async function loadBalancesOf(store: HotStore, participantIds: string[]): Promise<Map<string, Balances>> {
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

async function loadBadges(store: HotStore, participantIds: string[]): Promise<Map<string, string[]>> {
  const rows = await store.select<{ participant_id: string; badge_code: string }>(
    bothDialects((inList) => `select participant_id, badge_code from badges where ${inList("participant_id")}`),
    [participantIds],
  );
  return byParticipant(rows.map((row) => ({ participantId: row.participant_id, badgeCode: row.badge_code })), (row) => row.badgeCode);
}

/** Unspent lots of the currencies that expire (only those are credited as lots); the engine spends them oldest expiry first. */
async function loadLots(store: HotStore, participantIds: string[], config: ClubConfig): Promise<Map<string, Lot[]>> {
  const expiring = config.currencies.filter((currency) => currency.expiresInDays !== null).map((currency) => currency.code);
  if (expiring.length === 0) return new Map();
  const rows = await store.select<{ id: string; participant_id: string; currency: string; remaining: number | string; created_at: Date | number; expires_at: Date | number }>(
    bothDialects((inList) => `select id, participant_id, currency, remaining, created_at, expires_at from currency_lots
      where ${inList("participant_id")} and ${inList("currency")} and remaining > 0 and expires_at is not null order by expires_at, id`),
    [participantIds, expiring],
  );
  return byParticipant(rows.map((row) => ({ ...row, participantId: row.participant_id })), (row) => ({
    id: row.id,
    currency: row.currency,
    remaining: Number(row.remaining),
    grantedAt: new Date(row.created_at).toISOString(),
    expiresAt: new Date(row.expires_at).toISOString(),
  }));
}

/**
 * The participants' progress in the missions' current periods. SQLite probes
 * the unique (participant, mission, period) index once per participant and
 * (mission, current period) pair, in that join order (CROSS JOIN): with three
 * IN lists it probed every mission with every period key in use (the demo's 6
 * missions × 4 periods: 12,000 probes per 500 participants for 3,000 rows that
 * can match; the read, ~2 ms of a stored batch, took ~20 % less, A/B on the
 * same data). The pairs as one JSON object
 * (mission id → period key): json_each hands both out as columns, where an
 * array of pairs would be parsed again (`->>`) for every probe. The pairs are
 * read into a materialized CTE once: as a second json_each, the object was
 * parsed again for every participant (the read took 1.4-1.6 → 1.2-1.3 ms per
 * 500 participants, alternated on the same data). Parameters are numbered:
 * the CTE, first in the text, reads the second.
 * Tried and kept out: probing only the pairs each participant's own events
 * can move (850 of the 2,500 probes of a batch of the bench's mix), bound as
 * one object participant → mission → period read by two json_each: SQLite's
 * share 1.26 → 0.99 ms per batch (44 stored batches replayed,
 * test/micro/sqlite-replay.c), but the whole call, building and binding that
 * object, 3.3-4.0 → 3.4-4.2 ms CPU (3 alternated pairs of batch-costs.ts).
 */
const MISSION_PROGRESS = {
  postgresql: bothDialects((inList) => `select participant_id, mission_id, period_key, progress, completed_at, claimed_at from mission_progress
      where ${inList("participant_id")} and ${inList("mission_id")} and ${inList("period_key")}`).postgresql,
  sqlite: `with k(mission_id, period_key) as materialized (select key, value from json_each(?2))
      select m.participant_id, m.mission_id, m.period_key, m.progress, m.completed_at, m.claimed_at
      from json_each(?1) as p cross join k cross join mission_progress as m
      where m.participant_id = p.value and m.mission_id = k.mission_id and m.period_key = k.period_key`,
};

async function loadMissions(
  store: HotStore,
  participantIds: string[],
  missions: MissionConfig[],
  now: Date,
  timeZone: string,
): Promise<Map<string, Record<string, MissionState>>> {
  const states = new Map<string, Record<string, MissionState>>();
  if (missions.length === 0) return states;
  const currentKey = new Map(missions.map((mission) => [mission.id, periodKey(mission.period, now, timeZone)]));
  const rows = await store.select<{ participant_id: string; mission_id: string; period_key: string; progress: number; completed_at: unknown; claimed_at: unknown }>(
    MISSION_PROGRESS,
    store.dialect === "sqlite"
      ? [participantIds, JSON.stringify(Object.fromEntries(currentKey))]
      : [participantIds, [...currentKey.keys()], [...new Set(currentKey.values())]],
  );
  for (const row of rows) {
    if (currentKey.get(row.mission_id) !== row.period_key) continue;
    if (!states.has(row.participant_id)) states.set(row.participant_id, {});
    states.get(row.participant_id)![row.mission_id] = {
      periodKey: row.period_key, progress: Number(row.progress), completed: row.completed_at !== null, claimed: row.claimed_at !== null,
    };
  }
  return states;
}

/** RuleDedupeKey.dedupeKey holds at most 200 characters. */
const DEDUPE_KEY_MAX = 200;

/**
 * A dedupe key as stored: the value itself, or its SHA-256 when longer than
 * the column (a rule may key on any event field, such as a long `meta` value).
 */
function storedDedupeKey(key: string): string {
  return key.length <= DEDUPE_KEY_MAX ? key : `sha256:${createHash("sha256").update(key).digest("hex")}`;
}

interface RunCounters {
  participant_id: string;
  rule_id: string;
  total: number | string;
  last_run_at: Date | string | number;
  today_runs: number | string;
  [granted: `granted_${number}`]: number | string;
}

/**
 * The counters of the triggered rules, per participant, read so that every
 * query stays bounded however long the participants have played: dedupe keys
 * by exact lookup; then one aggregate over only the days a limit needs (a
 * row per participant, rule and day it ran): all of a rule with
 * `max_runs_per_participant` (never more than that many), those since the
 * cooldown window opened for `cooldown_seconds`, today's for
 * `per_participant_per_day` (summed per unit in SQL).
 */
async function loadRuleRuns(
  store: HotStore,
  participants: { participantId: string; events: EngineEvent[] }[],
  triggered: RuleConfig[],
  at: { now: Date; timeZone: string },
): Promise<Map<string, Record<string, RuleRunState>>> {
  const today = dayKey(at.now, at.timeZone);
  /*
   * Only the rules with stored runs or fired keys get counters: a rule
   * without any reads as never run (the engine's currentRunState), and a
   * batch would otherwise build four objects per participant and triggered
   * rule (≈ 16,000 per batch of 500) that nothing reads.
   */
  const states = new Map<string, Record<string, RuleRunState>>();
  for (const { participantId } of participants) states.set(participantId, {});
  const counters = (participantId: string, ruleId: string): RuleRunState => {
    const runs = states.get(participantId)!;
    return (runs[ruleId] ??= { total: 0, lastRunAt: null, today: { dayKey: today, runs: 0, granted: {} }, dedupeKeys: [] });
  };
  // Issued before awaiting: both reads share a round trip (see HotStore.select).
  const fired = firedDedupeKeys(store, participants, triggered);
  fired.catch(() => undefined); // awaited below; a failure of the shared round trip is thrown by the counters first
  const recordFired = async () => {
    for (const { participantId, ruleId, key } of await fired) counters(participantId, ruleId).dedupeKeys.push(key);
  };

  // Each rule's runs a limit needs: its id, and the first day key of its window (none: all its runs); and its trigger.
  const windows = triggered.flatMap((rule) => {
    const { max_runs_per_participant: maxRuns, cooldown_seconds: cooldown, per_participant_per_day: perDay } = rule.limits;
    if (maxRuns !== undefined) return [{ event: rule.trigger.event, params: [rule.id] }];
    const since = [
      ...(cooldown !== undefined ? [dayKey(new Date(at.now.getTime() - cooldown * 1000), at.timeZone)] : []),
      ...(perDay !== undefined ? [today] : []),
    ];
    // Day keys are "YYYY-MM-DD", so text order is time order.
    return since.length === 0 ? [] : [{ event: rule.trigger.event, params: [rule.id, since.sort()[0]] }];
  });
  if (windows.length === 0) {
    await recordFired();
    return states;
  }
  const units = [...new Set(triggered.flatMap((rule) => Object.keys(rule.limits.per_participant_per_day ?? {}).filter((unit) => unit !== "runs")))];
  const rows = await store.select<RunCounters>(
    { postgresql: postgresCounters(units.length), sqlite: sqliteCounters(units.length) },
    [today, ...units.flatMap((unit) => [today, unit]), ...boundProbes(store.dialect, counterProbes(participants, windows))],
  );
  await recordFired();
  const grantedColumns = units.map((_, i) => `granted_${i}` as const);
  // Runs of one batch share their run_at: each instant read is normalized once, by its value (PostgreSQL's driver
  // hands each row a Date of its own, which as a key would never be found again).
  const isoTexts = new Map<number | string, string>();
  for (const row of rows) {
    const state = counters(row.participant_id, row.rule_id);
    // Aggregates come back as numbers or numeric strings; SQLite keeps datetimes as epoch milliseconds.
    state.total = Number(row.total);
    const instant = row.last_run_at instanceof Date ? row.last_run_at.getTime() : row.last_run_at;
    let lastRunAt = isoTexts.get(instant);
    if (lastRunAt === undefined) isoTexts.set(instant, (lastRunAt = new Date(instant).toISOString()));
    state.lastRunAt = lastRunAt;
    state.today.runs = Number(row.today_runs);
    for (let i = 0; i < units.length; i++) {
      const granted = Number(row[grantedColumns[i]]);
      if (granted !== 0) state.today.granted[units[i]] = granted;
    }
  }
  return states;
}

/**
 * The stored (participant, rule, dedupe key) triples among those bound: one
 * probe of rule_dedupe_keys' primary key per triple, all three columns equal.
 * PostgreSQL: a lateral subquery the planner may not flatten (`offset 0`, as
 * in db/hot/scoped-reads.ts): as a join, statistics of a table analysed
 * nearly empty had it hash the whole table for every batch (a seq scan
 * growing with the table; test/db/query-plans.test.ts). SQLite: the bound
 * triples first (CROSS JOIN), each one primary-key probe.
 */
export const FIRED_DEDUPE_KEYS = {
  postgresql: `select x.participant_id, x.rule_id, x.dedupe_key from unnest(?::text[], ?::text[], ?::text[]) as w(participant_id, rule_id, dedupe_key)
    cross join lateral (select participant_id, rule_id, dedupe_key from rule_dedupe_keys
      where rule_id = w.rule_id and dedupe_key = w.dedupe_key and participant_id = w.participant_id offset 0) as x`,
  // The triples bound as one JSON array of [participant, rule, key].
  sqlite: `select k.participant_id, k.rule_id, k.dedupe_key from json_each(?) as w
    cross join rule_dedupe_keys as k on k.rule_id = w.value ->> 1 and k.dedupe_key = w.value ->> 2 and k.participant_id = w.value ->> 0`,
};

/**
 * loadRuleRuns' aggregate on PostgreSQL: per (participant, rule, first day)
 * probe (counterProbes), one aggregate over one range of rule_run_days'
 * primary key (participant_id, rule_id, day_key), a lateral subquery: a row
 * per day the rule ran, so a probe reads today's row (per-day limits), the
 * days since the cooldown window opened, or every day (a total limit: never
 * more rows than the limit), however many runs those days hold. Parameters:
 * today, (today, unit) per unit — as loadRuleRuns binds them, hence the first
 * FROM item holding them — then the probes' three columns. Written as a
 * participant list and an OR of windows grouped afterwards, it was planned on
 * the statistics of tables analysed nearly empty (nothing analyses them while
 * `clube serve` runs without a worker) as a scan of the whole table. Probes
 * without rows are left out, as a GROUP BY leaves them.
 */
export function postgresCounters(unitCount: number): string {
  const units = Array.from({ length: unitCount }, (_, i) => `, ?::text as day_${i}, ?::text as unit_${i}`).join("");
  const sums = Array.from({ length: unitCount }, (_, i) => `, sum(case when day_key = k.day_${i} then coalesce(cast(amounts ->> k.unit_${i} as bigint), 0) else 0 end) as granted_${i}`).join("");
  return `select w.participant_id, w.rule_id, r.*
    from (select ?::text as today${units}) as k cross join unnest(?::text[], ?::text[], ?::text[]) as w(participant_id, rule_id, since)
    cross join lateral (select sum(runs) as total, max(last_run_at) as last_run_at, sum(case when day_key = k.today then runs else 0 end) as today_runs${sums}
      from rule_run_days where participant_id = w.participant_id and rule_id = w.rule_id and day_key >= w.since) as r
    where r.total > 0`;
}

/**
 * postgresCounters' probes as three columns (participants, rules, first day
 * keys; "" for a rule's total, before every day key): a participant's limit
 * windows of the rules its own events trigger, the only counters its
 * evaluations read (a rule runs on events of its trigger type), instead of
 * every window for every participant.
 */
export function counterProbes(participants: { participantId: string; events: EngineEvent[] }[], windows: { event: string; params: unknown[] }[]): string[][] {
  const columns: string[][] = [[], [], []];
  for (const { participantId, events } of participants) {
    for (const { event, params } of windows) {
      if (!events.some((e) => e.type === event)) continue;
      columns[0].push(participantId);
      columns[1].push(params[0] as string);
      columns[2].push(params.length === 2 ? (params[1] as string) : "");
    }
  }
  return columns;
}

/**
 * counterProbes as loadRuleRuns binds them: three array parameters on
 * PostgreSQL (postgresCounters' unnest), one JSON array of [participant,
 * rule, first day] triples on SQLite (sqliteCounters' json_each).
 */
function boundProbes(dialect: Dialect, [participantIds, ruleIds, since]: string[][]): unknown[] {
  if (dialect === "postgresql") return [participantIds, ruleIds, since];
  const triples = new Array<[string, string, string]>(participantIds.length);
  for (let i = 0; i < triples.length; i++) triples[i] = [participantIds[i], ruleIds[i], since[i]];
  return [JSON.stringify(triples)];
}

/**
 * loadRuleRuns' aggregate on SQLite: one range probe of rule_run_days'
 * primary key (participant_id, rule_id, day_key) per probe of counterProbes —
 * a participant's limit windows of the rules its own events trigger — bound
 * as one JSON array of [participant, rule, first day] triples ("" for a
 * rule's total, before every day key): a row per day the rule ran (see
 * postgresCounters). Parameters are numbered (?N) because they come in
 * loadRuleRuns' order: today, (today, unit) per unit, then the triples. The
 * CROSS JOIN keeps the triples first, so that each is one index probe.
 */
export function sqliteCounters(unitCount: number): string {
  const sums = Array.from({ length: unitCount }, (_, i) => `, sum(case when r.day_key = ?${2 + 2 * i} then coalesce(cast(r.amounts ->> ?${3 + 2 * i} as integer), 0) else 0 end) as granted_${i}`);
  return `select r.participant_id, r.rule_id, sum(r.runs) as total, max(r.last_run_at) as last_run_at, sum(case when r.day_key = ?1 then r.runs else 0 end) as today_runs${sums.join("")}
    from json_each(?${2 + 2 * unitCount}) as w cross join rule_run_days as r
    where r.participant_id = w.value ->> 0 and r.rule_id = w.value ->> 1 and r.day_key >= w.value ->> 2
    group by r.participant_id, r.rule_id`;
}

/**
 * The dedupe keys the events resolve to (for the rules each triggers) that
 * their participant's rules already fired for: the wanted (participant,
 * rule, stored key) triples joined to the primary key in one statement, a
 * probe per triple (lists per column would probe every combination of them).
 */
async function firedDedupeKeys(
  store: HotStore,
  participants: { participantId: string; events: EngineEvent[] }[],
  triggered: RuleConfig[],
): Promise<{ participantId: string; ruleId: string; key: string }[]> {
  // The wanted triples as three columns. A triple asked twice (two events of a participant with one key) is read
  // twice, and its key recorded twice, which the engine's "already fired" check does not mind.
  const participantIds: string[] = [];
  const ruleIds: string[] = [];
  const storedKeys: string[] = [];
  // Keys stored as their hash (longer than the column), by that hash: the engine compares the key itself.
  const hashed = new Map<string, string>();
  for (const { participantId, events } of participants) {
    for (const event of events) {
      for (const rule of triggered) {
        const key = rule.trigger.event === event.type ? dedupeKey(rule, event) : null;
        if (key === null) continue;
        const stored = storedDedupeKey(key);
        if (stored !== key) hashed.set(stored, key);
        participantIds.push(participantId);
        ruleIds.push(rule.id);
        storedKeys.push(stored);
      }
    }
  }
  if (participantIds.length === 0) return [];
  const seen = await store.select<{ participant_id: string; rule_id: string; dedupe_key: string }>(
    FIRED_DEDUPE_KEYS,
    store.dialect === "postgresql" ? [participantIds, ruleIds, storedKeys] : [participantIds.map((id, i) => [id, ruleIds[i], storedKeys[i]])],
  );
  return seen.map((run) => ({ participantId: run.participant_id, ruleId: run.rule_id, key: hashed.get(run.dedupe_key) ?? run.dedupe_key }));
}

type Schemas = components["schemas"];
export type WebhookParticipant = Schemas["WebhookParticipant"];

/** What an evaluation is about, for the rows that record it. */
export interface EvaluationTarget {
  scope: Scope;
  config: ClubConfig;
  /** The participant as the evaluation found it (the locked row, or its state carried in memory). */
  participant: ParticipantSnapshot;
  /** The state the evaluation started from: XP and balances before it. */
  state: ParticipantState;
  now: Date;
  /** The base URL of the confirm/fail links in `reward.delivery_requested`. */
  publicUrl: string;
  /** The stored event evaluated; null for a claim or a redemption. */
  event: { id: string; type: string } | null;
}

/** Where an evaluation's delta is written and what it is about. */
export interface PersistTarget extends EvaluationTarget {
  /** The transaction holding the participant's lock. */
  em: SqlEntityManager;
}

export function webhookParticipant(participant: Pick<Participant, "id" | "externalId">): WebhookParticipant {
  return { id: participant.id, external_id: participant.externalId };
}

/**
 * Where a reward came from, as `source` says it: `rule:<id>` for a configured
 * rule; the engine's other attributions (`mission:<id>`, `redemption:<code>`,
 * `checkin:<day>`…) are already in that form.
 */
export function rewardSource(config: ClubConfig, ruleId: string): string {
  return config.rules.some((rule) => rule.id === ruleId) ? `rule:${ruleId}` : ruleId;
}

/**
 * Writes an evaluation's delta in the target's transaction: the participant's
 * XP, level, tier, tags and event counts; a ledger row per XP/currency change
 * (balances added to atomically); lots spent and credited; the rules that
 * fired (dedupe keys, limited rules' days: gatherRuleRuns); mission progress; rewards with a pending delivery for each
 * `client_delivered` one; badges; leaderboard points; notifications; and the
 * outbox webhooks announcing all of it. Returns the effects with `reward_id`
 * and `delivery_id` filled into each `reward_granted`.
 */
export async function persistEvaluation(target: PersistTarget, evaluation: Evaluation): Promise<ApiEffect[]> {
  const writes = new PendingWrites();
  const { effects } = gatherEvaluation(writes, target, evaluation);
  await writes.flush(target.em);
  return effects;
}

/** What gathering an evaluation's writes gives back. */
export interface GatheredEvaluation {
  /** The effects, with `reward_id` and `delivery_id` filled into each `reward_granted`. */
  effects: ApiEffect[];
  /** The participant's columns after the evaluation. */
  participant: ParticipantSnapshot;
  /** The lots it credited, under the ids they are written with. */
  lotsCreated: Lot[];
}

/**
 * Adds the rows and increments of an evaluation's delta to `writes` (see
 * persistEvaluation for what they are), without I/O, so one participant's
 * evaluations in a row can be written together.
 */
export function gatherEvaluation(writes: PendingWrites, target: EvaluationTarget, evaluation: Evaluation): GatheredEvaluation {
  const { delta } = evaluation;
  // A new list only when there are rewards to fill in (only their effects are copied; the others are never changed
  // after the engine): the evaluation's own list otherwise, which nothing else changes either.
  const effects = delta.rewards.length === 0 ? evaluation.effects : evaluation.effects.slice();
  // Most events grant no reward: no new empty list for them.
  const rewards: GrantedReward[] = delta.rewards.length === 0
    ? NO_LIST
    : delta.rewards.map((grant) => ({ grant, rewardId: newId("rwd"), deliveryId: grant.delivery ? newId("dlv") : null }));
  for (let r = 0; r < rewards.length; r++) {
    const { grant, rewardId, deliveryId } = rewards[r];
    const effect = effects[grant.effectIndex];
    if (effect.type !== "reward_granted") throw new Error(`effect ${grant.effectIndex} is ${effect.type}, not the reward_granted of ${grant.rewardCode}`);
    // Object.assign, not a spread adding keys: see test/micro/object-spread.ts.
    effects[grant.effectIndex] = Object.assign({}, effect, deliveryId === null ? { reward_id: rewardId } : { reward_id: rewardId, delivery_id: deliveryId });
  }
  const participant = updateParticipant(writes, target, delta);
  gatherLedger(writes, target, delta);
  const lotsCreated = gatherLots(writes, target, delta);
  gatherRuleRuns(writes, target, delta);
  gatherMissions(writes, target, delta);
  gatherRewards(writes, target, rewards);
  gatherAchievements(writes, target, delta);
  const messages = notifyMessages(target.config, participant, delta);
  const texts = notificationsFor(target.config, participant, effects, messages);
  if (texts.length > 0) writes.notifications.push(...notificationRows(target.scope, target.participant.id, texts, target.now));
  gatherWebhooks(writes, target, effects, delta, rewards);
  if (messages.length > 0) gatherMessageRequests(writes, target, participant, messages);
  return { effects, participant, lotsCreated };
}

/** Sets the participant's columns after the delta; returns them. */
function updateParticipant(writes: PendingWrites, { participant, now }: EvaluationTarget, delta: StateDelta): ParticipantSnapshot {
  // Object.assign, not a spread: a new event type adds a key (see test/micro/object-spread.ts).
  const eventCounts: Record<string, number> = Object.assign({}, participant.eventCounts);
  for (const type in delta.eventCounts) eventCounts[type] = (eventCounts[type] ?? 0) + delta.eventCounts[type];
  const tags = delta.tagsAdded.length === 0 ? participant.tags : [...participant.tags, ...delta.tagsAdded.map((added) => added.tag)];
  // The monthly tier review's record of the highest levels, moved when the level does.
  const peak = delta.level !== participant.level ? peakColumnsAfter(participant, delta.peakLevel) : null;
  // Built field by field, not with spreads and a rest pattern (once per event; see test/micro/object-spread.ts).
  const changes: ParticipantChanges = peak === null
    ? { level: delta.level, tierCode: delta.tierCode, tags, eventCounts, updatedAt: now }
    : { level: delta.level, tierCode: delta.tierCode, tags, eventCounts, peakMonth: peak.peakMonth, peakLevel: peak.peakLevel, priorMonthPeakLevel: peak.priorMonthPeakLevel, updatedAt: now };
  writes.updateParticipant(participant.id, delta.xp, changes);
  // The participant's columns after the event: one literal in participantSnapshot's key order (once per event;
  // a copy then overwritten wrote 13 keys to set 8).
  return {
    id: participant.id,
    externalId: participant.externalId,
    xp: participant.xp + delta.xp,
    level: delta.level,
    tierCode: delta.tierCode,
    tags,
    eventCounts,
    peakMonth: peak === null ? participant.peakMonth : peak.peakMonth,
    peakLevel: peak === null ? participant.peakLevel : peak.peakLevel,
    priorMonthPeakLevel: peak === null ? participant.priorMonthPeakLevel : peak.priorMonthPeakLevel,
    displayName: participant.displayName,
    email: participant.email,
    phone: participant.phone,
  };
}

/** Ledger rows with the running balance after each, and the balance rows moved by the net change. */
function gatherLedger(writes: PendingWrites, { scope, participant, state, now, event }: EvaluationTarget, delta: StateDelta): void {
  const { ledger } = delta;
  if (ledger.length === 0) return;
  for (let i = 0; i < ledger.length; i++) {
    const line = ledger[i];
    writes.ledger.push({
      id: newTimeOrderedId("led"), clubId: scope.clubId, env: scope.env, participantId: participant.id, unit: line.unit, delta: line.delta,
      balanceAfter: balanceAfterLine(state, ledger, i), reason: line.reason, ruleId: line.ruleId, eventId: event?.id ?? null, createdAt: now,
    });
  }
  for (const currency in delta.balances) {
    const amount = delta.balances[currency];
    if (amount !== 0) writes.addToBalance({ id: newId("bal"), clubId: scope.clubId, env: scope.env, participantId: participant.id, currency, amount, updatedAt: now });
  }
}

/**
 * The balance of `ledger[index]`'s unit after that line: the state's (XP or
 * the currency's) plus the lines of that unit up to it. An event's ledger
 * has a line or three: adding them up again costs less than a running
 * copy of the balances per event.
 */
function balanceAfterLine(state: ParticipantState, ledger: StateDelta["ledger"], index: number): number {
  const { unit } = ledger[index];
  let balance = unit === "xp" ? state.xp : (state.balances[unit] ?? 0);
  for (let i = 0; i <= index; i++) if (ledger[i].unit === unit) balance += ledger[i].delta;
  return balance;
}

function gatherLots(writes: PendingWrites, { scope, participant }: EvaluationTarget, delta: StateDelta): Lot[] {
  // Index loops over the delta's lists here and below: most are the engine's shared frozen empty list, and a for…of
  // over frozen and ordinary arrays at one site iterates generically, allocating a result per step.
  const { lotsConsumed } = delta;
  for (let i = 0; i < lotsConsumed.length; i++) writes.spendLot(lotsConsumed[i].lotId, lotsConsumed[i].amount);
  return delta.lotsCreated.map((lot) => {
    const id = newId("lot");
    writes.lots.push({
      id, ...scope, participantId: participant.id, currency: lot.currency, granted: lot.amount, remaining: lot.amount,
      expiresAt: new Date(lot.expiresAt), createdAt: new Date(lot.grantedAt),
    });
    return { id, currency: lot.currency, remaining: lot.amount, grantedAt: lot.grantedAt, expiresAt: lot.expiresAt };
  });
}

/** The rules of a configuration whose runs a limit reads back (loadRuleRuns), by configuration. */
const limitedRules = new WeakMap<ClubConfig, Set<string>>();
function rulesWithLimits(config: ClubConfig): Set<string> {
  let ids = limitedRules.get(config);
  if (!ids) {
    const limited = config.rules.filter(({ limits }) => limits.max_runs_per_participant !== undefined || limits.cooldown_seconds !== undefined || limits.per_participant_per_day !== undefined);
    limitedRules.set(config, (ids = new Set(limited.map((rule) => rule.id))));
  }
  return ids;
}

/**
 * Each rule that fired, where something reads it back: its dedupe key (a row
 * per key), and for a rule with a limit, the run and what it granted per unit
 * (its own XP and currency grants in the ledger; the daily caps add these up)
 * added to its day (PendingWrites.addRuleRun). Other runs are stored nowhere:
 * nothing reads them.
 */
function gatherRuleRuns(writes: PendingWrites, { scope, config, participant, now, event }: EvaluationTarget, delta: StateDelta): void {
  const limited = rulesWithLimits(config);
  // for…in, not Object.entries: no pair arrays per event.
  for (const ruleId in delta.ruleRuns) {
    const run = delta.ruleRuns[ruleId];
    if (run.dedupeKey !== null) {
      writes.dedupeKeys.push({
        ruleId, dedupeKey: storedDedupeKey(run.dedupeKey), participantId: participant.id, clubId: scope.clubId, env: scope.env, eventId: event?.id ?? null, firedAt: now,
      });
    }
    if (!limited.has(ruleId)) continue;
    const amounts: Record<string, number> = {};
    for (let i = 0; i < delta.ledger.length; i++) {
      const line = delta.ledger[i];
      if (line.ruleId === ruleId && (line.reason === "grant_xp" || line.reason === "grant_currency")) amounts[line.unit] = (amounts[line.unit] ?? 0) + line.delta;
    }
    writes.addRuleRun({ participantId: participant.id, ruleId, dayKey: run.today.dayKey, clubId: scope.clubId, env: scope.env, amounts, lastRunAt: now });
  }
}

/** Progress of each mission that moved; the first completion and claim times are kept. */
function gatherMissions(writes: PendingWrites, { scope, participant, now }: EvaluationTarget, delta: StateDelta): void {
  for (const missionId in delta.missions) {
    const next = delta.missions[missionId];
    writes.setMission({
      id: newId("msp"), clubId: scope.clubId, env: scope.env, participantId: participant.id, missionId, periodKey: next.periodKey, progress: next.progress,
      completedAt: next.completed ? now : null, claimedAt: next.claimed ? now : null, updatedAt: now,
    });
  }
}

interface GrantedReward {
  grant: RewardGrant;
  rewardId: string;
  deliveryId: string | null;
}

function gatherRewards(writes: PendingWrites, { scope, config, participant, now }: EvaluationTarget, rewards: GrantedReward[]): void {
  for (let r = 0; r < rewards.length; r++) {
    const { grant, rewardId, deliveryId } = rewards[r];
    writes.rewards.push({
      id: rewardId, ...scope, participantId: participant.id, rewardCode: grant.rewardCode, type: grant.type,
      status: deliveryId === null ? "granted" : "pending", source: rewardSource(config, grant.ruleId), deliveryId,
      grantedAt: now, expiresAt: grant.expiresAt === null ? null : new Date(grant.expiresAt),
    });
    if (deliveryId === null) continue;
    writes.deliveries.push({
      id: deliveryId, ...scope, participantId: participant.id, participantRewardId: rewardId, rewardCode: grant.rewardCode,
      kind: grant.type as DeliveryKind, status: "pending", payload: (grant.payload ?? {}) as Record<string, unknown>, createdAt: now,
    });
  }
}

/**
 * Leaderboard points are stored in hundredths of a point, so sums of
 * amounts with cents stay exact in the integer column; points with more
 * decimals are truncated to the hundredth.
 */
export const LEADERBOARD_POINT_DECIMALS = 2;

export function storedPoints(points: number): number {
  return toMinorUnits(points, LEADERBOARD_POINT_DECIMALS);
}

export function pointsOf(stored: number): number {
  return fromMinorUnits(stored, LEADERBOARD_POINT_DECIMALS);
}

function gatherAchievements(writes: PendingWrites, { scope, participant, now }: EvaluationTarget, delta: StateDelta): void {
  for (let i = 0; i < delta.badges.length; i++) {
    const badge = delta.badges[i];
    writes.badges.push({ id: newId("bdg"), ...scope, participantId: participant.id, badgeCode: badge.badgeCode, ruleId: badge.ruleId, grantedAt: now });
  }
  const { leaderboard } = delta;
  if (leaderboard.length === 0) return;
  if (leaderboard.length === 1) {
    // The usual one entry: its campaign's sum is its own points, without a Map.
    const points = storedPoints(leaderboard[0].points);
    if (points !== 0) writes.addLeaderboardPoints({ id: newId("lbe"), ...scope, participantId: participant.id, campaignId: leaderboard[0].campaignId, points, updatedAt: now });
    return;
  }
  const pointsByCampaign = new Map<string, number>();
  for (const entry of delta.leaderboard) pointsByCampaign.set(entry.campaignId, (pointsByCampaign.get(entry.campaignId) ?? 0) + storedPoints(entry.points));
  for (const [campaignId, points] of pointsByCampaign) {
    if (points !== 0) writes.addLeaderboardPoints({ id: newId("lbe"), ...scope, participantId: participant.id, campaignId, points, updatedAt: now });
  }
}

/** The effects the inbox shows (notificationsFor) and those announced by webhook (gatherWebhooks). */
const NOTIFIED_EFFECTS: ReadonlySet<string> = new Set(["level_up", "mission_completed", "reward_granted"]);
const ANNOUNCED_EFFECTS: ReadonlySet<string> = new Set(["level_up", "tier_changed", "mission_completed"]);

function hasEffectOf(effects: ApiEffect[], types: ReadonlySet<string>): boolean {
  for (let i = 0; i < effects.length; i++) if (types.has(effects[i].type)) return true;
  return false;
}

export interface NotificationText {
  kind: string;
  title: string;
  body: string | null;
  view: string | null;
}

/** A rule's `notify`, rendered for the participant as the evaluation left them. */
interface NotifyMessage {
  template: string;
  rendered: RenderedMessage;
  variables: MessageVariables;
}

function notifyMessages(config: ClubConfig, participant: MessageRecipient, delta: StateDelta): NotifyMessage[] {
  // Most events notify nothing: the participant's variables (a level name rendered) only when one does.
  if (delta.notifications.length === 0) return [];
  const variables = participantVariables(config, participant);
  return delta.notifications.map(({ template }) => ({
    template,
    // A template the club does not define: its name is the title (as before templates existed).
    rendered: renderClubMessage(config, template, variables) ?? { title: template, body: null },
    variables,
  }));
}

/** The participant's inbox entries for what the evaluation did, from the club's templates (else the built-in texts). */
function notificationsFor(config: ClubConfig, participant: MessageRecipient, effects: ApiEffect[], messages: NotifyMessage[]): NotificationText[] {
  // Most events neither notify nor have an effect the inbox shows: no closure, no variables then.
  if (messages.length === 0 && !hasEffectOf(effects, NOTIFIED_EFFECTS)) return [];
  const texts: NotificationText[] = [];
  let base: MessageVariables | undefined;
  const builtIn = (kind: string, view: string, variables: MessageVariables) => {
    base ??= participantVariables(config, participant);
    // Object.assign, not `{ ...base, ...variables }`: a spread adding keys costs microseconds on Node 20 (test/micro/object-spread.ts).
    const rendered = renderClubMessage(config, kind, Object.assign({}, base, variables));
    if (rendered) texts.push({ kind, title: rendered.title, body: rendered.body, view });
  };
  for (let i = 0; i < effects.length; i++) {
    const effect = effects[i];
    if (effect.type === "level_up") {
      // No level_name: renderClubMessage names `level` in the club's words itself.
      builtIn("level_up", "profile", { level: effect.to });
    } else if (effect.type === "mission_completed") {
      const mission = config.missions.find((candidate) => candidate.id === effect.mission_id);
      builtIn("mission_completed", "missions", { mission_title: mission?.title ?? effect.mission_id });
    } else if (effect.type === "reward_granted") {
      const reward = config.rewards.find((candidate) => candidate.code === effect.reward_code);
      builtIn("reward_granted", "rewards", { reward_title: reward?.title ?? effect.reward_code });
    }
  }
  for (const { rendered } of messages) texts.push({ kind: "message", title: rendered.title, body: rendered.body, view: null });
  return texts;
}

/** `message.requested` for each `notify` when the club's CRM is in webhook mode and the participant has a contact. */
function gatherMessageRequests(writes: PendingWrites, { scope, config, now }: EvaluationTarget, participant: MessageRecipient, messages: NotifyMessage[]): void {
  for (const { template, rendered, variables } of messages) {
    const data = messageRequest(config, participant, template, rendered, variables);
    if (data) writes.outbox.push(webhookMessage(scope, "message.requested", data, now));
  }
}

/** Adds entries to the participant's inbox. */
export async function writeNotifications(em: SqlEntityManager, scope: Scope, participantId: string, texts: NotificationText[], now: Date): Promise<void> {
  if (texts.length === 0) return;
  await em.insertMany<Notification>(Notification, notificationRows(scope, participantId, texts, now));
}

function notificationRows(scope: Scope, participantId: string, texts: NotificationText[], now: Date): RequiredEntityData<Notification>[] {
  return texts.map((text) => ({ id: newTimeOrderedId("ntf"), ...scope, participantId, ...text, createdAt: now, readAt: null }));
}

function tierRef(config: ClubConfig, code: string): Schemas["WebhookTier"] {
  return { code, name: config.progression.tiers.find((tier) => tier.code === code)?.name ?? code };
}

/** The reward code a mission's completion granted (`claim: auto` with a reward); null otherwise. */
function completionRewardCode(config: ClubConfig, missionId: string): string | null {
  const mission = config.missions.find((candidate) => candidate.id === missionId);
  if (!mission || mission.claim !== "auto") return null;
  const spec = parseRewardSpec(mission.reward);
  return spec?.kind === "reward" ? spec.code : null;
}

function gatherWebhooks(writes: PendingWrites, target: EvaluationTarget, effects: ApiEffect[], delta: StateDelta, rewards: GrantedReward[]): void {
  if (rewards.length === 0 && delta.webhooks.length === 0 && !hasEffectOf(effects, ANNOUNCED_EFFECTS)) return;
  const { scope, config, participant, now, publicUrl, event } = target;
  const who = webhookParticipant(participant);
  const send = (type: string, data: Record<string, unknown>) => writes.outbox.push(webhookMessage(scope, type, data, now));
  for (let r = 0; r < rewards.length; r++) {
    const { grant, rewardId, deliveryId } = rewards[r];
    const title = config.rewards.find((reward) => reward.code === grant.rewardCode)?.title ?? grant.rewardCode;
    const reward: Schemas["WebhookReward"] = { id: rewardId, code: grant.rewardCode, title, type: grant.type };
    const source = rewardSource(config, grant.ruleId);
    const granted: Schemas["RewardGrantedWebhookData"] = { participant: who, reward, source, delivery_id: deliveryId, expires_at: grant.expiresAt };
    send("reward.granted", granted);
    // Staff fulfil `manual` and `partner` deliveries from GET /v1/deliveries; only the client's system is asked to credit.
    if (deliveryId === null || grant.type !== "client_delivered") continue;
    const requested: Schemas["RewardDeliveryRequestedWebhookData"] = {
      participant: who,
      // The configured payload is free-form; `kind` tells the client what to credit.
      reward: { ...reward, payload: grant.payload as Schemas["RewardDeliveryPayload"] },
      source,
      delivery: {
        id: deliveryId,
        confirm_url: `${publicUrl}/v1/deliveries/${deliveryId}/confirm`,
        fail_url: `${publicUrl}/v1/deliveries/${deliveryId}/fail`,
      },
    };
    send("reward.delivery_requested", requested);
  }
  for (let i = 0; i < effects.length; i++) {
    const effect = effects[i];
    if (effect.type === "level_up") {
      const data: Schemas["LevelUpWebhookData"] = { participant: who, level: effect.to, from: effect.from };
      send("level.up", data);
    } else if (effect.type === "tier_changed") {
      const data: Schemas["TierChangedWebhookData"] = { participant: who, from: tierRef(config, effect.from), to: tierRef(config, effect.to) };
      send("tier.changed", data);
    } else if (effect.type === "mission_completed") {
      const data: Schemas["MissionCompletedWebhookData"] = {
        participant: who, mission_id: effect.mission_id, period_key: effect.period, reward_code: completionRewardCode(config, effect.mission_id),
      };
      send("mission.completed", data);
    }
  }
  // A rule's `webhook` effect: a custom event named by the rule, saying which rule and which event caused it.
  for (let i = 0; i < delta.webhooks.length; i++) {
    const { event: type, ruleId } = delta.webhooks[i];
    send(type, { participant: who, rule_id: ruleId, event: event && { id: event.id, type: event.type } });
  }
}
