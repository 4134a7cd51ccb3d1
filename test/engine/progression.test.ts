import { describe, expect, it } from "vitest";
import { levelForXp, levelThresholds, progressFor } from "../../server/src/engine/progression.js";
import { casinoProgression, tier } from "./fixtures.js";

describe("levelThresholds", () => {
  it.each([
    ["suave", [0, 1000, 3297, 7034]],
    ["media", [0, 1000, 3828, 9024]],
    ["dificil", [0, 1000, 4482, 11707]],
  ] as const)("builds the %s preset as round(base × L^e) per level", (preset, start) => {
    const thresholds = levelThresholds({ kind: "preset", preset, base: 1000, maxLevel: 60 });
    expect(thresholds.slice(0, 4)).toEqual(start);
    expect(thresholds).toHaveLength(60);
  });

  it("scales with base and stops at maxLevel (smallest: 2)", () => {
    const thresholds = levelThresholds({ kind: "preset", preset: "media", base: 100, maxLevel: 2 });
    expect(thresholds).toEqual([0, 100]);
  });

  it("builds the largest curve (maxLevel 500) with exact integers", () => {
    const thresholds = levelThresholds({ kind: "preset", preset: "dificil", base: 1000, maxLevel: 500 });
    expect(thresholds).toHaveLength(500);
    expect(thresholds.every((xp) => Number.isSafeInteger(xp))).toBe(true);
    expect(progressFor({ ...casinoProgression(), curve: { kind: "preset", preset: "dificil", base: 1000, maxLevel: 500 } }, thresholds[499])).toMatchObject({
      level: 500,
      nextLevelXp: null,
    });
  });

  it("uses a table as given", () => {
    expect(levelThresholds({ kind: "table", thresholds: [0, 50, 50, 200] })).toEqual([0, 50, 50, 200]);
  });

  it("rejects a decreasing table and names the entry", () => {
    expect(() => levelThresholds({ kind: "table", thresholds: [0, 100, 99] })).toThrow(/thresholds\[2\]/);
  });

  it("rejects a table whose level 1 does not start at 0", () => {
    expect(() => levelThresholds({ kind: "table", thresholds: [10, 100] })).toThrow(/thresholds\[0\]/);
  });

  it("accepts a one-level table", () => {
    expect(levelThresholds({ kind: "table", thresholds: [0] })).toEqual([0]);
  });

  it("computes each curve once (memoized by identity)", () => {
    const curve = { kind: "preset", preset: "suave", base: 500, maxLevel: 10 } as const;
    expect(levelThresholds(curve)).toBe(levelThresholds(curve));
    expect(levelThresholds({ ...curve })).not.toBe(levelThresholds(curve));
  });
});

describe("levelForXp", () => {
  const thresholds = [0, 100, 300, 600];
  it.each([
    [0, 1],
    [99, 1],
    [100, 2],
    [299, 2],
    [300, 3],
    [600, 4],
    [1_000_000, 4],
  ])("xp %i is level %i", (xp, level) => {
    expect(levelForXp(thresholds, xp)).toBe(level);
  });

  it("skips a level that spans no XP", () => {
    expect(levelForXp([0, 50, 50, 200], 50)).toBe(3);
  });
});

describe("progressFor", () => {
  const progression = casinoProgression({
    curve: { kind: "table", thresholds: [0, 100, 300, 600] },
    tiers: [tier("bronze", "Bronze", [1, 2]), tier("ouro", "Ouro", [3, null])],
  });

  it("reports progress inside a level", () => {
    expect(progressFor(progression, 150)).toEqual({
      level: 2,
      maxLevel: 4,
      levelStartXp: 100,
      nextLevelXp: 300,
      remainingXp: 150,
      current: 50,
      required: 200,
      progress: 0.25,
      percent: 25,
      tier: progression.tiers[0],
      nextTier: { code: "ouro", name: "Ouro", startsAtLevel: 3 },
    });
  });

  it("starts a level exactly at its threshold", () => {
    const progress = progressFor(progression, 300);
    expect(progress).toMatchObject({ level: 3, current: 0, required: 300, progress: 0, percent: 0, remainingXp: 300 });
    expect(progress.tier.code).toBe("ouro");
    expect(progress.nextTier).toBeNull();
  });

  it("floors the percent one XP before the next level", () => {
    expect(progressFor(progression, 299)).toMatchObject({ level: 2, percent: 99, remainingXp: 1 });
  });

  it("is complete on the last level", () => {
    expect(progressFor(progression, 5000)).toMatchObject({
      level: 4,
      maxLevel: 4,
      levelStartXp: 600,
      nextLevelXp: null,
      remainingXp: 0,
      current: 4400,
      required: 0,
      progress: 1,
      percent: 100,
    });
  });

  it("works on a preset curve", () => {
    expect(progressFor(casinoProgression(), 3828)).toMatchObject({ level: 3, levelStartXp: 3828, nextLevelXp: 9024, maxLevel: 60 });
  });

  it("is complete at once on a one-level table", () => {
    const single = casinoProgression({ curve: { kind: "table", thresholds: [0] } });
    expect(progressFor(single, 0)).toMatchObject({ level: 1, maxLevel: 1, nextLevelXp: null, progress: 1, percent: 100 });
  });
});
