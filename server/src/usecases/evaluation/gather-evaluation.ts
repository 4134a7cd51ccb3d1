import type { ApiEffect, ClubConfig } from "../../engine/config.js";
import { fromMinorUnits, toMinorUnits } from "../../engine/money.js";
import type { Evaluation, Lot, ParticipantState, RewardGrant, StateDelta } from "../../engine/types.js";
import type { DeliveryKind } from "../../db/entities/index.js";
import { newId, newTimeOrderedId } from "../../db/ids.js";
import { rewardSource, type EvaluationTarget, type PersistTarget } from "./evaluation-target.js";
import { gatherMessageRequests, notificationRows, notificationsFor, notifyMessages } from "./notifications.js";
import type { ParticipantSnapshot } from "./participant-snapshot.js";
import { peakColumnsAfter } from "./peak-level.js";
import { PendingWrites, type ParticipantChanges } from "./pending-writes.js";
import { storedDedupeKey } from "./rule-runs.js";
import { NO_LIST } from "./state-loading.js";
import { gatherWebhooks } from "./webhook-payloads.js";

/* Applying an evaluation: its delta gathered into PendingWrites (participant, ledger, lots, rule runs, missions, rewards, achievements), then notices. */

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
  const rewards: GrantedReward[] =
    delta.rewards.length === 0 ? NO_LIST : delta.rewards.map((grant) => ({ grant, rewardId: newId("rwd"), deliveryId: grant.delivery ? newId("dlv") : null }));
  for (let r = 0; r < rewards.length; r++) {
    const { grant, rewardId, deliveryId } = rewards[r];
    const effect = effects[grant.effectIndex];
    if (effect.type !== "reward_granted") throw new Error(`effect ${grant.effectIndex} is ${effect.type}, not the reward_granted of ${grant.rewardCode}`);
    // Object.assign, not a spread adding keys: see bench/micro/object-spread.ts.
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
  const texts = notificationsFor(target.config, participant, effects, messages, target.purchase);
  if (texts.length > 0) writes.notifications.push(...notificationRows(target.scope, target.participant.id, texts, target.now));
  gatherWebhooks(writes, target, effects, delta, rewards);
  if (messages.length > 0) gatherMessageRequests(writes, target, participant, messages);
  return { effects, participant, lotsCreated };
}

/**
 * Whether the delta moves a participant column beyond `updated_at` (XP,
 * level, tier, tags, event counts; the peak columns move with the level).
 * Pure. A caller that sets `updated_at` by itself may then leave the
 * participant's row out of its writes (PendingWrites.dropParticipantUpdate).
 */
export function movesParticipantColumns(participant: ParticipantSnapshot, delta: StateDelta): boolean {
  if (delta.xp !== 0 || delta.level !== participant.level || delta.tierCode !== participant.tierCode || delta.tagsAdded.length > 0) return true;
  for (const type in delta.eventCounts) if (delta.eventCounts[type] !== 0) return true;
  return false;
}

/** Sets the participant's columns after the delta; returns them. */
function updateParticipant(writes: PendingWrites, { participant, now }: EvaluationTarget, delta: StateDelta): ParticipantSnapshot {
  // Object.assign, not a spread: a new event type adds a key (see bench/micro/object-spread.ts).
  const eventCounts: Record<string, number> = Object.assign({}, participant.eventCounts);
  for (const type in delta.eventCounts) eventCounts[type] = (eventCounts[type] ?? 0) + delta.eventCounts[type];
  const tags = delta.tagsAdded.length === 0 ? participant.tags : [...participant.tags, ...delta.tagsAdded.map((added) => added.tag)];
  // The monthly tier review's record of the highest levels, moved when the level does.
  const peak = delta.level !== participant.level ? peakColumnsAfter(participant, delta.peakLevel) : null;
  // Built field by field, not with spreads and a rest pattern (once per event; see bench/micro/object-spread.ts).
  const changes: ParticipantChanges =
    peak === null
      ? { level: delta.level, tierCode: delta.tierCode, tags, eventCounts, updatedAt: now }
      : {
          level: delta.level,
          tierCode: delta.tierCode,
          tags,
          eventCounts,
          peakMonth: peak.peakMonth,
          peakLevel: peak.peakLevel,
          priorMonthPeakLevel: peak.priorMonthPeakLevel,
          updatedAt: now,
        };
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
      id: newTimeOrderedId("led"),
      clubId: scope.clubId,
      env: scope.env,
      participantId: participant.id,
      unit: line.unit,
      delta: line.delta,
      balanceAfter: balanceAfterLine(state, ledger, i),
      reason: line.reason,
      ruleId: line.ruleId,
      eventId: event?.id ?? null,
      createdAt: now,
    });
  }
  for (const currency in delta.balances) {
    const amount = delta.balances[currency];
    if (amount !== 0)
      writes.addToBalance({ id: newId("bal"), clubId: scope.clubId, env: scope.env, participantId: participant.id, currency, amount, updatedAt: now });
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
      id,
      ...scope,
      participantId: participant.id,
      currency: lot.currency,
      granted: lot.amount,
      remaining: lot.amount,
      expiresAt: new Date(lot.expiresAt),
      createdAt: new Date(lot.grantedAt),
    });
    return { id, currency: lot.currency, remaining: lot.amount, grantedAt: lot.grantedAt, expiresAt: lot.expiresAt };
  });
}

