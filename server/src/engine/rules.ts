import type { EngineConfig, RuleConfig } from "./config.js";
import { eventField, evaluateCondition } from "./conditions.js";
import { applyRuleEffect } from "./effects.js";
import { matchesGameFilter } from "./games.js";
import { currentRunState, runLimitReached } from "./limits.js";
import type { Session } from "./session.js";
import { conditionReason, gameFilterReason, limitReason, type TraceReason } from "./trace.js";
import type { EngineEvent, RuleGate, RuleRunState, RuleTrace } from "./types.js";

/**
 * The rule run's dedupe key: the value at the rule's `idempotency` path
 * ("event.id", "event.meta.round_id"), or null when the path holds no scalar.
 */
export function dedupeKey(rule: RuleConfig, event: EngineEvent): string | null {
  const value = eventField(event, rule.idempotency);
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : null;
}

/**
 * The enabled rules of a configuration grouped by trigger event type, in
 * config order, so an event only looks at the rules listening to its type.
 * Built once per configuration object: the published config is one object
 * per version (usecases/club/config.ts), so this runs once per publish. Configs are
 * treated as immutable once evaluated.
 */
const rulesByTrigger = new WeakMap<EngineConfig, ReadonlyMap<string, readonly RuleConfig[]>>();
const NO_RULES: readonly RuleConfig[] = [];
/**
 * The last configuration looked up and its index: a batch asks for the same
 * configuration once per event, and a WeakMap lookup (an ephemeron table)
 * costs more than this comparison. Holds at most one configuration alive.
 */
let lastConfig: EngineConfig | undefined;
let lastIndex: ReadonlyMap<string, readonly RuleConfig[]> | undefined;

export function enabledRulesFor(config: EngineConfig, eventType: string): readonly RuleConfig[] {
  if (config === lastConfig) return lastIndex!.get(eventType) ?? NO_RULES;
  let index = rulesByTrigger.get(config);
  if (!index) {
    const grouped = new Map<string, RuleConfig[]>();
    for (const rule of config.rules) {
      if (!rule.enabled) continue;
      const list = grouped.get(rule.trigger.event);
      if (list) list.push(rule);
      else grouped.set(rule.trigger.event, [rule]);
    }
    rulesByTrigger.set(config, (index = grouped));
  }
  lastConfig = config;
  lastIndex = index;
  return index.get(eventType) ?? NO_RULES;
}

/** The first gate that stops the rule for this event, or null when it fires. */
function blockingGate(session: Session, rule: RuleConfig, event: EngineEvent, run: RuleRunState, key: string | null): RuleGate | null {
  if (rule.conditions.length > 0) {
    const context = session.conditionContext(event);
    // A loop, not `every` with a closure: this runs for each rule of each event.
    for (let i = 0; i < rule.conditions.length; i++) if (!evaluateCondition(rule.conditions[i], context)) return "conditions";
  }
  if (!matchesGameFilter(rule.games, event.meta, session.config.games?.exclude)) return "games";
  return runLimitReached(rule, run, key, session.now);
}

/**
 * Runs one rule whose trigger is the event's type: checks its conditions, game
 * filters and run limits, applies its effects in order and records the run
 * (a run counts when the rule fires, whatever its effects produced).
 */
export function runRule(session: Session, rule: RuleConfig, event: EngineEvent, dayKey: string): void {
  // Worked out once: the gate and the run's record both need them.
  const run = currentRunState(session.state.ruleRuns[rule.id], dayKey);
  const key = dedupeKey(rule, event);
  const gate = blockingGate(session, rule, event, run, key);
  if (gate !== null) {
    session.traceRule(traceEntry(rule.id, gate));
    session.tracer?.add({ kind: "rule", id: rule.id, matched: false, reason: gateReason(session, rule, event, dayKey, gate) });
    return;
  }
  // Object.assign, not a spread: keys are added to it later (see bench/micro/object-spread.ts).
  const granted: Record<string, number> = Object.assign({}, run.today.granted);
  for (const effect of rule.effects) applyRuleEffect(session, rule, effect, event, granted);
  session.recordRun(rule.id, {
    total: run.total + 1,
    lastRunAt: session.nowIso,
    today: { dayKey, runs: run.today.runs + 1, granted },
    dedupeKey: key,
  });
  session.traceRule(traceEntry(rule.id, null));
  session.tracer?.add({ kind: "rule", id: rule.id, matched: true });
}

/**
 * The trace entry of a rule that fired (`gate` null) or that `gate` stopped:
 * one frozen entry per rule id and outcome (entries say nothing else, and the
 * trace is read-only), instead of one per rule of each event. The bound only
 * protects a long-running process from configs edited many times.
 */
function traceEntry(ruleId: string, gate: RuleGate | null): RuleTrace {
  let entries = traceEntries.get(ruleId);
  if (!entries) {
    if (traceEntries.size >= TRACE_ENTRIES_LIMIT) traceEntries.clear();
    traceEntries.set(ruleId, (entries = { fired: Object.freeze({ rule_id: ruleId, fired: true }) }));
  }
  if (gate === null) return entries.fired;
  return (entries[gate] ??= Object.freeze({ rule_id: ruleId, fired: false, stoppedBy: gate }));
}
const TRACE_ENTRIES_LIMIT = 1000;
const traceEntries = new Map<string, { fired: RuleTrace } & Partial<Record<RuleGate, RuleTrace>>>();

/** The detailed reason behind `gate`, worked out only when tracing. */
function gateReason(session: Session, rule: RuleConfig, event: EngineEvent, dayKey: string, gate: RuleGate): TraceReason {
  if (gate === "conditions") return conditionReason(rule.conditions, session.conditionContext(event))!;
  if (gate === "games") return gameFilterReason(event.meta);
  return limitReason(gate, rule, currentRunState(session.state.ruleRuns[rule.id], dayKey), dedupeKey(rule, event));
}
