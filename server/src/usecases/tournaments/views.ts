import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import { Participant, TournamentSettlement, TournamentStanding } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import type { ClubConfig } from "../../engine/config.js";
import { toMinorUnits } from "../../engine/money.js";
import {
  editionAt,
  latestEdition,
  minWagerMinor,
  OFFICIAL_PERIODS,
  officialPeriod,
  officialPool,
  officialShare,
  previousOfficialPeriod,
  SCORE_DECIMALS,
  type Edition,
  type OfficialPeriodName,
  type OfficialPeriodSettings,
} from "../../engine/tournaments/index.js";
import { requirePublishedConfig } from "../club/index.js";
import { notFound } from "../shared/errors.js";
import { clubLabel } from "../club/index.js";
import { clubTimeZone } from "../evaluation/index.js";
import { participantNotFound } from "../participants/index.js";
import { editionTotals, standingTournamentIds } from "../../db/tournaments/standing-sums.js";

/*
 * Read side of tournaments: which tournaments and editions exist at `now`
 * (from the configuration), and their standings (from TournamentStanding,
 * through its (club, env, tournament, edition, score, reached_at) index: the
 * top N read in index order, a rank counted over the rows ahead only).
 */

type Schemas = components["schemas"];
type Status = Schemas["TournamentEditionStatus"];

/** Configured editions stay listed this long after they end. */
const RECENT_MS = 7 * 86_400_000;
/** The currency official tracks are shown in before anyone wagered. */
const DEFAULT_CURRENCY = "BRL";

interface CatalogEntry {
  tournamentId: string;
  kind: "tournament" | "official";
  title: string;
  trackId: string | null;
  period: OfficialPeriodName | null;
  currency: string | null;
  /** Hundredths below which nobody ranks. */
  minScore: number;
  /** Current (or last) edition first, then the previous one. */
  editions: Edition[];
  prizes: { from: number; to: number; reward: string }[];
  official: OfficialPeriodSettings | null;
}

async function officialCurrencies(em: SqlEntityManager, scope: Scope, prefix: string, editionKeys: string[]): Promise<string[]> {
  const ids = await standingTournamentIds(em, { ...scope, editionKey: { $in: editionKeys }, tournamentId: { $like: `${prefix}%` } });
  const currencies = [...new Set(ids.map((id) => id.slice(prefix.length)))].sort();
  return currencies.length > 0 ? currencies : [DEFAULT_CURRENCY];
}

/**
 * Every enabled tournament that has started and, unless `configuredOnly`, every
 * enabled official track and period, with their current and previous editions.
 */
async function catalog(em: SqlEntityManager, scope: Scope, config: ClubConfig, now: Date, configuredOnly = false): Promise<CatalogEntry[]> {
  const timeZone = clubTimeZone(config);
  const entries: CatalogEntry[] = [];
  for (const tournament of config.tournaments) {
    if (tournament.enabled === false) continue;
    const latest = latestEdition(tournament, now, timeZone);
    if (!latest) continue;
    const editions = [latest, ...(latest.index > 0 ? [editionAt(tournament, latest.index - 1, timeZone)] : [])].filter(
      (edition) => now.getTime() < edition.endsAt.getTime() + RECENT_MS,
    );
    if (editions.length === 0) continue;
    entries.push({
      tournamentId: tournament.id,
      kind: "tournament",
      title: tournament.title,
      trackId: null,
      period: null,
      currency: null,
      minScore: toMinorUnits(tournament.minScore ?? 0, SCORE_DECIMALS),
      editions,
      prizes: tournament.prizes,
      official: null,
    });
  }
  const official = config.officialTournaments;
  if (official?.enabled && !configuredOnly) {
    const zone = official.timezone ?? "America/Sao_Paulo";
    for (const period of OFFICIAL_PERIODS) {
      const settings = official[period];
      if (!settings || settings.enabled === false) continue;
      const editions = [officialPeriod(period, now, zone), previousOfficialPeriod(period, now, zone)];
      for (const track of official.tracks ?? []) {
        if (track.enabled === false) continue;
        const prefix = `official:${track.id}:${period}:`;
        for (const currency of await officialCurrencies(
          em,
          scope,
          prefix,
          editions.map((edition) => edition.key),
        )) {
          entries.push({
            tournamentId: `${prefix}${currency}`,
            kind: "official",
            title: clubLabel(config, `official_tournament_${period}`, { track: track.title }),
            trackId: track.id,
            period,
            currency,
            minScore: minWagerMinor(settings),
            editions,
            prizes: [],
            official: settings,
          });
        }
      }
    }
  }
  return entries;
}

