import type { ProgressionConfig, TierConfig } from "../../server/src/engine/config.js";

export function tier(code: string, name: string, levels: [number, number | null]): TierConfig {
  return { code, name, levels, benefits: [], vip: false };
}

/** Bronze 1-9, Prata 10-29, Ouro 30+ on the "media" preset curve. */
export function casinoProgression(overrides: Partial<ProgressionConfig> = {}): ProgressionConfig {
  return {
    curve: { kind: "preset", preset: "media", base: 1000, maxLevel: 60 },
    tiers: [tier("bronze", "Bronze", [1, 9]), tier("prata", "Prata", [10, 29]), tier("ouro", "Ouro", [30, null])],
    benefits: [],
    demotion: "never",
    ...overrides,
  };
}
