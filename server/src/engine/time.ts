/**
 * Calendar arithmetic in the club's time zone over Intl.DateTimeFormat (no
 * time-zone library): club days, ISO weeks and months, and the instant the
 * next club day starts. Keys are what the engine stores to know when a
 * counter belongs to an earlier period.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

interface LocalDate {
  year: number;
  month: number; // 1..12
  day: number;
}

export interface LocalDateTime extends LocalDate {
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    // Throws RangeError for an unknown zone, which is what callers should see.
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The wall time at `instant` from Intl (exact for any offset, but a few µs per call). */
function formattedLocalDateTime(instant: Date, timeZone: string): LocalDateTime {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(instant)) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  return { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute, second: parts.second };
}

/**
 * What is known of one UTC minute in one zone: the zone's offset then, and the
 * period keys worked out so far. Zone offsets are whole minutes and change at
 * whole minutes (since the 1970s everywhere), so every instant of a UTC minute
 * has the same offset, the same local date and the same day/week/month keys:
 * the engine asks for them several times per event, nearly always for the
 * current minute, and Intl.formatToParts costs more than the rest of a key.
 */
interface MinuteMemo {
  /** local − UTC in ms; NaN when the offset is not whole minutes (old local mean times): no memo then. */
  offset: number;
  days?: Map<number, string>;
  week?: string;
  month?: string;
}

const MINUTE_MS = 60_000;
/** Per zone; cleared when full, which only a replay over many distinct minutes reaches. */
const MEMO_LIMIT = 4096;
const minuteMemos = new Map<string, Map<number, MinuteMemo>>();

function minuteMemo(instant: number, timeZone: string): MinuteMemo | null {
  const minute = Math.floor(instant / MINUTE_MS);
  if (!Number.isFinite(minute)) return null;
  let zone = minuteMemos.get(timeZone);
  if (!zone) {
    formatterFor(timeZone); // an unknown zone throws here, before it gets a memo
    minuteMemos.set(timeZone, (zone = new Map()));
  }
  let memo = zone.get(minute);
  if (!memo) {
    const start = minute * MINUTE_MS;
    const local = formattedLocalDateTime(new Date(start), timeZone);
    // Years 0–99 would need setUTCFullYear; no club lives there.
    const offset = local.year >= 100 ? Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second) - start : NaN;
    if (zone.size >= MEMO_LIMIT) zone.clear();
    zone.set(minute, (memo = { offset: offset % MINUTE_MS === 0 ? offset : NaN }));
  }
  return Number.isNaN(memo.offset) ? null : memo;
}

export function localDateTime(instant: Date, timeZone: string): LocalDateTime {
  const memo = minuteMemo(instant.getTime(), timeZone);
  if (!memo) return formattedLocalDateTime(instant, timeZone);
  // The wall time read as if it were UTC; Intl shows whole seconds, so drop the milliseconds.
  const wall = new Date(Math.floor((instant.getTime() + memo.offset) / 1000) * 1000);
  return {
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds(),
  };
}

/** The local date of the club day containing `instant`; a club day starts at `resetHour` local time. */
function clubDate(instant: Date, timeZone: string, resetHour: number): LocalDate {
  const local = localDateTime(instant, timeZone);
  const shifted = new Date(Date.UTC(local.year, local.month - 1, local.day, local.hour - resetHour));
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
}

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

