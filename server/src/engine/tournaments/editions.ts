import type { components } from "../../../../generated/types.js";
import { dayKey, instantOf, localDateTime, monthKey } from "../time.js";

/*
 * Editions: each run of a tournament is an edition with its own key, window
 * and standings. A `weekly` tournament repeats its configured window every 7
 * days of the club's wall clock (the same local start time, also across a DST
 * change); a `none` tournament has one edition. An edition's key is the club
 * date its window starts ("2026-11-23"). Official tournaments cut days and
 * months in their own time zone; their keys are "2026-11-23" and "2026-11".
 */

export type TournamentConfig = components["schemas"]["TournamentConfig"];

export interface Edition {
  key: string;
  /** 0 for the configured window, n for the window n weeks later. */
  index: number;
  startsAt: Date;
  /** Excluded: the edition is [startsAt, endsAt). */
  endsAt: Date;
}

const DAY_MS = 86_400_000;

/**
 * How long after its end an edition still takes events that occurred inside
 * it: an event accepted just before the end (an async one still queued, a
 * batch in flight) still counts. Settlement waits for it, so an edition is
 * settled, and then closed for good, at `endsAt` + this grace.
 */
const LATE_EVENT_GRACE_MS = 2 * 60_000;

/** When an edition stops taking events and may be settled. */
function closesAt(edition: Pick<Edition, "endsAt">): Date {
  return new Date(edition.endsAt.getTime() + LATE_EVENT_GRACE_MS);
}

/** Whether the edition no longer takes events at `now` (closesAt without a Date: scoring asks for every event). */
export function isClosed(edition: Pick<Edition, "endsAt">, now: Date): boolean {
  return now.getTime() >= edition.endsAt.getTime() + LATE_EVENT_GRACE_MS;
}
const WEEK_MS = 7 * DAY_MS;

/** The instant whose club wall time is `instant`'s plus `days` days. */
function addLocalDays(instant: Date, days: number, timeZone: string): Date {
  if (days === 0) return instant;
  const local = localDateTime(instant, timeZone);
  const moved = new Date(Date.UTC(local.year, local.month - 1, local.day + days));
  return instantOf({ ...local, year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() }, timeZone);
}

/**
 * Editions and official periods worked out, by what decides them (never by
 * config object, so an edited config cannot see a stale one): scoring asks
 * for the same few on every event, and each costs several wall-clock
 * conversions. Frozen, since callers share them. Cleared when full.
 */
const EDITION_MEMO_LIMIT = 4096;
const editionMemo = new Map<string, Edition>();

function memoized(key: string, compute: () => Edition): Edition {
  let edition = editionMemo.get(key);
  if (!edition) {
    if (editionMemo.size >= EDITION_MEMO_LIMIT) editionMemo.clear();
    editionMemo.set(key, (edition = Object.freeze(compute())));
  }
  return edition;
}

/** The tournament's n-th edition (n ≥ 0; only 0 exists without recurrence). */
export function editionAt(tournament: TournamentConfig, index: number, timeZone: string): Edition {
  return memoized(`edition\u0000${tournament.startsAt}\u0000${tournament.endsAt}\u0000${index}\u0000${timeZone}`, () => {
    const startsAt = addLocalDays(new Date(tournament.startsAt), 7 * index, timeZone);
    const endsAt = addLocalDays(new Date(tournament.endsAt), 7 * index, timeZone);
    return { key: dayKey(startsAt, timeZone), index, startsAt, endsAt };
  });
}

function weekly(tournament: TournamentConfig): boolean {
  return tournament.recurrence === "weekly";
}

/**
 * The edition whose window contains `instant`, or null (before the first,
 * between editions, after the only one).
 */
export function editionContaining(tournament: TournamentConfig, instant: Date, timeZone: string): Edition | null {
  const candidates = candidateEditions(tournament, instant, timeZone);
  if (candidates === null) return null;
  const at = instant.getTime();
  for (let i = 0; i < candidates.length; i++) {
    const edition = candidates[i];
    if (edition !== null && edition.startsAt.getTime() <= at && at < edition.endsAt.getTime()) return edition;
  }
  return null;
}

/**
 * The editions that may contain `instant`, in the order they are tried: the
 * week its offset from the first start falls in, then the week before and
 * after it (a DST change moves local weeks by an hour); null before the first
 * start. Slots that cannot exist (a negative index, a later edition of a
 * tournament without recurrence) are null.
 */
