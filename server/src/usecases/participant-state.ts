import { createHash } from "node:crypto";
import { LockMode, raw, type FilterQuery } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../generated/types.js";
import type { ApiEffect, ClubConfig, MissionConfig, RuleConfig } from "../engine/config.js";
import { fromMinorUnits, toMinorUnits } from "../engine/money.js";
import { parseRewardSpec } from "../engine/rewards.js";
import { dedupeKey } from "../engine/rules.js";
import { tierForLevel } from "../engine/tiers.js";
import { dayKey, periodKey } from "../engine/time.js";
import type { EngineEvent, Evaluation, Lot, MissionState, ParticipantState, RewardGrant, RuleRunState, StateDelta } from "../engine/types.js";
import {
  Badge, Balance, CurrencyLot, Delivery, LeaderboardEntry, LedgerEntry, MissionProgress, Notification, Participant, ParticipantReward, RuleRun,
} from "../db/entities/index.js";
import { newId } from "../db/ids.js";
import type { Dialect } from "../db/orm.js";
import type { Scope } from "../db/scope.js";
import { recordWebhook } from "./outbox.js";
import { levelName } from "./participant-views.js";
import { peakColumnsAfter, storedPeakLevel } from "./peak-level.js";
import { loadBalances } from "./participants.js";

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
  if (dialect === "sqlite") {
    await em.createQueryBuilder(Participant).update({ updatedAt: raw("updated_at") }).where(where).execute();
    return em.findOne(Participant, where);
  }
  return em.findOne(Participant, where, { lockMode: LockMode.PESSIMISTIC_WRITE });
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
 *   updates of the others are not stored either: each run is a RuleRun row);
 * - missions in their current period only, since the engine starts any other
 *   period over.
 */
export async function loadParticipantState(
  em: SqlEntityManager,
  participant: Participant,
  config: ClubConfig,
  at: { now: Date; timeZone: string; event?: EngineEvent },
): Promise<ParticipantState> {
  const { event } = at;
  const triggered = event ? config.rules.filter((rule) => rule.enabled && rule.trigger.event === event.type) : [];
  const effectTypes = new Set(triggered.flatMap((rule) => rule.effects.map((effect) => effect.type)));
  const missionIds = event ? advanceableMissions(config, event, triggered) : config.missions.map((mission) => mission.id);
  // One after the other: a transaction has one connection, which runs one query at a time.
  const balances = await loadBalances(em, participant.id);
  const lots = !event || effectTypes.has("debit_currency") ? await loadLots(em, participant.id, config) : [];
  const badges = effectTypes.has("grant_badge") ? await em.find(Badge, { participantId: participant.id }, { fields: ["badgeCode"] }) : [];
  const missions = await loadMissions(em, participant.id, config.missions.filter((mission) => missionIds.includes(mission.id)), at.now, at.timeZone);
  const ruleRuns = event ? await loadRuleRuns(em, participant.id, triggered, event, at) : {};
  return {
    xp: participant.xp,
    level: participant.level,
    tierCode: participant.tierCode ?? tierForLevel(config.progression.tiers, participant.level).code,
    tags: participant.tags,
    balances,
    lots,
    badges: badges.map((badge) => badge.badgeCode),
    eventCountsBefore: participant.eventCounts,
    ruleRuns,
    missions,
    peakLevel: storedPeakLevel(participant),
  };
}

/** The missions an event can move: those listening to its type, and those its triggered rules advance. */
function advanceableMissions(config: ClubConfig, event: EngineEvent, triggered: RuleConfig[]): string[] {
  const ids = new Set(config.missions.filter((mission) => mission.event === event.type).map((mission) => mission.id));
  for (const rule of triggered) {
    for (const effect of rule.effects) if (effect.type === "progress_mission") ids.add(effect.mission);
  }
  return [...ids];
}

/** Unspent lots of the currencies that expire (only those are credited as lots). */
async function loadLots(em: SqlEntityManager, participantId: string, config: ClubConfig): Promise<Lot[]> {
  const expiring = config.currencies.filter((currency) => currency.expiresInDays !== null).map((currency) => currency.code);
  if (expiring.length === 0) return [];
  const rows = await em.find(CurrencyLot, { participantId, currency: { $in: expiring }, remaining: { $gt: 0 }, expiresAt: { $ne: null } });
  return rows.map((row) => ({
    id: row.id,
    currency: row.currency,
    remaining: row.remaining,
    grantedAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt!.toISOString(),
  }));
}

