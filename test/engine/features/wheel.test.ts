import { describe, expect, it } from "vitest";
import { NO_WHEEL, pickSlice, slicePrize, spinsLeft, visibleSlices, type WheelConfig, type WheelSliceConfig } from "../../../server/src/engine/wheel.js";

/** mulberry32: a small seeded generator, so the distribution test is deterministic. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const slice = (id: string, weight: number, overrides: Partial<WheelSliceConfig> = {}): WheelSliceConfig => ({
  id,
  label: id,
  reward: `reward:${id}`,
  weight,
  ...overrides,
});

function wheel(overrides: Partial<WheelConfig> = {}): WheelConfig {
  return {
    ...NO_WHEEL,
    enabled: true,
    slices: [
      slice("moedas-50", 40),
      slice("moedas-200", 20),
      slice("giros-10", 15),
      slice("bonus-20", 5),
      slice("nada", 20, { reward: null }),
      slice("jackpot", 0),
    ],
    ...overrides,
  };
}

describe("pickSlice", () => {
  it("draws each slice with probability weight / sum of weights (seeded, 200 000 draws)", () => {
    const { slices } = wheel();
    const random = seeded(20261121);
    const counts = slices.map(() => 0);
    const draws = 200_000;
    for (let i = 0; i < draws; i++) counts[pickSlice(slices, random)!] += 1;
    const total = slices.reduce((sum, s) => sum + s.weight, 0);
    slices.forEach((s, index) => expect(Math.abs(counts[index] / draws - s.weight / total)).toBeLessThan(0.005));
    expect(counts[5]).toBe(0);
  });

  it("maps the draw onto cumulative weights, skipping zero weights at their boundary", () => {
    const slices = [slice("zero", 0), slice("a", 1), slice("b", 3)];
    expect(pickSlice(slices, () => 0)).toBe(1);
    expect(pickSlice(slices, () => 0.2499)).toBe(1);
    expect(pickSlice(slices, () => 0.25)).toBe(2);
    expect(pickSlice(slices, () => 0.999999999999)).toBe(2);
  });

  it("never returns a trailing zero-weight slice", () => {
    expect(pickSlice([slice("a", 1), slice("zero", 0)], () => 0.9999999999999999)).toBe(0);
  });

  it("returns null when no slice can win", () => {
    expect(pickSlice([slice("a", 0), slice("b", 0)], () => 0.5)).toBeNull();
  });

  it("accepts the largest weight, 1 000 000", () => {
    expect(pickSlice([slice("a", 1), slice("b", 1_000_000)], () => 0.5)).toBe(1);
  });
});

describe("spinsLeft", () => {
  it.each([
    [0, 0, 0],
    [1, 0, 1],
    [1, 1, 0],
    [50, 49, 1],
    [50, 50, 0],
  ])("spinsPerDay %i with %i spins today leaves %i", (spinsPerDay, spun, left) => {
    expect(spinsLeft(wheel({ spinsPerDay }), spun)).toBe(left);
  });

  it("a disabled wheel has no spins", () => {
    expect(spinsLeft(wheel({ enabled: false, spinsPerDay: 5 }), 0)).toBe(0);
  });
});

describe("slicePrize", () => {
  const freeSpins = slice("giros", 1, {
    reward: "giros-10",
    payload: { kind: "free_spins", spins: 10, game: "Fortune Tiger", game_code: "pg-fortune-tiger" },
    tierQty: { ouro: 25, prata: 15.9 },
  });

  it("gives the slice as configured to a tier without a quantity", () => {
    expect(slicePrize(freeSpins, "bronze")).toEqual({
      spec: "giros-10",
      prize: { kind: "free_spins", spins: 10, game: "Fortune Tiger", game_code: "pg-fortune-tiger" },
    });
  });

  it("uses the tier's quantity as the free spins, truncated to whole spins", () => {
    expect(slicePrize(freeSpins, "ouro").prize).toMatchObject({ spins: 25 });
    expect(slicePrize(freeSpins, "prata").prize).toMatchObject({ spins: 15 });
  });

  it("uses the tier's quantity as amount_cents of a bonus or cash payload", () => {
    const bonus = slice("bonus", 1, { reward: "bonus-20", payload: { kind: "bonus", amount_cents: 2000, rollover: 30 }, tierQty: { ouro: 5000 } });
    expect(slicePrize(bonus, "ouro").prize).toEqual({ kind: "bonus", amount_cents: 5000, rollover: 30 });
  });

  it("uses the tier's quantity as the number of an XP or currency spec", () => {
    const coins = slice("moedas", 1, { reward: "coins:50", tierQty: { ouro: 120, prata: 0 } });
    expect(slicePrize(coins, "ouro")).toEqual({ spec: "coins:120" });
    expect(slicePrize(coins, "prata")).toEqual({ spec: "coins:0" });
    expect(slicePrize(slice("xp", 1, { reward: "xp:10", tierQty: { ouro: 12.5 } }), "ouro")).toEqual({ spec: "xp:12.5" });
  });

  it("accepts the largest tier quantity, 10 000 000", () => {
    expect(slicePrize(slice("moedas", 1, { reward: "coins:50", tierQty: { ouro: 10_000_000 } }), "ouro")).toEqual({ spec: "coins:10000000" });
  });

  it("a slice without reward grants nothing and shows no prize, even with a payload", () => {
    expect(slicePrize(slice("nada", 1, { reward: null, payload: { kind: "cash", amount_cents: 100 } }), "ouro")).toEqual({ spec: null });
  });
});

describe("visibleSlices", () => {
  it("never shows weights or tier quantities", () => {
    const shown = visibleSlices(wheel({ slices: [slice("a", 7, { sublabel: "x", tierQty: { ouro: 2 }, payload: { kind: "cash", amount_cents: 500 } })] }));
    expect(shown).toEqual([{ id: "a", label: "a", sublabel: "x", reward: "reward:a", payload: { kind: "cash", amount_cents: 500 } }]);
  });
});