function candidateEditions(tournament: TournamentConfig, instant: Date, timeZone: string): readonly (Edition | null)[] | null {
  // Scoring asks for the same tournament and week on every event of a batch: the last answer is kept per tournament
  // object, and used only while everything that decides it (the window's text, the recurrence, the zone, the week) is the same.
  let last = lastCandidates.get(tournament);
  const fresh =
    last !== undefined &&
    last.startsAt === tournament.startsAt &&
    last.endsAt === tournament.endsAt &&
    last.weekly === weekly(tournament) &&
    last.timeZone === timeZone;
  const startMs = fresh ? last!.startMs : Date.parse(tournament.startsAt);
  const offset = instant.getTime() - startMs;
  if (offset < 0) return null;
  const guess = weekly(tournament) ? Math.floor(offset / WEEK_MS) : 0;
  if (fresh && last!.guess === guess) return last!.editions;
  const slot = (index: number) => (index < 0 || (index > 0 && !weekly(tournament)) ? null : editionAt(tournament, index, timeZone));
  last = {
    startsAt: tournament.startsAt,
    endsAt: tournament.endsAt,
    weekly: weekly(tournament),
    timeZone,
    startMs,
    guess,
    editions: Object.freeze([slot(guess), slot(guess - 1), slot(guess + 1)]),
  };
  lastCandidates.set(tournament, last);
  return last.editions;
}
const lastCandidates = new WeakMap<
  TournamentConfig,
  {
    startsAt: string;
    endsAt: string;
    weekly: boolean;
    timeZone: string;
    startMs: number;
    guess: number;
    editions: readonly (Edition | null)[];
  }
>();

/** The last edition that started at or before `now` (running or ended), or null before the first. */
export function latestEdition(tournament: TournamentConfig, now: Date, timeZone: string): Edition | null {
  const offset = now.getTime() - Date.parse(tournament.startsAt);
  if (offset < 0) return null;
  if (!weekly(tournament)) return editionAt(tournament, 0, timeZone);
  let index = Math.floor(offset / WEEK_MS) + 1;
  while (index > 0 && editionAt(tournament, index, timeZone).startsAt > now) index -= 1;
  return editionAt(tournament, index, timeZone);
}

/**
 * Editions closed at `now` (ended, grace included) that may still need settling, newest first: the
 * last `lookBack` of them (a worker down for longer than that many weeks does
 * not settle the older ones).
 */
export function endedEditions(tournament: TournamentConfig, now: Date, timeZone: string, lookBack = 2): Edition[] {
  const latest = latestEdition(tournament, now, timeZone);
  if (!latest) return [];
  const ended: Edition[] = [];
  for (let index = latest.index; index >= 0 && ended.length < lookBack && index > latest.index - lookBack - 1; index -= 1) {
    const edition = editionAt(tournament, index, timeZone);
    if (closesAt(edition) <= now) ended.push(edition);
  }
  return ended;
}

export type OfficialPeriodName = "daily" | "monthly";

/** The official day or month containing `instant`, in `timeZone`. */
export function officialPeriod(period: OfficialPeriodName, instant: Date, timeZone: string): Edition {
  // The period is decided by the local date (daily) or month (monthly) alone.
  const local = period === "daily" ? dayKey(instant, timeZone) : monthKey(instant, timeZone);
  // Every bet asks for the same period as the bet before: that one is kept apart, without building the memo's key.
  const last = lastOfficial[period];
  if (last !== null && last.local === local && last.timeZone === timeZone) return last.edition;
  const edition = memoized(`official\u0000${period}\u0000${local}\u0000${timeZone}`, () => computeOfficialPeriod(period, instant, timeZone));
  lastOfficial[period] = { local, timeZone, edition };
  return edition;
}
const lastOfficial: Record<OfficialPeriodName, { local: string; timeZone: string; edition: Edition } | null> = { daily: null, monthly: null };

function computeOfficialPeriod(period: OfficialPeriodName, instant: Date, timeZone: string): Edition {
  const local = localDateTime(instant, timeZone);
  const midnight = { hour: 0, minute: 0, second: 0 };
  if (period === "daily") {
    const next = new Date(Date.UTC(local.year, local.month - 1, local.day + 1));
    return {
      key: dayKey(instant, timeZone),
      index: 0,
      startsAt: instantOf({ year: local.year, month: local.month, day: local.day, ...midnight }, timeZone),
      endsAt: instantOf({ year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate(), ...midnight }, timeZone),
    };
  }
  const next = new Date(Date.UTC(local.year, local.month, 1));
  return {
    key: monthKey(instant, timeZone),
    index: 0,
    startsAt: instantOf({ year: local.year, month: local.month, day: 1, ...midnight }, timeZone),
    endsAt: instantOf({ year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: 1, ...midnight }, timeZone),
  };
}

/** The official day or month before the one containing `now`. */
export function previousOfficialPeriod(period: OfficialPeriodName, now: Date, timeZone: string): Edition {
  const current = officialPeriod(period, now, timeZone);
  return officialPeriod(period, new Date(current.startsAt.getTime() - 1), timeZone);
}

/** The official day or month a settlement at `now` closes: the one before the period containing `now` − grace. */
export function closedOfficialPeriod(period: OfficialPeriodName, now: Date, timeZone: string): Edition {
  return previousOfficialPeriod(period, new Date(now.getTime() - LATE_EVENT_GRACE_MS), timeZone);
}
