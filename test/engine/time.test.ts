import { describe, expect, it } from "vitest";
import { addDays, dayKey, monthKey, nextDayStart, periodKey, previousMonthKey, weekKey } from "../../server/src/engine/time.js";
import { SAO_PAULO } from "./fixtures.js";

const at = (iso: string) => new Date(iso);

describe("dayKey", () => {
  it("changes at midnight São Paulo time (03:00Z)", () => {
    expect(dayKey(at("2026-11-22T02:59:59.999Z"), SAO_PAULO)).toBe("2026-11-21");
    expect(dayKey(at("2026-11-22T03:00:00.000Z"), SAO_PAULO)).toBe("2026-11-22");
  });

  it("follows the zone it is given", () => {
    expect(dayKey(at("2026-11-22T02:00:00Z"), "UTC")).toBe("2026-11-22");
    expect(dayKey(at("2026-11-21T23:30:00Z"), "Asia/Tokyo")).toBe("2026-11-22");
  });

  it("starts days at the reset hour", () => {
    // 05:59 local is still the previous club day with resetHour 6.
    expect(dayKey(at("2026-11-22T08:59:59Z"), SAO_PAULO, 6)).toBe("2026-11-21");
    expect(dayKey(at("2026-11-22T09:00:00Z"), SAO_PAULO, 6)).toBe("2026-11-22");
  });

  it("refuses an unknown zone", () => {
    expect(() => dayKey(at("2026-11-22T09:00:00Z"), "Mars/Olympus")).toThrow(RangeError);
  });
});

describe("weekKey", () => {
  it.each([
    ["2026-11-21T15:00:00Z", "2026-W47"], // Saturday
    ["2026-11-23T02:59:59Z", "2026-W47"], // Sunday 23:59:59 local
    ["2026-11-23T03:00:00Z", "2026-W48"], // Monday 00:00 local
    ["2026-01-01T15:00:00Z", "2026-W01"], // Thursday: week 1 of 2026
    ["2025-12-29T15:00:00Z", "2026-W01"], // Monday of the week holding 2026-01-01
    ["2027-01-01T15:00:00Z", "2026-W53"], // Friday, ISO year 2026 has 53 weeks
    ["2027-01-04T15:00:00Z", "2027-W01"],
  ])("%s is %s", (iso, key) => {
    expect(weekKey(at(iso), SAO_PAULO)).toBe(key);
  });
});

describe("monthKey", () => {
  it("changes at local midnight of the first day", () => {
    expect(monthKey(at("2026-12-01T02:59:59Z"), SAO_PAULO)).toBe("2026-11");
    expect(monthKey(at("2026-12-01T03:00:00Z"), SAO_PAULO)).toBe("2026-12");
  });

  it("has a previous month, across years", () => {
    expect(previousMonthKey("2026-11")).toBe("2026-10");
    expect(previousMonthKey("2026-01")).toBe("2025-12");
  });
});

describe("nextDayStart", () => {
  it("is the next local midnight", () => {
    expect(nextDayStart(at("2026-11-21T15:00:00Z"), SAO_PAULO).toISOString()).toBe("2026-11-22T03:00:00.000Z");
    expect(nextDayStart(at("2026-11-22T02:59:59Z"), SAO_PAULO).toISOString()).toBe("2026-11-22T03:00:00.000Z");
    expect(nextDayStart(at("2026-11-22T03:00:00Z"), SAO_PAULO).toISOString()).toBe("2026-11-23T03:00:00.000Z");
  });

  it("is the next reset hour", () => {
    expect(nextDayStart(at("2026-11-21T15:00:00Z"), SAO_PAULO, 6).toISOString()).toBe("2026-11-22T09:00:00.000Z");
    // 04:00 local is before the 06:00 reset: the club day started yesterday and ends today.
    expect(nextDayStart(at("2026-11-21T07:00:00Z"), SAO_PAULO, 6).toISOString()).toBe("2026-11-21T09:00:00.000Z");
  });

  it("handles daylight saving changes", () => {
    // New York springs forward on 2026-03-08: that day lasts 23 hours.
    expect(nextDayStart(at("2026-03-07T12:00:00Z"), "America/New_York").toISOString()).toBe("2026-03-08T05:00:00.000Z");
    expect(nextDayStart(at("2026-03-08T12:00:00Z"), "America/New_York").toISOString()).toBe("2026-03-09T04:00:00.000Z");
  });
});

describe("periodKey", () => {
  const now = at("2026-11-21T15:00:00Z");
  it.each([
    ["once", "once"],
    ["daily", "2026-11-21"],
    ["weekly", "2026-W47"],
    ["monthly", "2026-11"],
  ] as const)("%s → %s", (period, key) => {
    expect(periodKey(period, now, SAO_PAULO)).toBe(key);
  });
});

describe("addDays", () => {
  it("adds whole days of 24 hours", () => {
    expect(addDays(at("2026-11-21T15:00:00Z"), 30).toISOString()).toBe("2026-12-21T15:00:00.000Z");
  });
});
