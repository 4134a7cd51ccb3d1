/** The pure event engine: no I/O, no clock, no randomness; callers pass `now` and the club time zone. */
export { evaluate, claimMission, grantRewards, type EngineInput } from "./evaluate.js";
export { progressFor, levelThresholds, levelForXp, type Progress } from "./progression.js";
export { tierForLevel, nextTierAfter, tierAfterLevelChange, reviewTier, type NextTier } from "./tiers.js";
export { toMinorUnits, fromMinorUnits, addDecimal, withoutFloatNoise } from "./money.js";
export { dayKey, weekKey, monthKey, previousMonthKey, nextDayStart, periodKey, addDays, type Period } from "./time.js";
export { compileExpression, resolveAmount, ExpressionError, type CompiledExpression, type ExpressionVariables, type ExpressionResult } from "./expressions.js";
export { evaluateCondition, evaluateFieldCondition, eventField, type ConditionContext } from "./conditions.js";
export { matchesGameFilter } from "./games.js";
export { expireLots, spendLots } from "./lots.js";
export { parseRewardSpec, type RewardSpec } from "./rewards.js";
export { missionRuleId, type ClaimRefusal } from "./missions.js";
export { MAX_TAGS, MAX_TAG_LENGTH } from "./session.js";
export type * from "./types.js";
export type * from "./config.js";
export { unknownTypeWarning, listenedEventTypes, type EventTrace, type TraceEntry, type TraceReason, type TraceWarning } from "./trace.js";
