import { describe, expect, it } from "vitest";
import { evaluate } from "../../server/src/engine/evaluate.js";
import { nextTierAfter, reviewTier, tierAfterLevelChange, tierForLevel } from "../../server/src/engine/tiers.js";
import { bet, blankState, casinoEngineConfig, casinoProgression, NOON, rule, SAO_PAULO, tier } from "./fixtures.js";

const tiers = casinoProgression().tiers; // bronze 1-9, prata 10-29, ouro 30+

describe("tierForLevel", () => {
  it.each([
    [1, "bronze"],
    [9, "bronze"],
    [10, "prata"],
    [29, "prata"],
    [30, "ouro"],
    [500, "ouro"],
  ])("level %i is %s", (level, code) => {
    expect(tierForLevel(tiers, level).code).toBe(code);
  });

  it("keeps the tier below for a level in a gap, and the lowest tier below every range", () => {
    const gappy = [tier("ouro", "Ouro", [20, null]), tier("prata", "Prata", [5, 9])];
    expect(tierForLevel(gappy, 12).code).toBe("prata");
    expect(tierForLevel(gappy, 2).code).toBe("prata");
  });
});

describe("nextTierAfter", () => {
  it("is the tier starting next, or null on the top tier", () => {
    expect(nextTierAfter(tiers, 1)).toEqual({ code: "prata", name: "Prata", startsAtLevel: 10 });
    expect(nextTierAfter(tiers, 10)).toEqual({ code: "ouro", name: "Ouro", startsAtLevel: 30 });
    expect(nextTierAfter(tiers, 30)).toBeNull();
  });
});

describe("tierAfterLevelChange", () => {
  it("promotes at once and never lowers", () => {
    expect(tierAfterLevelChange(tiers, "bronze", 10)).toBe("prata");
    expect(tierAfterLevelChange(tiers, "ouro", 10)).toBe("ouro");
  });

  it("replaces a tier code that is no longer configured", () => {
    expect(tierAfterLevelChange(tiers, "diamante", 3)).toBe("bronze");
  });
});

describe("reviewTier", () => {
  const now = new Date("2026-12-01T03:00:00Z"); // reviews November in São Paulo
  const monthly = casinoProgression({ demotion: "monthly_review" });

  it("with monthly_review, gives the tier of the highest level reached in the reviewed month", () => {
    expect(reviewTier(monthly, { level: 8, tierCode: "ouro", peakLevel: { monthKey: "2026-11", level: 12 } }, now, SAO_PAULO)).toBe("prata");
  });

  it("counts a level reached after the reviewed month too", () => {
    expect(reviewTier(monthly, { level: 8, tierCode: "ouro", peakLevel: { monthKey: "2026-12", level: 31 } }, now, SAO_PAULO)).toBe("ouro");
  });

  it("falls back to the current level when nothing was recorded for the month", () => {
    expect(reviewTier(monthly, { level: 8, tierCode: "ouro", peakLevel: { monthKey: "2026-10", level: 40 } }, now, SAO_PAULO)).toBe("bronze");
    expect(reviewTier(monthly, { level: 8, tierCode: "ouro", peakLevel: null }, now, SAO_PAULO)).toBe("bronze");
  });

  it("uses the club month: 02:59:59Z on Dec 1 still reviews October", () => {
    const participant = { level: 8, tierCode: "ouro", peakLevel: { monthKey: "2026-11", level: 12 } };
    expect(reviewTier(monthly, participant, new Date("2026-12-01T02:59:59Z"), SAO_PAULO)).toBe("prata");
    expect(reviewTier(monthly, { ...participant, peakLevel: { monthKey: "2026-10", level: 12 } }, new Date("2026-12-01T02:59:59Z"), SAO_PAULO)).toBe("prata");
    expect(reviewTier(monthly, { ...participant, peakLevel: { monthKey: "2026-10", level: 12 } }, now, SAO_PAULO)).toBe("bronze");
  });

  it("with never, lowers nothing", () => {
    expect(reviewTier(casinoProgression(), { level: 8, tierCode: "ouro", peakLevel: null }, now, SAO_PAULO)).toBe("ouro");
  });
});

describe("tier effects in evaluate", () => {
  const config = casinoEngineConfig({ rules: [rule("xp", [{ type: "grant_xp", amount: "event.amount" }])] });

  it("reports tier_changed after level_up when the tier changes", () => {
    const result = evaluate({ config, state: blankState(), event: bet({ amount: 100 }), now: NOON, timeZone: SAO_PAULO });
    expect(result.effects.slice(1)).toEqual([
      { type: "level_up", from: 1, to: 2 },
      { type: "tier_changed", from: "bronze", to: "prata" },
    ]);
    expect(result.delta).toMatchObject({ level: 2, tierCode: "prata", peakLevel: { monthKey: "2026-11", level: 2 } });
  });

  it("reports no tier change inside a tier", () => {
    const state = blankState({ xp: 100, level: 2, tierCode: "prata" });
    const result = evaluate({ config, state, event: bet({ amount: 200 }), now: NOON, timeZone: SAO_PAULO });
    expect(result.effects.map((effect) => effect.type)).toEqual(["xp_granted", "level_up"]);
  });

  it("keeps the month's peak level", () => {
    const state = blankState({ xp: 0, level: 1, peakLevel: { monthKey: "2026-11", level: 3 } });
    expect(evaluate({ config, state, event: bet({ amount: 1 }), now: NOON, timeZone: SAO_PAULO }).delta.peakLevel).toEqual({ monthKey: "2026-11", level: 3 });
  });
});
