import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import type { ClubConfig } from "../../engine/config.js";
import { LeaderboardEntry, Participant } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { notFound } from "../shared/errors.js";
import { pointsOf } from "../evaluation/index.js";
import { tournamentBoards } from "./views.js";
import { findMe } from "../participants/index.js";

/** The participant's leaderboards (`/v1/me/leaderboards`): tournaments' standings and point campaigns. */

type Schemas = components["schemas"];
export type LeaderboardStanding = Schemas["LeaderboardStanding"];
export type Leaderboard = Schemas["Leaderboard"];

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
    : (
        await em.find(
          LeaderboardEntry,
          { ...scope, campaignId, points: { $gt: 0 } },
          { orderBy: { points: "desc", updatedAt: "asc", id: "asc" }, limit: opts.limit },
        )
      ).map((entry) => ({ participantId: entry.participantId, points: pointsOf(entry.points) }));
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
