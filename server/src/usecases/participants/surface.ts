import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import type { ClubConfig, MissionConfig } from "../../engine/config.js";
import { fromMinorUnits } from "../../engine/money.js";
import { claimMission } from "../../engine/evaluate.js";
import { missionAvailable } from "../../engine/missions.js";
import { parseRewardSpec } from "../../engine/rewards.js";
import { Session } from "../../engine/session.js";
import { periodKey } from "../../engine/time.js";
import type { MissionState, ParticipantState } from "../../engine/types.js";
import { Badge, LeaderboardEntry, Participant, ParticipantReward, type ParticipantRewardStatus } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { requirePublishedConfig } from "../club/index.js";
import { ApiError, notFound } from "../shared/errors.js";
import {
  clubTimeZone, loadParticipantState, lockParticipantByExternalId, persistEvaluation, pointsOf, viewedState,
} from "../evaluation/index.js";
import { participantNotFound, readViewedParticipant } from "./participants.js";
import { pricedReward, redeem, spendableBalance, type RedemptionView } from "../rewards/index.js";
import { tournamentBoards } from "../tournaments/index.js";

/*
 * The participant surface (`/v1/me/*`): what one participant sees and does.
 * `externalId` comes from the participant token or `X-Participant`; a
 * participant that does not exist is 404 (the surface never creates one).
 */

type Schemas = components["schemas"];
export type MyMission = Schemas["MyMission"];
export type MyReward = Schemas["MyReward"];
export type MyBadge = Schemas["MyBadge"];
export type StoreItem = Schemas["StoreItem"];
export type LeaderboardStanding = Schemas["LeaderboardStanding"];
export type Leaderboard = Schemas["Leaderboard"];
export type MissionClaimResult = Schemas["MissionClaimResult"];

interface Me {
  participant: Participant;
  config: ClubConfig;
  timeZone: string;
}

async function findMe(em: SqlEntityManager, db: Database, scope: Scope, externalId: string): Promise<Me> {
  const { config } = await requirePublishedConfig(db, scope);
  const participant = await em.findOne(Participant, { ...scope, externalId });
  if (!participant) throw participantNotFound(externalId);
  return { participant, config, timeZone: clubTimeZone(config) };
}

