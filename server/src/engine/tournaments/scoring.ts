import type { components } from "../../../../generated/types.js";
import { eventField, evaluateFieldCondition } from "../conditions.js";
import type { GameFilterScope, GameLists } from "../config.js";
import { matchesGameFilter } from "../games.js";
import { toMinorUnits } from "../money.js";
import type { EngineEvent } from "../types.js";
import { editionContaining, isClosed, officialPeriod, type OfficialPeriodName, type TournamentConfig } from "./editions.js";

/*
 * Scoring from the tournament's own configuration, on the ingestion path: an
 * event gives at most one score delta per affected standing (tournament ×
 * edition), which the caller writes as one upsert per standing together with
 * the event's other writes. No reads: whether the edition is running is
 * decided from the event's time and `now` alone.
 *
 * Scores are integers in hundredths:
 * - `sum` adds the event's `field` (default `amount`), truncated to the hundredth;
 * - `count` adds 1 (100 hundredths) per event;
 * - `max_ratio` keeps the best single ratio `field ÷ amount` (e.g. `meta.win ÷
 *   amount`, the win multiplier), truncated to the hundredth; events without a
 *   positive `amount` or a numeric `field` do not score.
 * Official tournaments score the wagered amount (`bet.placed` `amount`) in cents.
 */

export type OfficialTournamentsConfig = components["schemas"]["OfficialTournamentsConfig"];

/** Scores are stored in hundredths. */
export const SCORE_DECIMALS = 2;

export interface ScoreDelta {
  /** A tournament id, or `official:<track>:<period>:<currency>`. */
  tournamentId: string;
  editionKey: string;
  /** `add` raises the stored score by `score`; `max` keeps the larger. */
  mode: "add" | "max";
  score: number;
  /** When the score was reached: the event's time (ties rank the earlier first). */
  reachedAt: Date;
}

export interface ScoringInput {
  tournaments: TournamentConfig[];
  officialTournaments?: OfficialTournamentsConfig;
  /** The club-wide `games.exclude`. */
  globalExclude?: GameLists;
  event: EngineEvent;
  now: Date;
  /** The club time zone (editions of configured tournaments). */
  timeZone: string;
}

/** A value in hundredths, or null when it is no non-negative decimal. */
function hundredths(value: unknown): number | null {
  if (typeof value !== "number" && typeof value !== "string") return null;
  try {
    return toMinorUnits(value, SCORE_DECIMALS);
  } catch {
    return null;
  }
}

/** The score one event gives in a tournament, or null when it gives none. */
function eventScore(tournament: TournamentConfig, event: EngineEvent): number | null {
  const field = tournament.field ?? "amount";
  switch (tournament.scoring ?? "sum") {
    case "count":
      return 100;
    case "sum":
      return hundredths(eventField(event, field));
    case "max_ratio": {
      const value = hundredths(eventField(event, field));
      const amount = hundredths(event.amount);
      if (value === null || amount === null || amount <= 0) return null;
      return Math.floor((value * 100) / amount);
    }
  }
}

function passesFilters(tournament: TournamentConfig, event: EngineEvent, globalExclude: GameLists | undefined): boolean {
  const { conditions } = tournament;
  // The conditions' context only when there are conditions: this runs per event and tournament of a batch.
  if (conditions !== undefined && conditions.length > 0) {
    const context = { event, participant: { xp: 0, level: 0, tier: "", tags: [] }, eventCountBefore: 0 };
    if (!conditions.every((condition) => evaluateFieldCondition(condition, context))) return false;
  }
  return matchesGameFilter(tournament.games as Partial<GameFilterScope> | undefined, event.meta, globalExclude);
}

/**
 * The score deltas of one event: for each enabled tournament of the event's
 * type whose edition containing the event's time still takes events at `now`
 * (its end plus LATE_EVENT_GRACE_MS, when settlement closes it: a later event
 * never changes a settled edition), and for each
 * official track and period when it is a `bet.placed`.
 */
export function scoreEvent(input: ScoringInput): ScoreDelta[] {
  const { event, now, timeZone } = input;
  const at = occurredAt(event.occurred_at);
  if (Number.isNaN(at.getTime())) return [];
  const deltas: ScoreDelta[] = [];
  for (const tournament of input.tournaments) {
    if (tournament.enabled === false || tournament.event !== event.type) continue;
    const edition = editionContaining(tournament, at, timeZone);
    if (!edition || isClosed(edition, now)) continue;
    if (!passesFilters(tournament, event, input.globalExclude)) continue;
    const score = eventScore(tournament, event);
    if (score === null || score <= 0) continue;
    deltas.push({ tournamentId: tournament.id, editionKey: edition.key, mode: tournament.scoring === "max_ratio" ? "max" : "add", score, reachedAt: at });
  }
  // Most events score in no configured tournament: the official deltas are then the answer as they are.
  const official = officialDeltas(input, at);
  if (deltas.length === 0) return official;
  for (const delta of official) deltas.push(delta);
  return deltas;
}

/**
 * The event's time as a Date, the one of the last event when its text is the
 * same (a batch's events without their own time all have their arrival's):
 * the deltas and the standings only read it.
 */
function occurredAt(text: string): Date {
  if (text !== lastOccurredText) {
    lastOccurredText = text;
    lastOccurredAt = new Date(text);
  }
  return lastOccurredAt;
}
let lastOccurredText = "";
let lastOccurredAt = new Date(Number.NaN);

/** The standing id of an official track, period and currency. */
function officialTournamentId(trackId: string, period: OfficialPeriodName, currency: string): string {
  // Kept per track, period and currency (a handful): every bet scores in each, and each standing row holds the id until written.
  let byCurrency = officialIds.get(trackId)?.[period];
  if (!byCurrency) {
    if (officialIds.size >= OFFICIAL_IDS_LIMIT) officialIds.clear();
    const periods = officialIds.get(trackId) ?? { daily: new Map(), monthly: new Map() };
    officialIds.set(trackId, periods);
    byCurrency = periods[period];
  }
  let id = byCurrency.get(currency);
  if (id === undefined) {
    // Currencies come with events: the bound keeps odd ones from growing the cache without end.
    if (byCurrency.size >= OFFICIAL_IDS_LIMIT) byCurrency.clear();
    byCurrency.set(currency, (id = `official:${trackId}:${period}:${currency}`));
  }
  return id;
}
const OFFICIAL_IDS_LIMIT = 1000;
const officialIds = new Map<string, Record<OfficialPeriodName, Map<string, string>>>();

export const OFFICIAL_PERIODS: OfficialPeriodName[] = ["daily", "monthly"];

function officialDeltas(input: ScoringInput, at: Date): ScoreDelta[] {
  const official = input.officialTournaments;
  const { event, now } = input;
  if (!official?.enabled || event.type !== "bet.placed") return [];
  const wager = hundredths(event.amount);
  if (wager === null || wager <= 0) return [];
  const timeZone = official.timezone ?? "America/Sao_Paulo";
  const deltas: ScoreDelta[] = [];
  for (const period of OFFICIAL_PERIODS) {
    if (official[period]?.enabled === false) continue;
    const edition = officialPeriod(period, at, timeZone);
    if (isClosed(edition, now)) continue;
    for (const track of official.tracks ?? []) {
      if (track.enabled === false || !matchesGameFilter(track.games as Partial<GameFilterScope>, event.meta, input.globalExclude)) continue;
      deltas.push({ tournamentId: officialTournamentId(track.id, period, event.currency), editionKey: edition.key, mode: "add", score: wager, reachedAt: at });
    }
  }
  return deltas;
}