async function settledKeys(em: SqlEntityManager, scope: Scope, entries: CatalogEntry[]): Promise<Set<string>> {
  if (entries.length === 0) return new Set();
  const rows = await em.find(
    TournamentSettlement,
    { ...scope, tournamentId: { $in: entries.map((entry) => entry.tournamentId) } },
    { fields: ["tournamentId", "editionKey"] },
  );
  return new Set(rows.map((row) => `${row.tournamentId}\u0000${row.editionKey}`));
}

function statusOf(entry: CatalogEntry, edition: Edition, settled: Set<string>, now: Date): Status {
  if (now < edition.endsAt) return "running";
  return settled.has(`${entry.tournamentId}\u0000${edition.key}`) ? "settled" : "ended";
}

const scoreOf = (stored: number) => stored / 10 ** SCORE_DECIMALS;

function prizesOf(entry: CatalogEntry, poolMinor: number | null): Schemas["TournamentPrizeRange"][] {
  if (entry.official) {
    return (entry.official.split ?? [100]).map((_, index) => ({
      from: index + 1,
      to: index + 1,
      reward: "official-tournament-prize",
      amount_minor: officialShare(poolMinor ?? 0, entry.official!.split ?? [100], index + 1),
    }));
  }
  return entry.prizes.map((prize) => ({ from: prize.from, to: prize.to, reward: prize.reward, amount_minor: null }));
}

/** The ranking rows of an edition in rank order: `limit` after `offset`. */
async function rankedRows(
  em: SqlEntityManager,
  scope: Scope,
  entry: CatalogEntry,
  editionKey: string,
  limit: number,
  offset = 0,
): Promise<TournamentStanding[]> {
  return em.find(
    TournamentStanding,
    { ...scope, tournamentId: entry.tournamentId, editionKey, score: { $gt: 0, $gte: entry.minScore } },
    { orderBy: { score: "desc", reachedAt: "asc", participantId: "asc" }, limit, offset },
  );
}

/** 1-based rank of a standing: the rows ahead of it, counted in the index; null when it does not rank. */
async function rankOf(em: SqlEntityManager, scope: Scope, entry: CatalogEntry, row: TournamentStanding | null): Promise<number | null> {
  if (!row || row.score <= 0 || row.score < entry.minScore) return null;
  const ahead = await em.count(TournamentStanding, {
    ...scope,
    tournamentId: row.tournamentId,
    editionKey: row.editionKey,
    $or: [
      { score: { $gt: row.score } },
      { score: row.score, reachedAt: { $lt: row.reachedAt } },
      { score: row.score, reachedAt: row.reachedAt, participantId: { $lt: row.participantId } },
    ],
  });
  return ahead + 1;
}

/** A configured tournament's current (or last) edition as the participant stands in it, with its top rows when asked. */
export interface TournamentBoard {
  tournamentId: string;
  title: string;
  startsAt: Date;
  endsAt: Date;
  score: number;
  rank: number | null;
  top: { rank: number; participantId: string; score: number }[];
}

/**
 * The participant's standing in each visible configured tournament's current
 * edition, read from the tournament standings: the score and rank
 * `GET /v1/me/tournaments` shows, so the leaderboards that show tournaments
 * (`/v1/me/leaderboards`, the widget's leaderboard block) agree with it.
 */