/** The missions listed for the participant now (enabled, in their window, of their audience), by `order` then `id`. */
function listedMissions(config: ClubConfig, state: ParticipantState, now: Date, timeZone: string): MissionConfig[] {
  // The engine's own availability test, so a mission is listed exactly when events can advance it.
  const session = new Session(config, state, now, timeZone);
  return config.missions
    .filter((mission) => missionAvailable(session, mission))
    .sort((a, b) => a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** A mission's reward as the list names it: a configured reward by code and title, XP or currency by its spec. */
function missionReward(config: ClubConfig, spec: string): Schemas["MyMissionReward"] {
  const parsed = parseRewardSpec(spec);
  if (parsed?.kind === "xp") return { code: spec, title: `${parsed.amount} XP` };
  if (parsed?.kind === "currency") {
    const name = config.currencies.find((currency) => currency.code === parsed.currency)?.name ?? parsed.currency;
    return { code: spec, title: `${parsed.amount} ${name}` };
  }
  const code = parsed?.kind === "reward" ? parsed.code : spec;
  return { code, title: config.rewards.find((reward) => reward.code === code)?.title ?? code };
}

function missionView(config: ClubConfig, mission: MissionConfig, state: ParticipantState, now: Date, timeZone: string): MyMission {
  const key = periodKey(mission.period, now, timeZone);
  const stored = state.missions[mission.id];
  const current = stored?.periodKey === key ? stored : { progress: 0, completed: false, claimed: false };
  return {
    id: mission.id,
    title: mission.title,
    description: mission.description ?? null,
    illustration: mission.illustration,
    event: mission.event,
    period: mission.period,
    goal: { kind: mission.goal.kind, field: mission.goal.field, target: mission.goal.target },
    progress: current.progress,
    completed: current.completed,
    claimable: mission.claim === "manual" && current.completed && !current.claimed,
    claimed: current.claimed,
    period_key: key,
    reward: missionReward(config, mission.reward),
    starts_at: mission.startsAt ?? null,
    ends_at: mission.endsAt ?? null,
  };
}

/** GET /v1/me/missions: the listed missions in their current period. */
export async function listMyMissions(db: Database, scope: Scope, externalId: string, now: Date): Promise<{ data: MyMission[] }> {
  const { config } = await requirePublishedConfig(db, scope);
  const timeZone = clubTimeZone(config);
  // The participant, its balances and its progress in the missions' current periods: one statement.
  const currentKey = new Map(config.missions.map((mission) => [mission.id, periodKey(mission.period, now, timeZone)]));
  const read = await readViewedParticipant(db, scope, externalId, currentKey.size === 0 ? undefined : { ids: [...currentKey.keys()], periodKeys: [...new Set(currentKey.values())] });
  const missions: Record<string, MissionState> = {};
  for (const row of read.missions) {
    if (currentKey.get(row.missionId) === row.periodKey) missions[row.missionId] = { periodKey: row.periodKey, progress: row.progress, completed: row.completed, claimed: row.claimed };
  }
  const state = viewedState(read.participant, config, read.balances, missions);
  return { data: listedMissions(config, state, now, timeZone).map((mission) => missionView(config, mission, state, now, timeZone)) };
}

/**
 * POST /v1/me/missions/{id}/claim: grants the reward of a `claim: manual`
 * mission completed in the current period, once; written like an event's
 * delta (a `client_delivered` reward gets a delivery and its webhooks).
 * 404 for a mission not listed for the participant; 409 `not_claimable`
 * (not completed, or claimed automatically) or `already_claimed`.
 */
export async function claimMyMission(
  db: Database,
  scope: Scope,
  externalId: string,
  missionId: string,
  opts: { now: Date; publicUrl: string },
): Promise<MissionClaimResult> {
  const { config } = await requirePublishedConfig(db, scope);
  const timeZone = clubTimeZone(config);
  const { now } = opts;
  return db.em().transactional(async (em) => {
    const participant = await lockParticipantByExternalId(em, scope, externalId);
    if (!participant) throw participantNotFound(externalId);
    const state = await loadParticipantState(em, participant, config, { now, timeZone });
    const mission = listedMissions(config, state, now, timeZone).find((candidate) => candidate.id === missionId);
    if (!mission) throw notFound(`Mission ${JSON.stringify(missionId)}`);
    const period = periodKey(mission.period, now, timeZone);
    if (mission.claim === "auto") {
      throw new ApiError(409, "not_claimable", `Mission ${JSON.stringify(missionId)} grants its reward automatically on completion.`);
    }
    const claim = claimMission({ config, state, now, timeZone, missionId });
    if (!claim.ok) {
      if (claim.reason === "already_claimed") throw new ApiError(409, "already_claimed", `Mission ${JSON.stringify(missionId)} was already claimed in period ${period}.`);
      const progress = state.missions[missionId]?.periodKey === period ? state.missions[missionId].progress : 0;
      throw new ApiError(409, "not_claimable", `Mission ${JSON.stringify(missionId)} is not completed in period ${period} (${progress} of ${mission.goal.target}).`);
    }
    const effects = await persistEvaluation({ em, scope, config, participant, state, now, publicUrl: opts.publicUrl, event: null }, claim.evaluation);
    const granted = effects.find((effect): effect is Schemas["RewardGrantedEffect"] => effect.type === "reward_granted");
    return {
      mission_id: missionId,
      period_key: period,
      // persistEvaluation filled `reward_id` into every reward_granted.
      reward_granted: granted ? { reward_code: granted.reward_code, reward_id: granted.reward_id!, delivery_id: granted.delivery_id ?? null } : null,
      effects,
    };
  });
}

/** What the participant sees of a reward's state: expiry shows while nobody has handed it over yet. */
function myRewardStatus(status: ParticipantRewardStatus, expiresAt: Date | null, now: Date): MyReward["status"] {
  const open = status === "granted" || status === "pending";
  if (status === "expired" || (open && expiresAt !== null && expiresAt.getTime() <= now.getTime())) return "expired";
  const shown: Record<Exclude<ParticipantRewardStatus, "expired">, MyReward["status"]> = {
    granted: "granted",
    pending: "pending_delivery",
    delivered: "delivered",
    failed: "delivery_failed",
  };
  return shown[status];
}

/** GET /v1/me/rewards: every reward the participant received, newest first. */
export async function listMyRewards(db: Database, scope: Scope, externalId: string, now: Date): Promise<{ data: MyReward[] }> {
  const em = db.em();
  const { participant, config } = await findMe(em, db, scope, externalId);
  const rows = await em.find(ParticipantReward, { participantId: participant.id }, { orderBy: { grantedAt: "desc", id: "desc" } });
  const titles = new Map(config.rewards.map((reward) => [reward.code, reward.title]));
  return {
    data: rows.map((row) => ({
      id: row.id,
      reward_code: row.rewardCode,
      title: titles.get(row.rewardCode) ?? row.rewardCode,
      type: row.type,
      status: myRewardStatus(row.status, row.expiresAt ?? null, now),
      source: row.source,
      delivery_id: row.deliveryId ?? null,
      granted_at: row.grantedAt.toISOString(),
      expires_at: row.expiresAt?.toISOString() ?? null,
    })),
  };
}

/** GET /v1/me/badges: newest first. */
export async function listMyBadges(db: Database, scope: Scope, externalId: string): Promise<{ data: MyBadge[] }> {
  const em = db.em();
  const { participant } = await findMe(em, db, scope, externalId);
  const rows = await em.find(Badge, { participantId: participant.id }, { orderBy: { grantedAt: "desc", id: "desc" } });
  return { data: rows.map((row) => ({ badge_code: row.badgeCode, granted_at: row.grantedAt.toISOString(), rule_id: row.ruleId ?? null })) };
}

/** GET /v1/me/store: every reward with a price, in configuration order, and whether the participant can pay it now. */
export async function listStore(db: Database, scope: Scope, externalId: string, now: Date): Promise<{ data: StoreItem[] }> {
  const em = db.em();
  const { participant, config, timeZone } = await findMe(em, db, scope, externalId);
  const state = await loadParticipantState(em, participant, config, { now, timeZone });
  const data: StoreItem[] = [];
  for (const reward of config.rewards) {
    if (reward.cost === null) continue;
    let priced;
    try {
      priced = pricedReward(config, reward.code);
    } catch (err) {
      // A price under one minor unit cannot be redeemed, so it is not on sale.
      if (err instanceof ApiError && err.code === "reward_has_no_price") continue;
      throw err;
    }
    data.push({
      code: reward.code,
      title: reward.title,
      description: reward.description ?? null,
      illustration: reward.illustration,
      type: reward.type,
      cost: { currency: priced.currency.code, amount: fromMinorUnits(priced.cost, priced.currency.decimals) },
      affordable: spendableBalance(state, priced.currency.code, now) >= priced.cost,
    });
  }
  return { data };
}

/** POST /v1/me/store/{reward_code}/redeem: a redemption for the calling participant (source `redemption:<code>`). */
export async function redeemFromStore(
  db: Database,
  scope: Scope,
  externalId: string,
  rewardCode: string,
  opts: { idempotencyKey?: string; now: Date; publicUrl: string },
): Promise<RedemptionView> {
  return redeem(db, scope, { participant: externalId, reward: rewardCode }, opts);
}

/** A leaderboard only rules' `add_leaderboard_points` give points in (a campaign that is no tournament). */
interface Campaign {
  id: string;
}

/** The campaigns that are no configured tournament and that the participant has points in. */
async function pointCampaigns(em: SqlEntityManager, config: ClubConfig, participantId: string): Promise<Campaign[]> {
  const tournaments = new Set(config.tournaments.map((tournament) => tournament.id));
  const own = await em.find(LeaderboardEntry, { participantId }, { fields: ["campaignId"] });
  return own.filter(({ campaignId }) => !tournaments.has(campaignId)).map(({ campaignId }) => ({ id: campaignId }));
}

/** 1-based: ahead are those with more points, or as many reached earlier. Null without points. */
async function rankOf(em: SqlEntityManager, scope: Scope, campaign: Campaign, entry: LeaderboardEntry | null): Promise<number | null> {
  if (!entry || entry.points <= 0) return null;
  const ahead = await em.count(LeaderboardEntry, {
    ...scope,
    campaignId: campaign.id,
    $or: [
      { points: { $gt: entry.points } },
      { points: entry.points, updatedAt: { $lt: entry.updatedAt } },
      { points: entry.points, updatedAt: entry.updatedAt, id: { $lt: entry.id } },
    ],
  });
  return ahead + 1;
}

/**
 * GET /v1/me/leaderboards: the participant's points and rank in every visible
 * leaderboard, soonest ending first. A tournament's entry is its current
 * edition's score and rank from the tournament standings (the same as
 * `GET /v1/me/tournaments`); a campaign fed by `add_leaderboard_points` shows
 * its points.
 */
export async function listMyLeaderboards(db: Database, scope: Scope, externalId: string, now: Date): Promise<{ data: LeaderboardStanding[] }> {
  const em = db.em();
  const { participant, config } = await findMe(em, db, scope, externalId);
  const data: LeaderboardStanding[] = (await tournamentBoards(em, scope, config, participant.id, now)).map((board) => ({
    campaign_id: board.tournamentId,
    title: board.title,
    points: board.score,
    rank: board.rank,
    starts_at: board.startsAt.toISOString(),
    ends_at: board.endsAt.toISOString(),
  }));
  for (const campaign of await pointCampaigns(em, config, participant.id)) {
    const entry = await em.findOne(LeaderboardEntry, { participantId: participant.id, campaignId: campaign.id });
    data.push({
      campaign_id: campaign.id,
      title: campaign.id,
      points: entry ? pointsOf(entry.points) : 0,
      rank: await rankOf(em, scope, campaign, entry),
      starts_at: null,
      ends_at: null,
    });
  }
  // Campaigns without an end (not tournaments) come last.
  const end = (standing: LeaderboardStanding) => (standing.ends_at === null ? Number.POSITIVE_INFINITY : Date.parse(standing.ends_at));
  data.sort((a, b) => end(a) - end(b) || (a.campaign_id < b.campaign_id ? -1 : 1));
  return { data };
}

/** GET /v1/me/leaderboards/{campaign_id}: the top `limit` rows and the participant's own place; 404 for a campaign the participant cannot see. */
export async function getLeaderboard(
  db: Database,
  scope: Scope,
  externalId: string,
  campaignId: string,
  opts: { limit: number; now: Date },
): Promise<Leaderboard> {
  const em = db.em();
  const { participant, config } = await findMe(em, db, scope, externalId);
  const board = (await tournamentBoards(em, scope, config, participant.id, opts.now, opts.limit)).find((candidate) => candidate.tournamentId === campaignId);
  const campaign = board ? null : (await pointCampaigns(em, config, participant.id)).find((candidate) => candidate.id === campaignId);
  if (!board && !campaign) throw notFound(`Leaderboard ${JSON.stringify(campaignId)}`);
  const top = board
    ? board.top.map((row) => ({ participantId: row.participantId, points: row.score }))
    : (await em.find(
      LeaderboardEntry,
      { ...scope, campaignId, points: { $gt: 0 } },
      { orderBy: { points: "desc", updatedAt: "asc", id: "asc" }, limit: opts.limit },
    )).map((entry) => ({ participantId: entry.participantId, points: pointsOf(entry.points) }));
  const people = await em.find(Participant, { id: { $in: top.map((entry) => entry.participantId) } }, { fields: ["displayName", "avatarUrl"] });
  const byId = new Map(people.map((person) => [person.id, person]));
  let me: Leaderboard["me"];
  if (board) me = { rank: board.rank, points: board.score };
  else {
    const mine = await em.findOne(LeaderboardEntry, { participantId: participant.id, campaignId });
    me = { rank: await rankOf(em, scope, campaign!, mine), points: mine ? pointsOf(mine.points) : 0 };
  }
  return {
    campaign_id: campaignId,
    title: board?.title ?? campaignId,
    entries: top.map((entry, index) => ({
      rank: index + 1,
      display_name: byId.get(entry.participantId)?.displayName ?? null,
      avatar_url: byId.get(entry.participantId)?.avatarUrl ?? null,
      points: entry.points,
      is_me: entry.participantId === participant.id,
    })),
    me,
  };
}