/** The rules of a configuration whose runs a limit reads back (loadRuleRuns), by configuration. */
const limitedRules = new WeakMap<ClubConfig, Set<string>>();
function rulesWithLimits(config: ClubConfig): Set<string> {
  let ids = limitedRules.get(config);
  if (!ids) {
    const limited = config.rules.filter(
      ({ limits }) => limits.max_runs_per_participant !== undefined || limits.cooldown_seconds !== undefined || limits.per_participant_per_day !== undefined,
    );
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
        ruleId,
        dedupeKey: storedDedupeKey(run.dedupeKey),
        participantId: participant.id,
        clubId: scope.clubId,
        env: scope.env,
        eventId: event?.id ?? null,
        firedAt: now,
      });
    }
    if (!limited.has(ruleId)) continue;
    const amounts: Record<string, number> = {};
    for (let i = 0; i < delta.ledger.length; i++) {
      const line = delta.ledger[i];
      if (line.ruleId === ruleId && (line.reason === "grant_xp" || line.reason === "grant_currency"))
        amounts[line.unit] = (amounts[line.unit] ?? 0) + line.delta;
    }
    writes.addRuleRun({ participantId: participant.id, ruleId, dayKey: run.today.dayKey, clubId: scope.clubId, env: scope.env, amounts, lastRunAt: now });
  }
}

/** Progress of each mission that moved; the first completion and claim times are kept. */
function gatherMissions(writes: PendingWrites, { scope, participant, now }: EvaluationTarget, delta: StateDelta): void {
  for (const missionId in delta.missions) {
    const next = delta.missions[missionId];
    writes.setMission({
      id: newId("msp"),
      clubId: scope.clubId,
      env: scope.env,
      participantId: participant.id,
      missionId,
      periodKey: next.periodKey,
      progress: next.progress,
      completedAt: next.completed ? now : null,
      claimedAt: next.claimed ? now : null,
      updatedAt: now,
    });
  }
}

export interface GrantedReward {
  grant: RewardGrant;
  rewardId: string;
  deliveryId: string | null;
}

function gatherRewards(writes: PendingWrites, { scope, config, participant, now }: EvaluationTarget, rewards: GrantedReward[]): void {
  for (let r = 0; r < rewards.length; r++) {
    const { grant, rewardId, deliveryId } = rewards[r];
    writes.rewards.push({
      id: rewardId,
      ...scope,
      participantId: participant.id,
      rewardCode: grant.rewardCode,
      type: grant.type,
      status: deliveryId === null ? "granted" : "pending",
      source: rewardSource(config, grant.ruleId),
      deliveryId,
      grantedAt: now,
      expiresAt: grant.expiresAt === null ? null : new Date(grant.expiresAt),
    });
    if (deliveryId === null) continue;
    writes.deliveries.push({
      id: deliveryId,
      ...scope,
      participantId: participant.id,
      participantRewardId: rewardId,
      rewardCode: grant.rewardCode,
      kind: grant.type as DeliveryKind,
      status: "pending",
      payload: (grant.payload ?? {}) as Record<string, unknown>,
      createdAt: now,
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
    if (points !== 0)
      writes.addLeaderboardPoints({ id: newId("lbe"), ...scope, participantId: participant.id, campaignId: leaderboard[0].campaignId, points, updatedAt: now });
    return;
  }
  const pointsByCampaign = new Map<string, number>();
  for (const entry of delta.leaderboard) pointsByCampaign.set(entry.campaignId, (pointsByCampaign.get(entry.campaignId) ?? 0) + storedPoints(entry.points));
  for (const [campaignId, points] of pointsByCampaign) {
    if (points !== 0) writes.addLeaderboardPoints({ id: newId("lbe"), ...scope, participantId: participant.id, campaignId, points, updatedAt: now });
  }
}