async function loadMissions(em: SqlEntityManager, participantId: string, missions: MissionConfig[], now: Date, timeZone: string): Promise<Record<string, MissionState>> {
  if (missions.length === 0) return {};
  const currentKey = new Map(missions.map((mission) => [mission.id, periodKey(mission.period, now, timeZone)]));
  const rows = await em
    .createQueryBuilder(MissionProgress)
    .select(["missionId", "periodKey", "progress", "completedAt", "claimedAt"])
    .where({ participantId, missionId: { $in: [...currentKey.keys()] }, periodKey: { $in: [...new Set(currentKey.values())] } })
    .execute<Pick<MissionProgress, "missionId" | "periodKey" | "progress" | "completedAt" | "claimedAt">[]>("all");
  const states: Record<string, MissionState> = {};
  for (const row of rows) {
    if (currentKey.get(row.missionId) !== row.periodKey) continue;
    states[row.missionId] = { periodKey: row.periodKey, progress: row.progress, completed: row.completedAt !== null, claimed: row.claimedAt !== null };
  }
  return states;
}

/** RuleRun.dedupeKey holds at most 200 characters. */
const DEDUPE_KEY_MAX = 200;

/**
 * A dedupe key as stored: the value itself, or its SHA-256 when longer than
 * the column (a rule may key on any event field, such as a long `meta` value).
 */
function storedDedupeKey(key: string): string {
  return key.length <= DEDUPE_KEY_MAX ? key : `sha256:${createHash("sha256").update(key).digest("hex")}`;
}

/**
 * SQL for what a RuleRun granted in the unit bound as its parameter (`xp` or
 * a currency code), read from the `amounts` JSON; 0 when it granted none.
 * `->>` reads a JSON key on both PostgreSQL (jsonb) and SQLite (3.38+).
 */
const GRANTED_IN_UNIT = "coalesce(cast(amounts ->> ? as bigint), 0)";

interface RunCounters {
  ruleId: string;
  total: number | string;
  last_run_at: Date | string | number;
  today_runs: number | string;
  [granted: `granted_${number}`]: number | string;
}

/**
 * The counters of the triggered rules, read so that every query stays
 * bounded however long the participant has played: dedupe keys by exact
 * lookup; then one aggregate over only the runs a limit needs: all of a
 * rule with `max_runs_per_participant` (never more than that many), those
 * since the cooldown window opened for `cooldown_seconds`, today's for
 * `per_participant_per_day` (summed per unit in SQL).
 */
async function loadRuleRuns(
  em: SqlEntityManager,
  participantId: string,
  triggered: RuleConfig[],
  event: EngineEvent,
  at: { now: Date; timeZone: string },
): Promise<Record<string, RuleRunState>> {
  const today = dayKey(at.now, at.timeZone);
  const states: Record<string, RuleRunState> = Object.fromEntries(
    triggered.map((rule) => [rule.id, { total: 0, lastRunAt: null, today: { dayKey: today, runs: 0, granted: {} }, dedupeKeys: [] }]),
  );

  const keys = new Map(triggered.flatMap((rule) => {
    const key = dedupeKey(rule, event);
    return key === null ? [] : [[rule.id, key] as const];
  }));
  if (keys.size > 0) {
    const keyed = [...keys].map(([ruleId, key]) => ({ ruleId, dedupeKey: storedDedupeKey(key) }));
    const seen = await em.createQueryBuilder(RuleRun).select(["ruleId"]).where({ participantId, $or: keyed }).execute<{ ruleId: string }[]>("all");
    for (const run of seen) states[run.ruleId].dedupeKeys.push(keys.get(run.ruleId)!);
  }

  const windows = triggered.flatMap((rule) => {
    const { max_runs_per_participant: maxRuns, cooldown_seconds: cooldown, per_participant_per_day: perDay } = rule.limits;
    if (maxRuns !== undefined) return [{ ruleId: rule.id }];
    const since = [
      ...(cooldown !== undefined ? [dayKey(new Date(at.now.getTime() - cooldown * 1000), at.timeZone)] : []),
      ...(perDay !== undefined ? [today] : []),
    ];
    // Day keys are "YYYY-MM-DD", so text order is time order.
    return since.length === 0 ? [] : [{ ruleId: rule.id, dayKey: { $gte: since.sort()[0] } }];
  });
  if (windows.length === 0) return states;
  const units = [...new Set(triggered.flatMap((rule) => Object.keys(rule.limits.per_participant_per_day ?? {}).filter((unit) => unit !== "runs")))];
  const sums = units.map((unit, i) => raw(`sum(case when day_key = ? then ${GRANTED_IN_UNIT} else 0 end) as granted_${i}`, [today, unit]));
  const counters = await em
    .createQueryBuilder(RuleRun)
    .select(["ruleId", raw("count(*) as total"), raw("max(run_at) as last_run_at"), raw("sum(case when day_key = ? then 1 else 0 end) as today_runs", [today]), ...sums])
    .where({ participantId, $or: windows })
    .groupBy("ruleId")
    .execute<RunCounters[]>("all");
  for (const row of counters) {
    const state = states[row.ruleId];
    // Drivers return aggregates as numbers or numeric strings; SQLite keeps datetimes as epoch milliseconds.
    state.total = Number(row.total);
    state.lastRunAt = new Date(row.last_run_at).toISOString();
    state.today.runs = Number(row.today_runs);
    units.forEach((unit, i) => {
      const granted = Number(row[`granted_${i}`]);
      if (granted !== 0) state.today.granted[unit] = granted;
    });
  }
  return states;
}

