/**
 * The slices of the club configuration the engine reads. Provisional
 * structural types written from the configuration seed; replaced by aliases of
 * generated/types.ts once codegen has run.
 */
export type Unit = string;

export interface PresetCurve {
  kind: "preset";
  preset: "suave" | "media" | "dificil";
  base: number;
  maxLevel: number;
}

export interface TableCurve {
  kind: "table";
  thresholds: number[];
}

export type CurveConfig = PresetCurve | TableCurve;

export interface TierConfig {
  code: string;
  name: string;
  levels: [number, number | null];
  color?: string;
  badge?: string;
  benefits: string[];
  vip: boolean;
}

export interface ProgressionConfig {
  curve: CurveConfig;
  tiers: TierConfig[];
  benefits: unknown[];
  demotion: "never" | "monthly_review";
}

export interface CurrencyConfig {
  code: string;
  name: string;
  icon: string;
  decimals: number;
  expiresInDays: number | null;
}

export interface GameRef {
  id: string;
  name?: string;
}

export interface GameLists {
  categories: string[];
  providers: string[];
  games: GameRef[];
}

export interface GameFilterScope {
  only: GameLists;
  exclude: GameLists;
}

export type ConditionOperator = ">" | ">=" | "<" | "<=" | "==" | "!=" | "in" | "not_in";

export type ConditionValue = number | string | boolean | number[] | string[];

export interface FieldCondition {
  field: string;
  op: ConditionOperator;
  value: ConditionValue;
}

export type RuleCondition =
  | FieldCondition
  | { segment: string }
  | { segment_not: string }
  | { tier_in: string[] }
  | { first_time: true }
  | { nth: number };

export type RuleEffect =
  | { type: "grant_xp"; amount: number | string }
  | { type: "grant_currency"; currency: string; amount: number | string }
  | { type: "debit_currency"; currency: string; amount: number | string }
  | { type: "grant_reward"; reward: string }
  | { type: "progress_mission"; mission: string; increment: number | string }
  | { type: "add_leaderboard_points"; campaign: string; points: number | string }
  | { type: "grant_badge"; badge: string }
  | { type: "notify"; template: string }
  | { type: "webhook"; event: string }
  | { type: "tag_participant"; tag: string };

export interface RuleLimits {
  per_participant_per_day?: Record<string, number>;
  max_runs_per_participant?: number;
  cooldown_seconds?: number;
}

export interface RuleConfig {
  id: string;
  name?: string;
  enabled: boolean;
  trigger: { event: string };
  conditions: RuleCondition[];
  games?: GameFilterScope;
  effects: RuleEffect[];
  limits: RuleLimits;
  idempotency: string;
}

export interface RewardConfig {
  code: string;
  title: string;
  type: "internal" | "client_delivered" | "manual" | "partner";
  payload: Record<string, unknown>;
  expiresInDays: number | null;
}

export interface MissionConfig {
  id: string;
  title: string;
  event: string;
  conditions: FieldCondition[];
  games?: GameFilterScope;
  goal: { kind: "count" | "sum"; field: string; target: number };
  period: "once" | "daily" | "weekly" | "monthly";
  reward: string;
  claim: "auto" | "manual";
  enabled: boolean;
  audienceTag?: string;
  startsAt?: string;
  endsAt?: string;
}

export interface ClubConfig {
  currencies: CurrencyConfig[];
  progression: ProgressionConfig;
  checkin?: { timezone: string; resetHour: number };
  games?: { exclude: GameLists };
  rules: RuleConfig[];
  rewards: RewardConfig[];
  missions: MissionConfig[];
}

export type ApiEffect =
  | { type: "xp_granted" | "xp_debited"; amount: number; rule_id: string }
  | { type: "currency_granted" | "currency_debited"; currency: string; amount: number; rule_id: string }
  | { type: "level_up"; from: number; to: number }
  | { type: "tier_changed"; from: string; to: string }
  | { type: "mission_progressed"; mission_id: string; progress: number; target: number }
  | { type: "mission_completed"; mission_id: string; period: string }
  | { type: "reward_granted"; reward_code: string; rule_id: string; reward_id?: string; delivery_id?: string }
  | { type: "badge_granted"; badge_code: string; rule_id: string }
  | { type: "leaderboard_points"; campaign_id: string; points: number; rule_id: string }
  | { type: "tagged"; tag: string; rule_id: string };