export async function tournamentBoards(
  em: SqlEntityManager,
  scope: Scope,
  config: ClubConfig,
  participantId: string,
  now: Date,
  topLimit = 0,
): Promise<TournamentBoard[]> {
  const boards: TournamentBoard[] = [];
  for (const entry of await catalog(em, scope, config, now, true)) {
    const edition = entry.editions[0];
    const mine = await em.findOne(TournamentStanding, { ...scope, participantId, tournamentId: entry.tournamentId, editionKey: edition.key });
    const top = topLimit > 0 ? await rankedRows(em, scope, entry, edition.key, topLimit) : [];
    boards.push({
      tournamentId: entry.tournamentId,
      title: entry.title,
      startsAt: edition.startsAt,
      endsAt: edition.endsAt,
      score: mine ? scoreOf(mine.score) : 0,
      rank: await rankOf(em, scope, entry, mine),
      top: top.map((row, index) => ({ rank: index + 1, participantId: row.participantId, score: scoreOf(row.score) })),
    });
  }
  return boards;
}

/** GET /v1/me/tournaments. */
export async function listMyTournaments(
  db: Database,
  scope: Scope,
  externalId: string,
  opts: { limit: number; now: Date },
): Promise<Schemas["MyTournamentList"]> {
  const em = db.em();
  const { config } = await requirePublishedConfig(db, scope);
  const me = await em.findOne(Participant, { ...scope, externalId });
  if (!me) throw participantNotFound(externalId);
  const entries = await catalog(em, scope, config, opts.now);
  const settled = await settledKeys(em, scope, entries);
  const data: Schemas["MyTournamentEdition"][] = [];
  for (const entry of entries) {
    for (const edition of entry.editions) {
      const pool = entry.official ? officialPool((await editionTotals(em, scope, entry.tournamentId, edition.key)).total, entry.official) : null;
      const top = await rankedRows(em, scope, entry, edition.key, opts.limit);
      const people = await em.find(Participant, { id: { $in: top.map((row) => row.participantId) } }, { fields: ["displayName", "avatarUrl"] });
      const byId = new Map(people.map((person) => [person.id, person]));
      const mine = await em.findOne(TournamentStanding, { participantId: me.id, tournamentId: entry.tournamentId, editionKey: edition.key });
      data.push({
        tournament_id: entry.tournamentId,
        kind: entry.kind,
        title: entry.title,
        track_id: entry.trackId,
        period: entry.period,
        edition_id: edition.key,
        starts_at: edition.startsAt.toISOString(),
        ends_at: edition.endsAt.toISOString(),
        status: statusOf(entry, edition, settled, opts.now),
        score: mine ? scoreOf(mine.score) : 0,
        rank: await rankOf(em, scope, entry, mine),
        top: top.map((row, index) => ({
          rank: index + 1,
          display_name: byId.get(row.participantId)?.displayName ?? null,
          avatar_url: byId.get(row.participantId)?.avatarUrl ?? null,
          score: scoreOf(row.score),
          is_me: row.participantId === me.id,
        })),
        prizes: prizesOf(entry, pool),
        pool_minor: pool,
        currency: entry.currency,
      });
    }
  }
  data.sort((a, b) => Date.parse(a.ends_at) - Date.parse(b.ends_at) || (a.tournament_id < b.tournament_id ? -1 : 1));
  return { data };
}

/** GET /v1/tournaments. */
export async function listTournaments(db: Database, scope: Scope, now: Date): Promise<Schemas["TournamentList"]> {
  const em = db.em();
  const { config } = await requirePublishedConfig(db, scope);
  const entries = await catalog(em, scope, config, now);
  const settled = await settledKeys(em, scope, entries);
  const data: Schemas["TournamentSummary"][] = [];
  for (const entry of entries) {
    const editions: Schemas["TournamentEditionSummary"][] = [];
    let livePool: number | null = null;
    for (const edition of entry.editions) {
      const totals = await editionTotals(em, scope, entry.tournamentId, edition.key);
      const pool = entry.official ? officialPool(totals.total, entry.official) : null;
      livePool ??= pool;
      editions.push({
        edition_id: edition.key,
        starts_at: edition.startsAt.toISOString(),
        ends_at: edition.endsAt.toISOString(),
        status: statusOf(entry, edition, settled, now),
        participants: totals.participants,
        pool_minor: pool,
      });
    }
    data.push({
      tournament_id: entry.tournamentId,
      kind: entry.kind,
      title: entry.title,
      track_id: entry.trackId,
      period: entry.period,
      currency: entry.currency,
      prizes: prizesOf(entry, livePool),
      editions,
    });
  }
  return { data };
}

