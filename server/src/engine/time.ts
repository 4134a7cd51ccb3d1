/**
 * Calendar arithmetic in the club's time zone over Intl.DateTimeFormat (no
 * time-zone library): club days, ISO weeks and months, and the instant the
 * next club day starts. Keys are what the engine stores to know when a
 * counter belongs to an earlier period.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface LocalDate {
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

export function localDateTime(instant: Date, timeZone: string): LocalDateTime {
  const parts: Record<string, number> = {};
  for (const part of formatterFor(timeZone).formatToParts(instant)) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  return { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute, second: parts.second };
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
  return formatDate(clubDate(instant, timeZone, resetHour));
}

/** "2026-W47": the ISO 8601 week (Monday first, week 1 holds the year's first Thursday). */
export function weekKey(instant: Date, timeZone: string): string {
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
  const { year, month } = clubDate(instant, timeZone, 0);
  return `${pad(year, 4)}-${pad(month)}`;
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
export function addDays(instant: Date, days: number): Date {
  return new Date(instant.getTime() + days * DAY_MS);
}
