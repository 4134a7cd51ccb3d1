import type { ApiEffect, RewardConfig, RuleEffect } from "./config.js";
import type { EventTrace } from "./trace.js";

/** A validated event (API field names, defaults filled: currency, occurred_at, meta). */
export interface EngineEvent {
  type: string;
  /** The client's id of the fact; absent when the client sent none. */
  id?: string | null;
  /** Main units, as sent: a JSON number or a decimal string. */
  amount?: number | string | null;
  currency: string;
  occurred_at: string;
  meta: Record<string, unknown>;
}

/** Currency credited with an expiry (`expiresInDays`); `remaining` in minor units. */
export interface Lot {
  id: string;
  currency: string;
  remaining: number;
  grantedAt: string;
  expiresAt: string;
}

interface RuleRunDay {
  /** Club day the counters belong to ("2026-11-21"); older counters count as zero. */
  dayKey: string;
  runs: number;
  /** Granted this club day per unit: "xp" in XP, a currency code in its minor units. */
  granted: Record<string, number>;
}

export interface RuleRunState {
  total: number;
  lastRunAt: string | null;
  today: RuleRunDay;
  /**
   * Dedupe keys this rule already fired for. The caller may load only the key
   * the current event resolves to: the engine only asks whether it is present.
   */
  dedupeKeys: string[];
}

export interface MissionState {
  periodKey: string;
  progress: number;
  completed: boolean;
  claimed: boolean;
}

/** Everything the engine needs to know about the participant before the event. */
export interface ParticipantState {
  xp: number;
  level: number;
  tierCode: string;
  tags: string[];
  /** Per currency code, minor units; a missing currency is 0. */
  balances: Record<string, number>;
  lots: Lot[];
  badges: string[];
  /** Events of each type received before this one. */
  eventCountsBefore: Record<string, number>;
  ruleRuns: Record<string, RuleRunState>;
  missions: Record<string, MissionState>;
  /** Highest level reached in the club month `monthKey` (for demotion `monthly_review`). */
  peakLevel: { monthKey: string; level: number } | null;
}

type LedgerReason = "grant_xp" | "grant_currency" | "debit_currency" | "lot_expired";

/** One row of the XP/currency ledger; `unit` is "xp" or a currency code, `delta` in XP or minor units. */
export interface LedgerLine {
  unit: string;
  delta: number;
  reason: LedgerReason;
  /** The rule (or `mission:<id>`) that caused it; null for expiry. */
  ruleId: string | null;
}

export interface LotConsumption {
  lotId: string;
  amount: number;
}

export interface NewLot {
  currency: string;
  amount: number;
  grantedAt: string;
  expiresAt: string;
  ruleId: string;
}

export interface RuleRunUpdate {
  total: number;
  lastRunAt: string;
  today: RuleRunDay;
  /** Key to add to the rule's dedupe keys; null when the idempotency path resolved to nothing. */
  dedupeKey: string | null;
}

export interface RewardGrant {
  /** Index in `effects` of this grant's reward_granted, where the caller fills reward_id/delivery_id. */
  effectIndex: number;
  rewardCode: string;
  ruleId: string;
  type: RewardConfig["type"];
  payload: Record<string, unknown>;
  expiresAt: string | null;
  /** True unless `internal`: the caller creates a pending delivery (the client's system credits `client_delivered`, staff fulfil `manual` and `partner`). */
  delivery: boolean;
}

export interface StateDelta {
  /** Net XP change, and the level and tier after it. */
  xp: number;
  level: number;
  tierCode: string;
  peakLevel: { monthKey: string; level: number };
  /** Every XP and currency change, in order; the balance changes are their sums. */
  ledger: LedgerLine[];
  /** Net change per currency code (minor units). */
  balances: Record<string, number>;
  lotsConsumed: LotConsumption[];
  lotsCreated: NewLot[];
  /** New counters of each rule that fired. */
  ruleRuns: Record<string, RuleRunUpdate>;
  /** Increments of the per-type event counters. */
  eventCounts: Record<string, number>;
  /** New state of each mission that changed. */
  missions: Record<string, MissionState>;
  rewards: RewardGrant[];
  badges: { badgeCode: string; ruleId: string }[];
  leaderboard: { campaignId: string; points: number; ruleId: string }[];
  tagsAdded: { tag: string; ruleId: string }[];
  notifications: { template: string; ruleId: string }[];
  webhooks: { event: string; ruleId: string }[];
}

export type RefusalReason = "insufficient_balance" | "tag_limit" | "tag_too_long";

/** An effect the rule asked for that the participant's state did not allow. */
export interface Refusal {
  rule_id: string;
  effect: RuleEffect["type"];
  reason: RefusalReason;
}

export type SkipReason =
  | "expression_error"
  | "not_a_number"
  | "non_positive"
  | "out_of_range"
  | "daily_limit"
  | "unknown_currency"
  | "unknown_reward"
  | "unknown_mission"
  | "mission_unavailable"
  | "invalid_reward_spec";

/** An effect that produced nothing because of the configuration or a limit. */
export interface Skip {
  rule_id: string;
  effect: RuleEffect["type"];
  reason: SkipReason;
  detail: string;
}

export type RuleGate = "conditions" | "games" | "duplicate" | "max_runs" | "cooldown" | "daily_runs";

/** Why each enabled rule triggered by the event type fired or not. */
export interface RuleTrace {
  rule_id: string;
  fired: boolean;
  /** The first gate that stopped it; absent when it fired. */
  stoppedBy?: RuleGate;
}

export interface Evaluation {
  effects: ApiEffect[];
  delta: StateDelta;
  refused: Refusal[];
  skipped: Skip[];
  trace: RuleTrace[];
  /** The detailed "why" trace; present only when evaluate was asked for it (`trace: true`). */
  explanation?: EventTrace;
}
