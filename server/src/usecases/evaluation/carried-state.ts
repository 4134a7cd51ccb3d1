import type { ClubConfig } from "../../engine/config.js";
import type { Lot, ParticipantState, RuleRunState, StateDelta } from "../../engine/types.js";
import type { GatheredEvaluation } from "./gather-evaluation.js";
import { storedTierCode } from "./participant-snapshot.js";
import { storedPeakLevel } from "./peak-level.js";

/*
 * One participant's events of a batch are evaluated one after the other
 * against state held in memory, instead of writing each event's delta and
 * reading the state back for the next. Pure: no I/O.
 */

/**
 * The state the next event of the same batch (evaluated at the same `now`)
 * starts from: what reading it back from the database after writing
 * `gathered` would give, for everything the state was loaded with.
 *
 * Rule counters are carried for the rules that fired: the engine's update is
 * what the stored runs add up to (the loaded counters cover the window each
 * limit looks at, and `now` does not move within a batch), and the dedupe key
 * the run used joins the keys already seen.
 */
export function stateAfter(state: ParticipantState, config: ClubConfig, delta: StateDelta, gathered: GatheredEvaluation): ParticipantState {
  // Field by field: on Node 20, a literal that starts with a spread and adds keys costs microseconds (see bench/micro/object-spread.ts).
  // The participant's part as loadStates reads it; the peak level as the same
  // object while the stored columns say the same (most events: it moves only with the level).
  const { participant } = gathered;
  const prior = state.peakLevel;
  const samePeak = prior !== null && prior.monthKey === participant.peakMonth && prior.level === participant.peakLevel;
  return {
    xp: participant.xp,
    level: participant.level,
    tierCode: storedTierCode(participant, config),
    tags: participant.tags,
    eventCountsBefore: participant.eventCounts,
    peakLevel: samePeak ? prior : storedPeakLevel(participant),
    balances: balancesAfter(state.balances, delta.balances),
    lots: lotsAfter(state.lots, delta, gathered.lotsCreated),
    badges: delta.badges.length === 0 ? state.badges : [...state.badges, ...delta.badges.map((badge) => badge.badgeCode)],
    ruleRuns: ruleRunsAfter(state.ruleRuns, delta.ruleRuns),
    missions: isEmpty(delta.missions) ? state.missions : Object.assign({}, state.missions, delta.missions),
  };
}

/*
 * A part the delta leaves as it was is carried as the same object: states are
 * never changed in place (the engine reads them, each step builds new ones),
 * and copying every part of every state on every event of a batch adds up.
 * Copies that get keys added use Object.assign, not a spread: on Node 20 a
 * spread object that then gets new keys costs microseconds (bench/micro/object-spread.ts).
 */

function isEmpty(record: Record<string, unknown>): boolean {
  for (const _ in record) return false;
  return true;
}

function balancesAfter(balances: Record<string, number>, changes: Record<string, number>): Record<string, number> {
  if (isEmpty(changes)) return balances;
  const after: Record<string, number> = Object.assign({}, balances);
  for (const currency in changes) after[currency] = (after[currency] ?? 0) + changes[currency];
  return after;
}

/** Lots spent from, without those emptied (never loaded), then the lots credited. */
function lotsAfter(lots: Lot[], delta: StateDelta, created: Lot[]): Lot[] {
  if (delta.lotsConsumed.length === 0 && created.length === 0) return lots;
  const spent = new Map(delta.lotsConsumed.map(({ lotId, amount }) => [lotId, amount]));
  const remaining = lots.map((lot) => ({ ...lot, remaining: lot.remaining - (spent.get(lot.id) ?? 0) })).filter((lot) => lot.remaining > 0);
  return [...remaining, ...created];
}

function ruleRunsAfter(runs: Record<string, RuleRunState>, updates: StateDelta["ruleRuns"]): Record<string, RuleRunState> {
  if (isEmpty(updates)) return runs;
  const after: Record<string, RuleRunState> = Object.assign({}, runs);
  for (const ruleId in updates) {
    const { dedupeKey, total, lastRunAt, today } = updates[ruleId];
    const seen = runs[ruleId]?.dedupeKeys ?? [];
    after[ruleId] = { total, lastRunAt, today, dedupeKeys: dedupeKey === null ? seen : [...seen, dedupeKey] };
  }
  return after;
}
