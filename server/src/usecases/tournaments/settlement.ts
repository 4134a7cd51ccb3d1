import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import { ConfigVersion, Participant, TournamentSettlement, TournamentStanding } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import type { ClubConfig, RewardConfig } from "../../engine/config.js";
import { grantRewards } from "../../engine/evaluate.js";
import { toMinorUnits } from "../../engine/money.js";
import {
  awardPrizes,
  endedEditions,
  minWagerMinor,
  OFFICIAL_PERIODS,
  officialPayouts,
  officialPool,
  closedOfficialPeriod,
  rankStandings,
  SCORE_DECIMALS,
  type Edition,
  type RankedRow,
} from "../../engine/tournaments/index.js";
import { getPublishedConfig } from "../club/index.js";
import { recordWebhook } from "../webhooks/index.js";
import { clubLabel } from "../club/index.js";
import { clubTimeZone, loadParticipantState, lockParticipant, persistEvaluation, webhookParticipant } from "../evaluation/index.js";
import { runEach } from "../shared/run-each.js";
import { editionScoreTotal, standingTournamentIds } from "../../db/tournaments/standing-sums.js";

/*
 * Settlement: when an edition ends, a scheduled job (every worker runs it)
 * freezes its standings, pays its prizes through the normal reward path and
 * announces it. The claim is the unique (club, env, tournament, edition) row
 * of TournamentSettlement inserted first in the settling transaction: a
 * second worker's insert waits for the first transaction and then conflicts,
 * so it rolls back and pays nothing; a failed settlement rolls its claim back
 * and the next pass tries again. Scoring stops at the edition's end (see the
 * engine), so nothing changes an edition after it is settled.
 */

type Schemas = components["schemas"];
export type TournamentFinishedData = Schemas["TournamentFinishedWebhookData"];

/** How many of the top standings `tournament.finished` carries. */
export const FINISHED_TOP_N = 10;

export interface SettlementRun {
  settled: number;
  prizes: number;
}

/** The reward an official prize grants: a cash delivery, listed first so a club reward with the same code never stands in for it. */
export function officialPrizeReward(
  config: ClubConfig,
  amountMinor: number,
  currency: string,
  tournamentId: string,
  editionKey: string,
  rank: number,
): RewardConfig {
  return {
    code: "official-tournament-prize",
    title: clubLabel(config, "official_prize_reward"),
    illustration: "trophy",
    type: "client_delivered",
    payload: { kind: "cash", amount_minor: amountMinor, currency, tournament_id: tournamentId, edition: editionKey, rank },
    expiresInDays: null,
    cost: null,
  };
}

function scoreOf(stored: number): number {
  return stored / 10 ** SCORE_DECIMALS;
}

async function topStandings(
  em: SqlEntityManager,
  scope: Scope,
  tournamentId: string,
  editionKey: string,
  minScore: number,
  limit: number,
): Promise<RankedRow[]> {
  const rows = await em.find(
    TournamentStanding,
    { ...scope, tournamentId, editionKey, score: { $gt: 0, $gte: minScore } },
    { orderBy: { score: "desc", reachedAt: "asc", participantId: "asc" }, limit },
  );
  return rankStandings(
    rows.map((row) => ({ participantId: row.participantId, score: row.score, reachedAt: row.reachedAt })),
    minScore,
  );
}

interface Payment {
  participantId: string;
  rank: number;
  config: ClubConfig;
  /** The prize as configured: a reward code, `reward:<code>`, `<currency>:<amount>` or `xp:<amount>` (granted as any reward spec). */
  rewardCode: string;
  ruleId: string;
  amountMinor?: number;
}

interface SettleContext {
  db: Database;
  em: SqlEntityManager;
  scope: Scope;
  config: ClubConfig;
  now: Date;
  publicUrl: string;
}

