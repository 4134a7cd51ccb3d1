import { closest, distance } from "fastest-levenshtein";
import type { EngineConfig, MissionConfig, RuleCondition, RuleConfig } from "./config.js";
import { eventField, type ConditionContext } from "./conditions.js";
import { evaluateCondition } from "./conditions.js";
import type { EngineEvent, RuleGate, RuleRunState, Skip, Refusal } from "./types.js";

/**
 * The "why" of one evaluation: for every rule and mission the event's type
 * could touch, whether it matched and, when not, the first reason. Built only
 * when the caller asks for it (`evaluate({..., trace: true})`): the reasons
 * are worked out again from the gate that stopped the rule, so the hot path
 * pays nothing for them.
 */

type TraceReasonCode =
  | "disabled"
  | "trigger_type"
  | "condition"
  | "game_filter"
  | "limit_reached"
  | "cooldown"
  | "duplicate"
  | "not_available"
  | "no_increment"
  | "already_completed";

export interface TraceReason {
  code: TraceReasonCode;
  /** One sentence for people (support staff, the console). */
  message: string;
  /** `condition`: the failing condition as written (`amount >= 50`), and the actual value it saw. */
  condition?: string;
  actual?: unknown;
  /** `limit_reached`: the limit, the participant's counter and the maximum. */
  limit?: string;
  counter?: number;
  maximum?: number;
  /** `cooldown`: when the rule may fire again. */
  until?: string;
  /** `duplicate`: the dedupe key already seen. */
  dedupe_key?: string;
  /** `trigger_type`: the event type the rule or mission listens to. */
  expected_type?: string;
}

export interface TraceEntry {
  kind: "rule" | "mission";
  id: string;
  matched: boolean;
  /** Why it did not match; absent when it matched. */
  reason?: TraceReason;
  /** Effects of a matched rule (or a mission's reward) that produced nothing: expression errors, daily limits… */
  skipped_effects?: Omit<Skip, "rule_id">[];
  refused_effects?: Omit<Refusal, "rule_id">[];
}

export interface TraceWarning {
  code: "unknown_event_type";
  message: string;
  /** The configured event type nearest by edit distance; null when nothing is configured. */
  closest_type: string | null;
}

export interface EventTrace {
  entries: TraceEntry[];
  warnings: TraceWarning[];
}

/** An event type this close (edit distance) to a listened type is traced against its rules as a likely typo. */
const TYPO_DISTANCE = 2;

/** Every event type a rule (enabled or not), mission or tournament of `config` listens to. */
const listenedCache = new WeakMap<object, Set<string>>();
function listenedEventTypes(config: EngineConfig): Set<string> {
  let types = listenedCache.get(config);
  if (types) return types;
  types = new Set<string>();
  for (const rule of config.rules) types.add(rule.trigger.event);
  for (const mission of config.missions) types.add(mission.event);
  const tournaments = (config as { tournaments?: { event: string }[] }).tournaments ?? [];
  for (const tournament of tournaments) types.add(tournament.event);
  listenedCache.set(config, types);
  return types;
}

/**
 * A warning for an event type nothing listens to, naming the configured type
 * nearest by edit distance (a misspelled `deposit.confrimed` names
 * `deposit.confirmed`); null when something listens to it. Cheap on the hot
 * path: a set lookup, the distances only for unknown types.
 */
export function unknownTypeWarning(config: EngineConfig, type: string): TraceWarning | null {
  const types = listenedEventTypes(config);
  if (types.has(type)) return null;
  // A client sending a type nothing listens to usually keeps sending it: the distances are worked out once per config and type.
  let warnings = unknownTypeWarnings.get(config);
  if (!warnings) unknownTypeWarnings.set(config, (warnings = new Map()));
  let warning = warnings.get(type);
  if (!warning) {
    if (warnings.size >= UNKNOWN_TYPES_LIMIT) warnings.clear();
    warnings.set(type, (warning = Object.freeze(typeWarning(type, types.size === 0 ? null : closest(type, [...types].sort())))));
  }
  return warning;
}

/** Warnings by config and unknown type; bounded, since any text can come as a type. */
const UNKNOWN_TYPES_LIMIT = 256;
const unknownTypeWarnings = new WeakMap<object, Map<string, TraceWarning>>();

function typeWarning(type: string, nearest: string | null): TraceWarning {
  return {
    code: "unknown_event_type",
    message:
      nearest === null
        ? `no rule, mission or tournament listens to ${JSON.stringify(type)}`
        : `no rule, mission or tournament listens to ${JSON.stringify(type)}; did you mean ${JSON.stringify(nearest)}?`,
    closest_type: nearest,
  };
}

/** True when `listened` is not the event's type but close enough to be a likely typo of it. */
export function isNearMiss(listened: string, type: string): boolean {
  return listened !== type && distance(listened, type) <= TYPO_DISTANCE;
}

export function triggerTypeReason(expected: string, type: string): TraceReason {
  return { code: "trigger_type", message: `listens to ${JSON.stringify(expected)}, not ${JSON.stringify(type)}`, expected_type: expected };
}

export const disabledReason: TraceReason = { code: "disabled", message: "disabled in the configuration" };

