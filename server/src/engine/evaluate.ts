import type { EngineConfig } from "./config.js";
import { claimMissionReward, progressMissionsForEvent, type ClaimRefusal } from "./missions.js";
import { grantRewardSpec } from "./rewards.js";
import { enabledRulesFor, runRule } from "./rules.js";
import { Session } from "./session.js";
import { dayKey } from "./time.js";
import { disabledReason, isNearMiss, TraceBuilder, triggerTypeReason } from "./trace.js";
import type { EngineEvent, Evaluation, ParticipantState } from "./types.js";

export interface EngineInput {
  /** The published config, with every default filled by the validator. */
  config: EngineConfig;
  state: ParticipantState;
  now: Date;
  /** The club time zone (`checkin.timezone`): club days, weeks and months. */
  timeZone: string;
}

/**
 * Evaluates one event for one participant: the enabled rules triggered by its
 * type in config order (each effect in order), then every mission, then the
 * level and tier changes. Pure: the same input always gives the same output.
 *
 * With `trace: true` the evaluation also carries `explanation` (see
 * trace.ts): every rule and mission the event's type could touch — those
 * listening to it, disabled ones included, and those listening to a type
 * within a typo's distance — matched or skipped with the first reason.
 */
export function evaluate(input: EngineInput & { event: EngineEvent; trace?: boolean }): Evaluation {
  const { config, state, event, now, timeZone } = input;
  const tracer = input.trace ? new TraceBuilder() : null;
  const session = new Session(config, state, now, timeZone, tracer);
  const today = dayKey(now, timeZone);
  if (tracer) {
    // Tracing explains every rule the type could touch (disabled ones, near-miss types): the full list, in config order.
    for (const rule of config.rules) {
      if (rule.enabled && rule.trigger.event === event.type) runRule(session, rule, event, today);
      else if (rule.trigger.event === event.type) tracer.add({ kind: "rule", id: rule.id, matched: false, reason: disabledReason });
      else if (isNearMiss(rule.trigger.event, event.type))
        tracer.add({ kind: "rule", id: rule.id, matched: false, reason: triggerTypeReason(rule.trigger.event, event.type) });
    }
  } else {
    for (const rule of enabledRulesFor(config, event.type)) runRule(session, rule, event, today);
  }
  if (tracer) {
    for (const mission of config.missions) {
      if (isNearMiss(mission.event, event.type))
        tracer.add({ kind: "mission", id: mission.id, matched: false, reason: triggerTypeReason(mission.event, event.type) });
    }
  }
  progressMissionsForEvent(session, event);
  return session.finish(event.type);
}

/** Claims a completed `manual` mission's reward, or says why it cannot be claimed. */
export function claimMission(input: EngineInput & { missionId: string }): { ok: true; evaluation: Evaluation } | { ok: false; reason: ClaimRefusal } {
  const session = new Session(input.config, input.state, input.now, input.timeZone);
  const refusal = claimMissionReward(session, input.missionId);
  return refusal === null ? { ok: true, evaluation: session.finish(null) } : { ok: false, reason: refusal };
}

/**
 * Grants reward specs (`xp:50`, `coins:10`, `reward:<code>`) outside rules,
 * e.g. for a check-in day, a wheel slice or a referral, attributed to `ruleId`
 * (`checkin:2026-11-21`, `referral:<id>`…), with the same effects and delta as
 * an event.
 */
export function grantRewards(input: EngineInput & { specs: string[]; ruleId: string }): Evaluation {
  const session = new Session(input.config, input.state, input.now, input.timeZone);
  for (const spec of input.specs) grantRewardSpec(session, spec, input.ruleId);
  return session.finish(null);
}