/** GET /v1/tournaments/{tournament_id}/editions/{edition_id}/standings. */
export async function listStandings(
  db: Database,
  scope: Scope,
  tournamentId: string,
  editionId: string,
  opts: { limit: number; afterRank?: number; now: Date },
): Promise<Schemas["TournamentStandingPage"]> {
  const em = db.em();
  const { config } = await requirePublishedConfig(db, scope);
  const entry =
    (await catalog(em, scope, config, opts.now)).find((candidate) => candidate.tournamentId === tournamentId) ?? olderEntry(config, tournamentId, editionId);
  const edition = entry?.editions.find((candidate) => candidate.key === editionId);
  if (!entry || !edition) throw notFound(`Edition ${JSON.stringify(editionId)} of tournament ${JSON.stringify(tournamentId)}`);
  const after = opts.afterRank ?? 0;
  const rows = await rankedRows(em, scope, entry, editionId, opts.limit + 1, after);
  const page = rows.slice(0, opts.limit);
  const people = await em.find(Participant, { id: { $in: page.map((row) => row.participantId) } }, { fields: ["externalId", "displayName"] });
  const byId = new Map(people.map((person) => [person.id, person]));
  const settled = await settledKeys(em, scope, [entry]);
  return {
    tournament_id: tournamentId,
    edition_id: editionId,
    status: statusOf(entry, edition, settled, opts.now),
    data: page.map((row, index) => ({
      rank: after + index + 1,
      participant_id: row.participantId,
      external_id: byId.get(row.participantId)?.externalId ?? "",
      display_name: byId.get(row.participantId)?.displayName ?? null,
      score: scoreOf(row.score),
    })),
    has_more: rows.length > opts.limit,
  };
}

/**
 * An edition older than the catalog's two (or of an official currency not
 * listed now), found from the configuration: any edition of a configured
 * tournament by its start date, any official day or month by its key.
 */
function olderEntry(config: ClubConfig, tournamentId: string, editionId: string): CatalogEntry | undefined {
  const timeZone = clubTimeZone(config);
  const tournament = config.tournaments.find((candidate) => candidate.id === tournamentId);
  if (tournament) {
    const first = editionAt(tournament, 0, timeZone);
    const weeks = tournament.recurrence === "weekly" ? Math.round((Date.parse(`${editionId}T12:00:00Z`) - first.startsAt.getTime()) / (7 * 86_400_000)) : 0;
    const edition = weeks >= 0 ? editionAt(tournament, weeks, timeZone) : null;
    if (!edition || edition.key !== editionId) return undefined;
    return {
      tournamentId,
      kind: "tournament",
      title: tournament.title,
      trackId: null,
      period: null,
      currency: null,
      minScore: toMinorUnits(tournament.minScore ?? 0, SCORE_DECIMALS),
      editions: [edition],
      prizes: tournament.prizes,
      official: null,
    };
  }
  const match = /^official:([a-z0-9-]+):(daily|monthly):([A-Z]{3})$/.exec(tournamentId);
  const official = config.officialTournaments;
  if (!match || !official?.enabled) return undefined;
  const [, trackId, period, currency] = match as unknown as [string, string, OfficialPeriodName, string];
  const track = official.tracks?.find((candidate) => candidate.id === trackId);
  const settings = official[period];
  const zone = official.timezone ?? "America/Sao_Paulo";
  const isDay = /^\d{4}-\d{2}-\d{2}$/.test(editionId);
  if (!track || !settings || isDay !== (period === "daily")) return undefined;
  // Noon UTC of the day (or the month's 15th) lies inside it in every time zone.
  const edition = officialPeriod(period, new Date(`${isDay ? editionId : `${editionId}-15`}T12:00:00Z`), zone);
  if (edition.key !== editionId) return undefined;
  return {
    tournamentId,
    kind: "official",
    title: track.title,
    trackId,
    period,
    currency,
    minScore: minWagerMinor(settings),
    editions: [edition],
    prizes: [],
    official: settings,
  };
}
