import type {
  EngineConfig,
  GameFilterScope,
  GameLists,
  MissionConfig,
  ProgressionConfig,
  RuleConfig,
  RuleEffect,
  TierConfig,
} from "../../server/src/engine/config.js";
import type { EngineEvent, ParticipantState } from "../../server/src/engine/types.js";

export const SAO_PAULO = "America/Sao_Paulo";

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

export function gameLists(lists: Partial<GameLists> = {}): GameLists {
  return { categories: [], providers: [], games: [], ...lists };
}

export function gameScope(scope: { only?: Partial<GameLists>; exclude?: Partial<GameLists> }): GameFilterScope {
  return { only: gameLists(scope.only), exclude: gameLists(scope.exclude) };
}

/** A rule on `bet.placed` with every default filled, as the validator leaves it. */
export function rule(id: string, effects: RuleEffect[], overrides: Partial<RuleConfig> = {}): RuleConfig {
  return { id, enabled: true, trigger: { event: "bet.placed" }, conditions: [], effects, limits: {}, idempotency: "event.id", ...overrides };
}

export function mission(id: string, overrides: Partial<MissionConfig> = {}): MissionConfig {
  return {
    id,
    title: `Missão ${id}`,
    illustration: "target",
    order: 0,
    event: "bet.placed",
    conditions: [],
    goal: { kind: "count", field: "amount", target: 3 },
    period: "once",
    reward: "giros-10",
    claim: "manual",
    enabled: true,
    ...overrides,
  };
}

/**
 * A Brazilian casino club: a table curve (level 2 at 100 XP, 3 at 300, 4 at
 * 600) so tests read easily, coins (0 decimals), cashback in centavos
 * (2 decimals) and gems that expire after 30 days. The engine's own input,
 * built by hand for the pure tests; a club's configuration as a client sends
 * it is test/support/club-config.ts.
 */
export function casinoEngineConfig(overrides: Partial<EngineConfig> = {}): EngineConfig {
  return {
    currencies: [
      { code: "coins", name: "Moedas", icon: "coin", decimals: 0, expiresInDays: null },
      { code: "cashback", name: "Cashback", icon: "cash", decimals: 2, expiresInDays: null },
      { code: "gems", name: "Gemas", icon: "gem", decimals: 0, expiresInDays: 30 },
    ],
    progression: casinoProgression({
      curve: { kind: "table", thresholds: [0, 100, 300, 600] },
      tiers: [tier("bronze", "Bronze", [1, 1]), tier("prata", "Prata", [2, 3]), tier("ouro", "Ouro", [4, null])],
    }),
    rules: [],
    rewards: [
      {
        code: "giros-10",
        title: "10 giros grátis",
        illustration: "gift",
        type: "client_delivered",
        payload: { kind: "free_spins", spins: 10, game: "Gates of Olympus" },
        expiresInDays: 7,
        cost: null,
      },
      {
        code: "avatar-ouro",
        title: "Avatar dourado",
        illustration: "gift",
        type: "internal",
        payload: {},
        expiresInDays: null,
        cost: { currency: "coins", amount: 500 },
      },
    ],
    missions: [],
    ...overrides,
  };
}

export function blankState(overrides: Partial<ParticipantState> = {}): ParticipantState {
  return {
    xp: 0,
    level: 1,
    tierCode: "bronze",
    tags: [],
    balances: {},
    lots: [],
    badges: [],
    eventCountsBefore: {},
    ruleRuns: {},
    missions: {},
    peakLevel: null,
    ...overrides,
  };
}

export function bet(overrides: Partial<EngineEvent> = {}): EngineEvent {
  return {
    type: "bet.placed",
    id: "bet-1",
    amount: 50,
    currency: "BRL",
    occurred_at: "2026-11-21T15:00:00.000Z",
    meta: { game_id: "gates-of-olympus", game_type: "video-slots", game_provider: "pragmatic" },
    ...overrides,
  };
}

/** 12:00 in São Paulo (UTC−3) on 2026-11-21. */
export const NOON = new Date("2026-11-21T15:00:00.000Z");