/** Grants one prize to one participant under their lock; returns what `tournament.finished` lists for it. */
async function pay(context: SettleContext, payment: Payment): Promise<Schemas["TournamentFinishedPrize"] | null> {
  const { em, scope, now, publicUrl } = context;
  const participant = await lockParticipant(em, { ...scope, id: payment.participantId });
  if (!participant) return null;
  const timeZone = clubTimeZone(payment.config);
  const state = await loadParticipantState(em, participant, payment.config, { now, timeZone });
  const evaluation = grantRewards({ config: payment.config, state, now, timeZone, specs: [payment.rewardCode], ruleId: payment.ruleId });
  const effects = await persistEvaluation({ em, scope, config: payment.config, participant, state, now, publicUrl, event: null }, evaluation);
  const granted = effects.find((effect) => effect.type === "reward_granted");
  return {
    rank: payment.rank,
    participant: webhookParticipant(participant),
    reward: payment.rewardCode,
    reward_id: granted?.type === "reward_granted" ? (granted.reward_id ?? null) : null,
    delivery_id: granted?.type === "reward_granted" ? (granted.delivery_id ?? null) : null,
    amount_minor: payment.amountMinor ?? null,
  };
}

interface EditionToSettle {
  tournamentId: string;
  title: string;
  kind: "tournament" | "official";
  edition: Edition;
  /** Ranked standings and what each winner gets, computed in the settling transaction. */
  plan(em: SqlEntityManager): Promise<{ ranked: RankedRow[]; payments: Payment[]; poolMinor: number | null; currency: string | null }>;
}

/**
 * Settles one edition once: claims it, pays, freezes the results and sends
 * `tournament.finished`. False when another pass (or worker) already did.
 */
async function settleEdition(
  db: Database,
  scope: Scope,
  config: ClubConfig,
  target: EditionToSettle,
  opts: { now: Date; publicUrl: string },
  run: SettlementRun,
): Promise<boolean> {
  try {
    await db.em().transactional(async (em) => {
      const claim = { id: newId("tse"), ...scope, tournamentId: target.tournamentId, editionKey: target.edition.key, results: {}, settledAt: opts.now };
      await em.insert(TournamentSettlement, claim);
      const { ranked, payments, poolMinor, currency } = await target.plan(em);
      const context: SettleContext = { db, em, scope, config, ...opts };
      const prizes: Schemas["TournamentFinishedPrize"][] = [];
      for (const payment of payments) {
        const prize = await pay(context, payment);
        if (prize) prizes.push(prize);
      }
      const people = await em.find(Participant, { id: { $in: ranked.slice(0, FINISHED_TOP_N).map((row) => row.participantId) } }, { fields: ["externalId"] });
      const byId = new Map(people.map((person) => [person.id, person]));
      const data: TournamentFinishedData = {
        tournament_id: target.tournamentId,
        kind: target.kind,
        title: target.title,
        edition_id: target.edition.key,
        starts_at: target.edition.startsAt.toISOString(),
        ends_at: target.edition.endsAt.toISOString(),
        pool_minor: poolMinor,
        currency,
        standings: ranked.slice(0, FINISHED_TOP_N).flatMap((row) => {
          const person = byId.get(row.participantId);
          return person ? [{ rank: row.rank, participant: webhookParticipant(person), score: scoreOf(row.score) }] : [];
        }),
        prizes,
      };
      await em.nativeUpdate(TournamentSettlement, { id: claim.id }, { results: data as unknown as Record<string, unknown> });
      await recordWebhook(em, scope, "tournament.finished", data as unknown as Record<string, unknown>, opts.now);
      run.prizes += prizes.length;
    });
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) return false;
    throw error;
  }
  run.settled += 1;
  return true;
}

/** The configured tournaments' editions ended at `now` and not settled yet. */
async function configuredEditions(em: SqlEntityManager, scope: Scope, config: ClubConfig, now: Date): Promise<EditionToSettle[]> {
  const timeZone = clubTimeZone(config);
  const due: EditionToSettle[] = [];
  for (const tournament of config.tournaments) {
    if (tournament.enabled === false) continue;
    for (const edition of endedEditions(tournament, now, timeZone)) {
      const minScore = toMinorUnits(tournament.minScore ?? 0, SCORE_DECIMALS);
      const lastPrizeRank = Math.max(...tournament.prizes.map((prize) => prize.to));
      due.push({
        tournamentId: tournament.id,
        title: tournament.title,
        kind: "tournament",
        edition,
        async plan(tx) {
          const ranked = await topStandings(tx, scope, tournament.id, edition.key, minScore, Math.max(lastPrizeRank, FINISHED_TOP_N));
          const payments = awardPrizes(ranked, tournament.prizes).map((award) => ({
            participantId: award.participantId,
            rank: award.rank,
            config,
            rewardCode: award.reward,
            ruleId: `tournament:${tournament.id}:${edition.key}`,
          }));
          return { ranked, payments, poolMinor: null, currency: null };
        },
      });
    }
  }
  return filterUnsettled(em, scope, due);
}

