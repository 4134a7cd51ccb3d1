import type { MissionConfig } from "./config.js";
import { eventField, evaluateFieldCondition, numericValue } from "./conditions.js";
import { matchesGameFilter } from "./games.js";
import { addDecimal } from "./money.js";
import { grantRewardSpec } from "./rewards.js";
import type { Session } from "./session.js";
import { periodKey } from "./time.js";
import { alreadyCompletedReason, conditionReason, gameFilterReason, missionUnavailableReason, noIncrementReason, type TraceReason } from "./trace.js";
import type { EngineEvent, MissionState } from "./types.js";

/** Mission rewards and skips are attributed to this pseudo rule id. */
function missionRuleId(missionId: string): string {
  return `mission:${missionId}`;
}

/** Enabled, inside its [startsAt, endsAt) window, and for this participant when it has an `audienceTag`. */
export function missionAvailable(session: Session, mission: MissionConfig): boolean {
  const now = session.now.getTime();
  if (!mission.enabled) return false;
  if (mission.startsAt !== undefined && now < Date.parse(mission.startsAt)) return false;
  if (mission.endsAt !== undefined && now >= Date.parse(mission.endsAt)) return false;
  return mission.audienceTag === undefined || session.tags.includes(mission.audienceTag);
}

/** The mission's state in the period containing `now`: a state from an earlier period starts over. */
function currentMissionState(session: Session, mission: MissionConfig): MissionState {
  const key = periodKey(mission.period, session.now, session.timeZone);
  const stored = session.mission(mission.id);
  return stored && stored.periodKey === key ? stored : startOf(key);
}

/**
 * A period's state before any progress: one frozen object per period key
 * (states are read-only; progress makes a new one), instead of one per
 * mission of each event that starts a period. Keys are a few per club
 * ("once", this day, week and month); the bound only protects a replay over
 * many periods.
 */
function startOf(key: string): MissionState {
  let state = periodStarts.get(key);
  if (!state) {
    if (periodStarts.size >= PERIOD_STARTS_LIMIT) periodStarts.clear();
    periodStarts.set(key, (state = Object.freeze({ periodKey: key, progress: 0, completed: false, claimed: false })));
  }
  return state;
}
const PERIOD_STARTS_LIMIT = 1000;
const periodStarts = new Map<string, MissionState>();

/**
 * Adds `increment` to the mission's progress in the current period (capped at
 * the target). Reaching the target completes it once per period: `claim: auto`
 * grants the reward at once, `manual` leaves it claimable (see claimMission).
 * A mission already completed in this period does not move.
 */
export function advanceMission(session: Session, mission: MissionConfig, increment: number): void {
  const current = currentMissionState(session, mission);
  if (current.completed) return;
  const progress = Math.min(mission.goal.target, addDecimal(current.progress, increment));
  const completed = progress >= mission.goal.target;
  session.recordMissionProgress(mission, { ...current, progress, completed }, completed);
  if (completed && mission.claim === "auto") claimReward(session, mission);
}

function claimReward(session: Session, mission: MissionConfig): void {
  grantRewardSpec(session, mission.reward, missionRuleId(mission.id));
  session.markMissionClaimed(mission.id, currentMissionState(session, mission));
}

/** How much the event moves a mission: 1 for `count`, the goal field's value for `sum` (null when absent or not positive). */
function eventIncrement(mission: MissionConfig, event: EngineEvent): number | null {
  if (mission.goal.kind === "count") return 1;
  const value = numericValue(eventField(event, mission.goal.field));
  return value > 0 ? value : null;
}

function noTrace(): void {}

/** Every condition of the mission holds for the event (a loop, no closure: missions are checked on every event). */
function fieldConditionsHold(mission: MissionConfig, session: Session, event: EngineEvent): boolean {
  const context = session.conditionContext(event);
  for (const condition of mission.conditions) if (!evaluateFieldCondition(condition, context)) return false;
  return true;
}

/** Progresses every available mission whose event, conditions and game filters the event matches. */
export function progressMissionsForEvent(session: Session, event: EngineEvent): void {
  for (const mission of session.config.missions) {
    if (mission.event !== event.type) continue;
    // A closure per mission only when tracing: building one costs on every event otherwise.
    const skip = session.tracer ? (reason: TraceReason) => session.tracer?.add({ kind: "mission", id: mission.id, matched: false, reason }) : noTrace;
    if (!missionAvailable(session, mission)) {
      if (session.tracer) skip(missionUnavailableReason(mission, session.now, session.tags));
      continue;
    }
    if (mission.conditions.length > 0 && !fieldConditionsHold(mission, session, event)) {
      if (session.tracer) skip(conditionReason(mission.conditions, session.conditionContext(event))!);
      continue;
    }
    if (!matchesGameFilter(mission.games, event.meta, session.config.games?.exclude)) {
      if (session.tracer) skip(gameFilterReason(event.meta));
      continue;
    }
    const increment = eventIncrement(mission, event);
    if (increment === null) {
      if (session.tracer) skip(noIncrementReason(mission, event));
      continue;
    }
    if (session.tracer && currentMissionState(session, mission).completed) {
      skip(alreadyCompletedReason);
      continue;
    }
    session.tracer?.add({ kind: "mission", id: mission.id, matched: true });
    advanceMission(session, mission, increment);
  }
}

export type ClaimRefusal = "unknown_mission" | "not_completed" | "already_claimed";

/**
 * Claims a completed `manual` mission's reward in the current period (a
 * reward not claimed before the period ends is lost with the period's progress).
 */
export function claimMissionReward(session: Session, missionId: string): ClaimRefusal | null {
  const mission = session.config.missions.find((candidate) => candidate.id === missionId);
  if (!mission) return "unknown_mission";
  const current = currentMissionState(session, mission);
  if (!current.completed) return "not_completed";
  if (current.claimed) return "already_claimed";
  claimReward(session, mission);
  return null;
}