/** A condition as configured, written out (`amount >= 50`, `segment vip`). */
function describeCondition(condition: RuleCondition): string {
  if ("field" in condition) return `${condition.field} ${condition.op} ${JSON.stringify(condition.value)}`;
  if ("segment" in condition) return `segment ${condition.segment}`;
  if ("segment_not" in condition) return `segment_not ${condition.segment_not}`;
  if ("tier_in" in condition) return `tier_in ${JSON.stringify(condition.tier_in)}`;
  if ("first_time" in condition) return "first_time";
  return `nth ${condition.nth}`;
}

/** The value a condition looked at. */
function actualValue(condition: RuleCondition, context: ConditionContext): unknown {
  if ("field" in condition) {
    const path = condition.field;
    if (!path.startsWith("participant.")) return eventField(context.event, path) ?? null;
    return (context.participant as unknown as Record<string, unknown>)[path.slice("participant.".length)] ?? null;
  }
  if ("segment" in condition || "segment_not" in condition) return context.participant.tags;
  if ("tier_in" in condition) return context.participant.tier;
  return context.eventCountBefore;
}

/** The first failing condition, with what it saw; null when all hold. */
export function conditionReason(conditions: RuleCondition[], context: ConditionContext): TraceReason | null {
  const failing = conditions.find((condition) => !evaluateCondition(condition, context));
  if (!failing) return null;
  const written = describeCondition(failing);
  const actual = actualValue(failing, context);
  return { code: "condition", message: `condition ${written} is false (actual: ${JSON.stringify(actual)})`, condition: written, actual };
}

export function gameFilterReason(meta: Record<string, unknown>): TraceReason {
  const game = { game_type: meta.game_type ?? null, game_provider: meta.game_provider ?? null, game_id: meta.game_id ?? null };
  return { code: "game_filter", message: `the game ${JSON.stringify(game)} is outside the game filter`, actual: game };
}

/** The reason behind a run-limit gate (see runLimitReached), with the counters that tripped it. */
export function limitReason(gate: Exclude<RuleGate, "conditions" | "games">, rule: RuleConfig, run: RuleRunState, dedupeKey: string | null): TraceReason {
  const limits = rule.limits;
  switch (gate) {
    case "duplicate":
      return { code: "duplicate", message: `already fired for dedupe key ${JSON.stringify(dedupeKey)} (${rule.idempotency})`, dedupe_key: dedupeKey ?? "" };
    case "max_runs":
      return {
        code: "limit_reached",
        message: `max_runs_per_participant reached (${run.total} of ${limits.max_runs_per_participant})`,
        limit: "max_runs_per_participant",
        counter: run.total,
        maximum: limits.max_runs_per_participant,
      };
    case "cooldown": {
      const until = new Date(Date.parse(run.lastRunAt!) + (limits.cooldown_seconds ?? 0) * 1000).toISOString();
      return { code: "cooldown", message: `cooling down until ${until}`, until };
    }
    case "daily_runs": {
      const max = limits.per_participant_per_day?.runs;
      return {
        code: "limit_reached",
        message: `per_participant_per_day.runs reached (${run.today.runs} of ${max})`,
        limit: "per_participant_per_day.runs",
        counter: run.today.runs,
        maximum: max,
      };
    }
  }
}

/** Missions: why one is not available to the participant now. */
export function missionUnavailableReason(mission: MissionConfig, now: Date, tags: string[]): TraceReason {
  if (!mission.enabled) return disabledReason;
  if (mission.startsAt !== undefined && now.getTime() < Date.parse(mission.startsAt))
    return { code: "not_available", message: `starts at ${mission.startsAt}` };
  if (mission.endsAt !== undefined && now.getTime() >= Date.parse(mission.endsAt)) return { code: "not_available", message: `ended at ${mission.endsAt}` };
  return {
    code: "not_available",
    message: `only for participants tagged ${JSON.stringify(mission.audienceTag)} (tags: ${JSON.stringify(tags)})`,
    actual: tags,
  };
}

export function noIncrementReason(mission: MissionConfig, event: EngineEvent): TraceReason {
  const actual = eventField(event, mission.goal.field) ?? null;
  return { code: "no_increment", message: `the goal field ${mission.goal.field} has no positive value (actual: ${JSON.stringify(actual)})`, actual };
}

export const alreadyCompletedReason: TraceReason = { code: "already_completed", message: "already completed in this period" };

/**
 * Collects trace entries during one evaluation; effect skips and refusals are
 * attached to their rule's (or mission's) entry when the evaluation closes.
 */
export class TraceBuilder {
  private readonly entries: TraceEntry[] = [];

  add(entry: TraceEntry): void {
    this.entries.push(entry);
  }

  finish(config: EngineConfig, eventType: string | null, skipped: Skip[], refused: Refusal[]): EventTrace {
    const sourceOf = (entry: TraceEntry) => (entry.kind === "rule" ? entry.id : `mission:${entry.id}`);
    for (const entry of this.entries) {
      if (!entry.matched) continue;
      const skips = skipped.filter((skip) => skip.rule_id === sourceOf(entry)).map(({ rule_id: _, ...rest }) => rest);
      const refusals = refused.filter((refusal) => refusal.rule_id === sourceOf(entry)).map(({ rule_id: _, ...rest }) => rest);
      if (skips.length > 0) entry.skipped_effects = skips;
      if (refusals.length > 0) entry.refused_effects = refusals;
    }
    const warning = eventType === null ? null : unknownTypeWarning(config, eventType);
    return { entries: this.entries, warnings: warning ? [warning] : [] };
  }
}