/** The official tracks' periods closed at `now` (the day and month before, grace included), for each currency wagered in them. */
async function officialEditions(em: SqlEntityManager, scope: Scope, config: ClubConfig, now: Date): Promise<EditionToSettle[]> {
  const official = config.officialTournaments;
  if (!official?.enabled) return [];
  const timeZone = official.timezone ?? "America/Sao_Paulo";
  const due: EditionToSettle[] = [];
  for (const period of OFFICIAL_PERIODS) {
    const settings = official[period];
    if (!settings || settings.enabled === false) continue;
    const edition = closedOfficialPeriod(period, now, timeZone);
    for (const track of official.tracks ?? []) {
      if (track.enabled === false) continue;
      const prefix = `official:${track.id}:${period}:`;
      const ids = await standingTournamentIds(em, { ...scope, editionKey: edition.key, tournamentId: { $like: `${prefix}%` } });
      for (const tournamentId of ids) {
        const currency = tournamentId.slice(prefix.length);
        due.push({
          tournamentId,
          title: clubLabel(config, `official_tournament_${period}`, { track: track.title }),
          kind: "official",
          edition,
          async plan(tx) {
            const total = await editionScoreTotal(tx, scope, tournamentId, edition.key);
            const poolMinor = officialPool(total, settings);
            const split = settings.split ?? [100];
            const ranked = await topStandings(tx, scope, tournamentId, edition.key, minWagerMinor(settings), Math.max(split.length, FINISHED_TOP_N));
            const payments = officialPayouts(ranked, poolMinor, split).map((payout) => ({
              participantId: payout.participantId,
              rank: payout.rank,
              rewardCode: "official-tournament-prize",
              amountMinor: payout.amountMinor,
              ruleId: `tournament:${tournamentId}:${edition.key}`,
              config: {
                ...config,
                rewards: [officialPrizeReward(config, payout.amountMinor, currency, tournamentId, edition.key, payout.rank), ...config.rewards],
              },
            }));
            return { ranked, payments, poolMinor, currency };
          },
        });
      }
    }
  }
  return filterUnsettled(em, scope, due);
}

/** Drops the editions already settled (one read), so a pass over settled editions writes nothing. */
async function filterUnsettled(em: SqlEntityManager, scope: Scope, editions: EditionToSettle[]): Promise<EditionToSettle[]> {
  if (editions.length === 0) return [];
  const settled = await em.find(
    TournamentSettlement,
    { ...scope, tournamentId: { $in: [...new Set(editions.map((e) => e.tournamentId))] } },
    { fields: ["tournamentId", "editionKey"] },
  );
  const done = new Set(settled.map((row) => `${row.tournamentId}\u0000${row.editionKey}`));
  return editions.filter((e) => !done.has(`${e.tournamentId}\u0000${e.edition.key}`));
}

/** Settles every edition of the club's tournaments and official tracks that ended at `now`. */
export async function settleTournaments(db: Database, scope: Scope, opts: { now: Date; publicUrl: string }): Promise<SettlementRun> {
  const run: SettlementRun = { settled: 0, prizes: 0 };
  const config = (await getPublishedConfig(db, scope))?.config;
  if (!config) return run;
  const em = db.em().fork();
  const due = [...(await configuredEditions(em, scope, config, opts.now)), ...(await officialEditions(em, scope, config, opts.now))];
  for (const target of due) await settleEdition(db, scope, config, target, opts, run);
  return run;
}

/** The scheduled job: settleTournaments for every club and environment with a published configuration. */
export async function settleTournamentsForAllClubs(db: Database, opts: { now: Date; publicUrl: string }): Promise<SettlementRun> {
  const published = await db.em().find(ConfigVersion, { status: "published" }, { fields: ["clubId", "env"], orderBy: { clubId: "asc", env: "asc" } });
  const total: SettlementRun = { settled: 0, prizes: 0 };
  await runEach(
    published,
    (row) => `tournament settlement of ${row.clubId}/${row.env}`,
    async (row) => {
      const run = await settleTournaments(db, { clubId: row.clubId, env: row.env }, opts);
      total.settled += run.settled;
      total.prizes += run.prizes;
    },
  );
  return total;
}
