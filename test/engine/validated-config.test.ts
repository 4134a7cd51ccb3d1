import { describe, expect, it } from "vitest";
import { schemaValidators } from "../../generated/validators.js";
import type { ClubConfig } from "../../server/src/engine/config.js";
import { evaluate } from "../../server/src/engine/evaluate.js";
import { progressFor } from "../../server/src/engine/progression.js";
import { bet, blankState, NOON, SAO_PAULO } from "./fixtures.js";

/**
 * The engine's config types assume the validator filled every default. This
 * checks that assumption end to end: a config written with only what a club
 * writes, validated by the generated validator, then evaluated.
 */
function publish(raw: unknown): ClubConfig {
  const config = structuredClone(raw);
  if (!schemaValidators.ClubConfig(config)) throw new Error(JSON.stringify(schemaValidators.ClubConfig.errors));
  return config as ClubConfig;
}

const colors = { bg: "#0B0B12", surface: "#161622", primary: "#F5B301", secondary: "#7C3AED", text: "#FFFFFF", muted: "#9CA3AF" };

const written = {
  theme: { name: "Cassino Estrela", colors },
  currencies: [
    { code: "coins", name: "Moedas" },
    { code: "gems", name: "Gemas", expiresInDays: 30 },
  ],
  progression: {
    curve: { kind: "preset", preset: "media" },
    tiers: [
      { code: "bronze", name: "Bronze", levels: [1, 9] },
      { code: "prata", name: "Prata", levels: [10, 29] },
      { code: "ouro", name: "Ouro", levels: [30, null] },
    ],
  },
  rules: [
    {
      id: "aposta-slots",
      trigger: { event: "bet.placed" },
      games: { only: { categories: ["video-slots"] } },
      effects: [
        { type: "grant_xp", amount: "event.amount * 20" },
        { type: "grant_currency", currency: "gems", amount: 2 },
        { type: "progress_mission", mission: "giro-diario" },
      ],
      limits: { per_participant_per_day: { runs: 10 } },
    },
  ],
  rewards: [{ code: "giros-10", title: "10 giros grátis", type: "client_delivered", payload: { kind: "free_spins", spins: 10 } }],
  missions: [{ id: "giro-diario", title: "Aposte 3 vezes", event: "deposit.confirmed", goal: { target: 3 }, reward: "giros-10", period: "daily" }],
};

describe("a validated config", () => {
  it("has the defaults the engine relies on and evaluates", () => {
    const config = publish(written);
    const result = evaluate({ config, state: blankState(), event: bet({ amount: 50 }), now: NOON, timeZone: SAO_PAULO });
    expect(result.effects).toEqual([
      { type: "xp_granted", amount: 1000, rule_id: "aposta-slots" },
      { type: "currency_granted", currency: "gems", amount: 2, rule_id: "aposta-slots" },
      { type: "mission_progressed", mission_id: "giro-diario", progress: 1, target: 3 },
      { type: "level_up", from: 1, to: 2 },
    ]);
    expect(result.delta.lotsCreated).toHaveLength(1);
    expect(result.delta.ruleRuns["aposta-slots"].dedupeKey).toBe("bet-1");
  });

  it("gives the progress of the preset curve", () => {
    expect(progressFor(publish(written).progression, 3828)).toMatchObject({
      level: 3,
      maxLevel: 60,
      tier: { code: "bronze", vip: false, benefits: [] },
      nextTier: { code: "prata", startsAtLevel: 10 },
    });
  });
});