type Schemas = components["schemas"];
export type WebhookParticipant = Schemas["WebhookParticipant"];

/** Where an evaluation's delta is written and what it is about. */
export interface PersistTarget {
  /** The transaction holding the participant's lock. */
  em: SqlEntityManager;
  scope: Scope;
  config: ClubConfig;
  participant: Participant;
  /** The state the evaluation started from: XP and balances before it. */
  state: ParticipantState;
  now: Date;
  /** The base URL of the confirm/fail links in `reward.delivery_requested`. */
  publicUrl: string;
  /** The stored event evaluated; null for a claim or a redemption. */
  event: { id: string; type: string } | null;
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
 * (balances added to atomically); lots spent and credited; one RuleRun per
 * rule that fired; mission progress; rewards with a pending delivery for each
 * `client_delivered` one; badges; leaderboard points; notifications; and the
 * outbox webhooks announcing all of it. Returns the effects with `reward_id`
 * and `delivery_id` filled into each `reward_granted`.
 */
export async function persistEvaluation(target: PersistTarget, evaluation: Evaluation): Promise<ApiEffect[]> {
  const { delta } = evaluation;
  const effects = evaluation.effects.map((effect) => ({ ...effect }));
  const rewards = delta.rewards.map((grant) => ({ grant, rewardId: newId("rwd"), deliveryId: grant.delivery ? newId("dlv") : null }));
  for (const { grant, rewardId, deliveryId } of rewards) {
    const effect = effects[grant.effectIndex];
    if (effect.type !== "reward_granted") throw new Error(`effect ${grant.effectIndex} is ${effect.type}, not the reward_granted of ${grant.rewardCode}`);
    effect.reward_id = rewardId;
    if (deliveryId !== null) effect.delivery_id = deliveryId;
  }
  await updateParticipant(target, delta);
  await writeLedger(target, delta);
  await writeLots(target, delta);
  await writeRuleRuns(target, delta);
  await writeMissions(target, delta);
  await writeRewards(target, rewards);
  await writeAchievements(target, delta);
  await writeNotifications(target.em, target.scope, target.participant.id, notificationsFor(target.config, effects, delta), target.now);
  await recordWebhooks(target, effects, delta, rewards);
  return effects;
}

async function updateParticipant({ em, participant, now }: PersistTarget, delta: StateDelta): Promise<void> {
  const eventCounts = { ...participant.eventCounts };
  for (const [type, increment] of Object.entries(delta.eventCounts)) eventCounts[type] = (eventCounts[type] ?? 0) + increment;
  await em.nativeUpdate(Participant, { id: participant.id }, {
    xp: raw("xp + ?", [delta.xp]),
    level: delta.level,
    tierCode: delta.tierCode,
    tags: [...participant.tags, ...delta.tagsAdded.map((added) => added.tag)],
    eventCounts,
    // The monthly tier review's record of the highest levels, moved when the level does.
    ...(delta.level !== participant.level ? peakColumnsAfter(participant, delta.peakLevel) : {}),
    updatedAt: now,
  });
}

/** Ledger rows with the running balance after each, and the balance rows moved by the net change. */
async function writeLedger({ em, scope, participant, state, now, event }: PersistTarget, delta: StateDelta): Promise<void> {
  if (delta.ledger.length === 0) return;
  const running: Record<string, number> = { ...state.balances, xp: state.xp };
  await em.insertMany(LedgerEntry, delta.ledger.map((line) => {
    running[line.unit] = (running[line.unit] ?? 0) + line.delta;
    return {
      id: newId("led"), ...scope, participantId: participant.id, unit: line.unit, delta: line.delta, balanceAfter: running[line.unit],
      reason: line.reason, ruleId: line.ruleId, eventId: event?.id ?? null, createdAt: now,
    };
  }));
  const changed = Object.entries(delta.balances).filter(([, change]) => change !== 0);
  if (changed.length === 0) return;
  // Added to the stored amount in one statement, atomically, creating rows on first use.
  await em
    .createQueryBuilder(Balance)
    .insert(changed.map(([currency, amount]) => ({ id: newId("bal"), ...scope, participantId: participant.id, currency, amount, updatedAt: now })))
    .onConflict(["participantId", "currency"])
    .merge({ amount: raw("balances.amount + excluded.amount"), updatedAt: raw("excluded.updated_at") })
    .execute();
}

async function writeLots({ em, scope, participant }: PersistTarget, delta: StateDelta): Promise<void> {
  for (const { lotId, amount } of delta.lotsConsumed) {
    await em.nativeUpdate(CurrencyLot, { id: lotId }, { remaining: raw("remaining - ?", [amount]) });
  }
  if (delta.lotsCreated.length === 0) return;
  await em.insertMany(CurrencyLot, delta.lotsCreated.map((lot) => ({
    id: newId("lot"), ...scope, participantId: participant.id, currency: lot.currency, granted: lot.amount, remaining: lot.amount,
    expiresAt: new Date(lot.expiresAt), createdAt: new Date(lot.grantedAt),
  })));
}

/**
 * One row per rule that fired, with what it granted this run per unit (the
 * daily caps add these up): its own XP and currency grants in the ledger.
 */
async function writeRuleRuns({ em, scope, participant, now, event }: PersistTarget, delta: StateDelta): Promise<void> {
  const runs = Object.entries(delta.ruleRuns);
  if (runs.length === 0) return;
  await em.insertMany(RuleRun, runs.map(([ruleId, run]) => {
    const amounts: Record<string, number> = {};
    for (const line of delta.ledger) {
      if (line.ruleId === ruleId && (line.reason === "grant_xp" || line.reason === "grant_currency")) amounts[line.unit] = (amounts[line.unit] ?? 0) + line.delta;
    }
    return {
      id: newId("run"), ...scope, participantId: participant.id, ruleId, dedupeKey: run.dedupeKey === null ? null : storedDedupeKey(run.dedupeKey), eventId: event?.id ?? null,
      dayKey: run.today.dayKey, amounts, runAt: now,
    };
  }));
}

/** Progress of each mission that moved, upserted in one statement; the first completion and claim times are kept. */
async function writeMissions({ em, scope, participant, now }: PersistTarget, delta: StateDelta): Promise<void> {
  const moved = Object.entries(delta.missions);
  if (moved.length === 0) return;
  await em
    .createQueryBuilder(MissionProgress)
    .insert(moved.map(([missionId, next]) => ({
      id: newId("msp"), ...scope, participantId: participant.id, missionId, periodKey: next.periodKey, progress: next.progress,
      completedAt: next.completed ? now : null, claimedAt: next.claimed ? now : null, updatedAt: now,
    })))
    .onConflict(["participantId", "missionId", "periodKey"])
    .merge({
      progress: raw("excluded.progress"),
      completedAt: raw("coalesce(mission_progress.completed_at, excluded.completed_at)"),
      claimedAt: raw("coalesce(mission_progress.claimed_at, excluded.claimed_at)"),
      updatedAt: raw("excluded.updated_at"),
    })
    .execute();
}

interface GrantedReward {
  grant: RewardGrant;
  rewardId: string;
  deliveryId: string | null;
}

async function writeRewards({ em, scope, config, participant, now }: PersistTarget, rewards: GrantedReward[]): Promise<void> {
  if (rewards.length === 0) return;
  await em.insertMany(ParticipantReward, rewards.map(({ grant, rewardId, deliveryId }) => ({
    id: rewardId, ...scope, participantId: participant.id, rewardCode: grant.rewardCode, type: grant.type,
    status: deliveryId === null ? ("granted" as const) : ("pending" as const), source: rewardSource(config, grant.ruleId), deliveryId,
    grantedAt: now, expiresAt: grant.expiresAt === null ? null : new Date(grant.expiresAt),
  })));
  const deliveries = rewards.filter((reward) => reward.deliveryId !== null);
  if (deliveries.length === 0) return;
  await em.insertMany(Delivery, deliveries.map(({ grant, rewardId, deliveryId }) => ({
    id: deliveryId!, ...scope, participantId: participant.id, participantRewardId: rewardId, rewardCode: grant.rewardCode,
    status: "pending" as const, createdAt: now,
  })));
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

async function writeAchievements({ em, scope, participant, now }: PersistTarget, delta: StateDelta): Promise<void> {
  if (delta.badges.length > 0) {
    await em.insertMany(Badge, delta.badges.map((badge) => ({
      id: newId("bdg"), ...scope, participantId: participant.id, badgeCode: badge.badgeCode, ruleId: badge.ruleId, grantedAt: now,
    })));
  }
  const pointsByCampaign = new Map<string, number>();
  for (const entry of delta.leaderboard) pointsByCampaign.set(entry.campaignId, (pointsByCampaign.get(entry.campaignId) ?? 0) + storedPoints(entry.points));
  const scored = [...pointsByCampaign].filter(([, points]) => points !== 0);
  if (scored.length === 0) return;
  await em
    .createQueryBuilder(LeaderboardEntry)
    .insert(scored.map(([campaignId, points]) => ({ id: newId("lbe"), ...scope, participantId: participant.id, campaignId, points, updatedAt: now })))
    .onConflict(["participantId", "campaignId"])
    .merge({ points: raw("leaderboard_entries.points + excluded.points"), updatedAt: raw("excluded.updated_at") })
    .execute();
}

export interface NotificationText {
  kind: string;
  title: string;
  body: string | null;
  view: string | null;
}

/** The participant's inbox entries for what the evaluation did (titles in the club's language, Portuguese). */
function notificationsFor(config: ClubConfig, effects: ApiEffect[], delta: StateDelta): NotificationText[] {
  const texts: NotificationText[] = [];
  for (const effect of effects) {
    if (effect.type === "level_up") {
      texts.push({ kind: "level_up", title: `Você subiu para o ${levelName(effect.to)}!`, body: null, view: "profile" });
    } else if (effect.type === "mission_completed") {
      const mission = config.missions.find((candidate) => candidate.id === effect.mission_id);
      texts.push({ kind: "mission_completed", title: "Missão concluída!", body: mission ? `Você completou "${mission.title}".` : null, view: "missions" });
    } else if (effect.type === "reward_granted") {
      const reward = config.rewards.find((candidate) => candidate.code === effect.reward_code);
      texts.push({ kind: "reward_granted", title: `Você ganhou: ${reward?.title ?? effect.reward_code}`, body: null, view: "rewards" });
    }
  }
  for (const { template } of delta.notifications) texts.push({ kind: "message", title: template, body: null, view: null });
  return texts;
}

/** Adds entries to the participant's inbox. */
export async function writeNotifications(em: SqlEntityManager, scope: Scope, participantId: string, texts: NotificationText[], now: Date): Promise<void> {
  if (texts.length === 0) return;
  await em.insertMany(Notification, texts.map((text) => ({ id: newId("ntf"), ...scope, participantId, ...text, createdAt: now, readAt: null })));
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

async function recordWebhooks(target: PersistTarget, effects: ApiEffect[], delta: StateDelta, rewards: GrantedReward[]): Promise<void> {
  const { em, scope, config, participant, now, publicUrl, event } = target;
  const who = webhookParticipant(participant);
  const send = (type: string, data: Record<string, unknown>) => recordWebhook(em, scope, type, data, now);
  for (const { grant, rewardId, deliveryId } of rewards) {
    const title = config.rewards.find((reward) => reward.code === grant.rewardCode)?.title ?? grant.rewardCode;
    const reward: Schemas["WebhookReward"] = { id: rewardId, code: grant.rewardCode, title, type: grant.type };
    const source = rewardSource(config, grant.ruleId);
    const granted: Schemas["RewardGrantedWebhookData"] = { participant: who, reward, source, delivery_id: deliveryId, expires_at: grant.expiresAt };
    await send("reward.granted", granted);
    if (deliveryId === null) continue;
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
    await send("reward.delivery_requested", requested);
  }
  for (const effect of effects) {
    if (effect.type === "level_up") {
      const data: Schemas["LevelUpWebhookData"] = { participant: who, level: effect.to, from: effect.from };
      await send("level.up", data);
    } else if (effect.type === "tier_changed") {
      const data: Schemas["TierChangedWebhookData"] = { participant: who, from: tierRef(config, effect.from), to: tierRef(config, effect.to) };
      await send("tier.changed", data);
    } else if (effect.type === "mission_completed") {
      const data: Schemas["MissionCompletedWebhookData"] = {
        participant: who, mission_id: effect.mission_id, period_key: effect.period, reward_code: completionRewardCode(config, effect.mission_id),
      };
      await send("mission.completed", data);
    }
  }
  // A rule's `webhook` effect: a custom event named by the rule, saying which rule and which event caused it.
  for (const { event: type, ruleId } of delta.webhooks) {
    await send(type, { participant: who, rule_id: ruleId, event: event && { id: event.id, type: event.type } });
  }
}
