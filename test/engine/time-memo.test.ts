import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dayKey, localDateTime, monthKey, nextDayStart, weekKey } from "../../server/src/engine/time.js";

/**
 * The memoized calendar keys (engine/time.ts: one Intl call per zone and
 * minute) against the implementation they replaced, which asked
 * Intl.formatToParts on every call.
 */

const reference = {
  local(instant: Date, timeZone: string) {
    const parts: Record<string, number> = {};
    for (const part of formatter(timeZone).formatToParts(instant)) if (part.type !== "literal") parts[part.type] = Number(part.value);
    return { year: parts.year, month: parts.month, day: parts.day, hour: parts.hour, minute: parts.minute, second: parts.second };
  },
  clubDate(instant: Date, timeZone: string, resetHour: number) {
    const local = reference.local(instant, timeZone);
    const shifted = new Date(Date.UTC(local.year, local.month - 1, local.day, local.hour - resetHour));
    return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
  },
  day(instant: Date, timeZone: string, resetHour = 0) {
    const { year, month, day } = reference.clubDate(instant, timeZone, resetHour);
    return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
  },
  week(instant: Date, timeZone: string) {
    const { year, month, day } = reference.clubDate(instant, timeZone, 0);
    const date = new Date(Date.UTC(year, month - 1, day));
    const isoWeekday = date.getUTCDay() || 7;
    const thursday = new Date(date.getTime() + (4 - isoWeekday) * 86_400_000);
    const weekYear = thursday.getUTCFullYear();
    const week = Math.floor((thursday.getTime() - Date.UTC(weekYear, 0, 1)) / 86_400_000 / 7) + 1;
    return `${pad(weekYear, 4)}-W${pad(week)}`;
  },
  month(instant: Date, timeZone: string) {
    const { year, month } = reference.clubDate(instant, timeZone, 0);
    return `${pad(year, 4)}-${pad(month)}`;
  },
};

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let format = formatters.get(timeZone);
  if (!format) {
    const options = {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    } as const;
    formatters.set(timeZone, (format = new Intl.DateTimeFormat("en-US", options)));
  }
  return format;
}

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** Zones with DST both ways, half- and quarter-hour offsets, a zone that dropped DST, and one with old local mean time. */
const ZONES = [
  "UTC",
  "America/Sao_Paulo",
  "America/New_York",
  "Europe/London",
  "Europe/Lisbon",
  "Australia/Lord_Howe",
  "Asia/Kolkata",
  "Asia/Kathmandu",
  "Pacific/Chatham",
  "America/St_Johns",
  "Africa/Monrovia",
  "Pacific/Apia",
  "Asia/Tokyo",
];

/** DST changes (and the minutes around them), where a memo keyed by the wrong minute would show. */
const EDGES = [
  "2026-03-08T07:00:00Z", // New York springs forward
  "2026-11-01T06:00:00Z", // New York falls back
  "2026-03-29T01:00:00Z", // London and Lisbon spring forward
  "2026-10-25T01:00:00Z", // London and Lisbon fall back
  "2018-11-04T02:00:00Z", // São Paulo's last spring-forward
  "2019-02-17T02:00:00Z", // São Paulo's last fall-back
  "2026-04-04T15:00:00Z", // Lord Howe: half-hour DST
  "2026-10-03T15:30:00Z",
  "1972-01-07T00:44:30Z", // Monrovia leaves -0:44:30
  "2011-12-30T10:00:00Z", // Apia skips a day
].map((iso) => Date.parse(iso));

const instants = fc.oneof(
  fc.integer({ min: Date.UTC(1900, 0, 1), max: Date.UTC(2200, 0, 1) }),
  fc.tuple(fc.constantFrom(...EDGES), fc.integer({ min: -7_200_000, max: 7_200_000 })).map(([edge, delta]) => edge + delta),
);

describe("memoized calendar keys", () => {
  it("equal the per-call Intl implementation over random instants, zones and reset hours, DST edges included", () => {
    fc.assert(
      fc.property(instants, fc.constantFrom(...ZONES), fc.integer({ min: 0, max: 23 }), (ms, zone, resetHour) => {
        const instant = new Date(ms);
        expect(localDateTime(instant, zone)).toEqual(reference.local(instant, zone));
        expect(dayKey(instant, zone)).toBe(reference.day(instant, zone));
        expect(dayKey(instant, zone, resetHour)).toBe(reference.day(instant, zone, resetHour));
        expect(weekKey(instant, zone)).toBe(reference.week(instant, zone));
        expect(monthKey(instant, zone)).toBe(reference.month(instant, zone));
      }),
      { numRuns: 1500 },
    );
  });

  it("give every instant of one minute the answer of its own instant (a memo hit never leaks another minute's key)", () => {
    fc.assert(
      fc.property(fc.constantFrom(...EDGES), fc.integer({ min: -180, max: 180 }), fc.constantFrom(...ZONES), (edge, minutes, zone) => {
        const start = Math.floor(edge / 60_000) * 60_000 + minutes * 60_000;
        for (const offset of [0, 1, 29_999, 59_999]) {
          const instant = new Date(start + offset);
          expect(dayKey(instant, zone, 3)).toBe(reference.day(instant, zone, 3));
          expect(localDateTime(instant, zone)).toEqual(reference.local(instant, zone));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("still refuses an unknown zone and an invalid instant", () => {
    expect(() => dayKey(new Date("2026-11-22T09:00:00Z"), "Mars/Olympus")).toThrow(RangeError);
    expect(() => weekKey(new Date(Number.NaN), "UTC")).toThrow(RangeError);
    expect(nextDayStart(new Date("2026-11-01T12:00:00Z"), "America/New_York").toISOString()).toBe("2026-11-02T05:00:00.000Z");
  });
});
