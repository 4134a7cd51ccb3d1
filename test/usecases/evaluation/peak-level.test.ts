import { describe, expect, it } from "vitest";
import type { ProgressionConfig } from "../../../server/src/engine/config.js";
import { reviewTier } from "../../../server/src/engine/tiers.js";
import { peakColumnsAfter, peakSince, storedPeakLevel, type PeakColumns } from "../../../server/src/usecases/evaluation/peak-level.js";

const none: PeakColumns = { peakMonth: null, peakLevel: null, priorMonthPeakLevel: null };

describe("the stored peak level", () => {
  it("gives the engine the peak of the month of the latest change, or null before any", () => {
    expect(storedPeakLevel(none)).toBeNull();
    expect(storedPeakLevel({ peakMonth: "2026-11", peakLevel: 30, priorMonthPeakLevel: 12 })).toEqual({ monthKey: "2026-11", level: 30 });
  });

  it("keeps the highest level within a month", () => {
    const row = { level: 30, peakMonth: "2026-11", peakLevel: 30, priorMonthPeakLevel: 12 };
    expect(peakColumnsAfter(row, { monthKey: "2026-11", level: 5 })).toEqual({ peakMonth: "2026-11", peakLevel: 30, priorMonthPeakLevel: 12 });
    expect(peakColumnsAfter(row, { monthKey: "2026-11", level: 31 })).toEqual({ peakMonth: "2026-11", peakLevel: 31, priorMonthPeakLevel: 12 });
  });

  it("moves the previous month's peak aside on a new month's first change, counting the level held into the new month", () => {
    // Ouro (30) early in October, down to 5 by a debit on the 20th; the first event of November keeps level 5.
    const row = { level: 5, peakMonth: "2026-10", peakLevel: 30, priorMonthPeakLevel: 8 };
    expect(peakColumnsAfter(row, { monthKey: "2026-11", level: 5 })).toEqual({ peakMonth: "2026-11", peakLevel: 5, priorMonthPeakLevel: 30 });
    // The engine dates a first change by its own level only; the level held until it counts too.
    const held = { level: 30, peakMonth: "2026-10", peakLevel: 30, priorMonthPeakLevel: null };
    expect(peakColumnsAfter(held, { monthKey: "2026-11", level: 5 })).toEqual({ peakMonth: "2026-11", peakLevel: 30, priorMonthPeakLevel: 30 });
  });

  it("takes the level held through a month without changes as that month's peak", () => {
    const row = { level: 12, peakMonth: "2026-08", peakLevel: 20, priorMonthPeakLevel: null };
    expect(peakColumnsAfter(row, { monthKey: "2026-11", level: 14 })).toEqual({ peakMonth: "2026-11", peakLevel: 14, priorMonthPeakLevel: 12 });
    expect(peakColumnsAfter({ ...none, level: 1 }, { monthKey: "2026-11", level: 3 })).toEqual({ peakMonth: "2026-11", peakLevel: 3, priorMonthPeakLevel: 1 });
  });

  it("leaves the stored months alone for a change dated before them", () => {
    const row = { level: 12, peakMonth: "2026-11", peakLevel: 20, priorMonthPeakLevel: 15 };
    expect(peakColumnsAfter(row, { monthKey: "2026-10", level: 40 })).toEqual({ peakMonth: "2026-11", peakLevel: 20, priorMonthPeakLevel: 15 });
  });

  it("gives the review the highest level since the reviewed month began", () => {
    expect(peakSince(none, "2026-10")).toBeNull();
    // Nothing recorded since October began: the level has not changed since.
    expect(peakSince({ peakMonth: "2026-09", peakLevel: 40, priorMonthPeakLevel: 40 }, "2026-10")).toBeNull();
    // Recorded in the reviewed month itself: the month before it does not count.
    expect(peakSince({ peakMonth: "2026-10", peakLevel: 30, priorMonthPeakLevel: 45 }, "2026-10")).toEqual({ monthKey: "2026-10", level: 30 });
    // Recorded in the month after: the reviewed month's peak, kept aside, counts.
    expect(peakSince({ peakMonth: "2026-11", peakLevel: 5, priorMonthPeakLevel: 30 }, "2026-10")).toEqual({ monthKey: "2026-11", level: 30 });
  });
});

describe("the monthly review with the stored peak", () => {
  const progression = {
    curve: { kind: "preset", preset: "media", base: 1000, maxLevel: 60 },
    tiers: [
      { code: "bronze", name: "Bronze", levels: [1, 9], benefits: [], vip: false },
      { code: "prata", name: "Prata", levels: [10, 24], benefits: [], vip: false },
      { code: "ouro", name: "Ouro", levels: [25, null], benefits: [], vip: false },
    ],
    benefits: [],
    demotion: "monthly_review",
  } as ProgressionConfig;
  const timeZone = "America/Sao_Paulo";

  /** The tier the review at `now` gives, as the tier review job asks for it. */
  function reviewed(row: PeakColumns & { level: number }, now: Date, reviewedMonth: string): string {
    return reviewTier(progression, { level: row.level, tierCode: "ouro", peakLevel: peakSince(row, reviewedMonth) }, now, timeZone);
  }

  it("keeps Ouro after a debit until a whole month was spent below it, even when an event of the new month came before the review", () => {
    // Level 30 in October, debited to 5 on October 20th: October's peak is 30.
    let row: PeakColumns & { level: number } = { level: 30, peakMonth: "2026-10", peakLevel: 30, priorMonthPeakLevel: 30 };
    row = { ...row, ...peakColumnsAfter(row, { monthKey: "2026-10", level: 5 }), level: 5 };
    // An event at 00:10 on November 1st, before the review job's pass of that hour.
    row = { ...row, ...peakColumnsAfter(row, { monthKey: "2026-11", level: 5 }), level: 5 };
    expect(reviewed(row, new Date("2026-11-01T04:00:00Z"), "2026-10")).toBe("ouro");
    // November was spent at level 5 whole: the review of December lowers the tier.
    expect(reviewed(row, new Date("2026-12-01T03:00:00Z"), "2026-11")).toBe("bronze");
  });
});