function formatDate({ year, month, day }: LocalDate): string {
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

/** "2026-11-21": the club day containing `instant` (days start at `resetHour`, default midnight). */
export function dayKey(instant: Date, timeZone: string, resetHour = 0): string {
  const memo = minuteMemo(instant.getTime(), timeZone);
  const known = memo?.days?.get(resetHour);
  if (known !== undefined) return known;
  const key = formatDate(clubDate(instant, timeZone, resetHour));
  if (memo) (memo.days ??= new Map()).set(resetHour, key);
  return key;
}

/** "2026-W47": the ISO 8601 week (Monday first, week 1 holds the year's first Thursday). */
export function weekKey(instant: Date, timeZone: string): string {
  const memo = minuteMemo(instant.getTime(), timeZone);
  if (memo?.week !== undefined) return memo.week;
  const key = computeWeekKey(instant, timeZone);
  if (memo) memo.week = key;
  return key;
}

function computeWeekKey(instant: Date, timeZone: string): string {
  const { year, month, day } = clubDate(instant, timeZone, 0);
  const date = new Date(Date.UTC(year, month - 1, day));
  const isoWeekday = date.getUTCDay() || 7;
  // The Thursday of this week decides which year the week belongs to.
  const thursday = new Date(date.getTime() + (4 - isoWeekday) * DAY_MS);
  const weekYear = thursday.getUTCFullYear();
  const week = Math.floor((thursday.getTime() - Date.UTC(weekYear, 0, 1)) / DAY_MS / 7) + 1;
  return `${pad(weekYear, 4)}-W${pad(week)}`;
}

/** "2026-11": the calendar month in the club time zone. */
export function monthKey(instant: Date, timeZone: string): string {
  const memo = minuteMemo(instant.getTime(), timeZone);
  if (memo?.month !== undefined) return memo.month;
  const { year, month } = clubDate(instant, timeZone, 0);
  const key = `${pad(year, 4)}-${pad(month)}`;
  if (memo) memo.month = key;
  return key;
}

/** The month key before `key` ("2026-01" → "2025-12"). */
export function previousMonthKey(key: string): string {
  const [year, month] = key.split("-").map(Number);
  return month === 1 ? `${pad(year - 1, 4)}-12` : `${pad(year, 4)}-${pad(month - 1)}`;
}

/** UTC offset of `timeZone` at `instant`, in milliseconds (local − UTC). */
function offsetAt(instant: number, timeZone: string): number {
  const local = localDateTime(new Date(instant), timeZone);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** The instant at which the local wall time `local` occurs in `timeZone`. */
export function instantOf(local: LocalDateTime, timeZone: string): Date {
  const wall = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second);
  // Two passes settle the offset across a DST change; a wall time inside a
  // spring-forward gap lands just after the gap.
  const first = wall - offsetAt(wall, timeZone);
  return new Date(wall - offsetAt(first, timeZone));
}

/** When the club day after the one containing `now` starts (its `resetHour`, local time). */
export function nextDayStart(now: Date, timeZone: string, resetHour = 0): Date {
  const today = clubDate(now, timeZone, resetHour);
  const tomorrow = new Date(Date.UTC(today.year, today.month - 1, today.day + 1));
  return instantOf(
    { year: tomorrow.getUTCFullYear(), month: tomorrow.getUTCMonth() + 1, day: tomorrow.getUTCDate(), hour: resetHour, minute: 0, second: 0 },
    timeZone,
  );
}

export type Period = "once" | "daily" | "weekly" | "monthly";

/** The key of the mission period containing `now`: "once", "2026-11-21", "2026-W47" or "2026-11". */
export function periodKey(period: Period, now: Date, timeZone: string): string {
  switch (period) {
    case "once":
      return "once";
    case "daily":
      return dayKey(now, timeZone);
    case "weekly":
      return weekKey(now, timeZone);
    case "monthly":
      return monthKey(now, timeZone);
  }
}

/** `days` whole days (of 24 hours) after `instant`. */
/** The last instant formatted by isoText, and its text. */
let lastIsoMs = Number.NaN;
let lastIso = "";

/**
 * `date.toISOString()`, kept for the last instant formatted: a batch's
 * events are received, and evaluated, at one `now`, formatted for each of
 * them (a Session each, an event time defaulting to its arrival).
 */
export function isoText(date: Date): string {
  const ms = date.getTime();
  if (ms !== lastIsoMs) {
    lastIso = date.toISOString();
    lastIsoMs = ms;
  }
  return lastIso;
}

export function addDays(instant: Date, days: number): Date {
  return new Date(instant.getTime() + days * DAY_MS);
}
