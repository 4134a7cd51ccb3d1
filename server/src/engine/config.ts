import type { components } from "../../../generated/types.js";

/**
 * The club configuration as the engine receives it. The generated types mark
 * fields with a default as optional (they are optional in requests), but a
 * published config has passed the validator, which fills every default, so
 * these aliases make exactly those fields required.
 */
type Schemas = components["schemas"];

/** `T` with the defaulted keys `K` required. */
type Filled<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: Exclude<T[P], undefined> };

export type CurrencyConfig = Filled<Schemas["CurrencyConfig"], "icon" | "decimals" | "expiresInDays">;

export type GameLists = Filled<Schemas["GameFilter"], "categories" | "providers" | "games">;
export interface GameFilterScope {
  only: GameLists;
  exclude: GameLists;
}
interface GamesConfig {
  exclude: GameLists;
}

type PresetCurve = Filled<Schemas["PresetCurve"], "base" | "maxLevel">;
type TableCurve = Schemas["TableCurve"];
export type CurveConfig = PresetCurve | TableCurve;
export type TierConfig = Filled<Schemas["TierConfig"], "benefits" | "vip">;
type BenefitConfig = Filled<Schemas["BenefitConfig"], "compliance">;
export type ProgressionConfig = {
  curve: CurveConfig;
  tiers: TierConfig[];
  benefits: BenefitConfig[];
  demotion: Schemas["TierDemotion"];
};

export type ConditionOperator = Schemas["RuleOperator"];
export type ConditionValue = Schemas["RuleConditionValue"];
export type FieldCondition = Schemas["RuleFieldCondition"];
export type RuleCondition = Schemas["RuleCondition"];
export type RuleEffect = Exclude<Schemas["RuleEffect"], Schemas["ProgressMissionRuleEffect"]> | Filled<Schemas["ProgressMissionRuleEffect"], "increment">;
export type RuleLimits = Omit<Schemas["RuleLimits"], "per_participant_per_day"> & {
  /** `runs`, `xp` or a currency code → maximum per club day (the generated type loses the value type). */
  per_participant_per_day?: Record<string, number>;
};
export type RuleConfig = Omit<Filled<Schemas["RuleConfig"], "enabled" | "conditions" | "idempotency">, "games" | "effects" | "limits"> & {
  games?: GameFilterScope;
  effects: RuleEffect[];
  limits: RuleLimits;
};

export type RewardConfig = Filled<Schemas["RewardConfig"], "illustration" | "type" | "payload" | "expiresInDays" | "cost">;

type MissionGoal = Filled<Schemas["MissionGoal"], "kind" | "field">;
export type MissionConfig = Omit<
  Filled<Schemas["MissionConfig"], "illustration" | "conditions" | "period" | "claim" | "enabled" | "order">,
  "games" | "goal"
> & {
  games?: GameFilterScope;
  goal: MissionGoal;
};

type ClubConfigDefaults = "name" | "rules" | "rewards" | "missions" | "tournaments" | "home" | "moduleCards" | "faq" | "avatars" | "icons" | "allowedOrigins";

/** The whole published configuration. */
export type ClubConfig = Omit<Filled<Schemas["ClubConfig"], ClubConfigDefaults>, "currencies" | "progression" | "games" | "rules" | "rewards" | "missions"> &
  EngineConfig;

/** The sections of the configuration the event engine reads; a ClubConfig is one. */
export interface EngineConfig {
  currencies: CurrencyConfig[];
  progression: ProgressionConfig;
  games?: GamesConfig;
  rules: RuleConfig[];
  rewards: RewardConfig[];
  missions: MissionConfig[];
}

/** An effect of an event result, exactly as the API returns it. */
export type ApiEffect = Schemas["Effect"];
