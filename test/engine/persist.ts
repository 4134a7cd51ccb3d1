import type { Evaluation, Lot, ParticipantState } from "../../server/src/engine/types.js";

/**
 * What the use case does with a delta, in memory: the next state, so tests can
 * send several events in a row. New lots get ids `lot-<n>`.
 */
export function persist(state: ParticipantState, { delta }: Evaluation): ParticipantState {
  const balances = { ...state.balances };
  for (const [currency, change] of Object.entries(delta.balances)) balances[currency] = (balances[currency] ?? 0) + change;
  const consumed = new Map(delta.lotsConsumed.map((entry) => [entry.lotId, entry.amount]));
  const lots: Lot[] = state.lots.map((lot) => ({ ...lot, remaining: lot.remaining - (consumed.get(lot.id) ?? 0) }));
  for (const lot of delta.lotsCreated) {
    lots.push({ id: `lot-${lots.length + 1}`, currency: lot.currency, remaining: lot.amount, grantedAt: lot.grantedAt, expiresAt: lot.expiresAt });
  }
  const ruleRuns = { ...state.ruleRuns };
  for (const [ruleId, { dedupeKey, ...counters }] of Object.entries(delta.ruleRuns)) {
    const keys = state.ruleRuns[ruleId]?.dedupeKeys ?? [];
    ruleRuns[ruleId] = { ...counters, dedupeKeys: dedupeKey === null ? keys : [...keys, dedupeKey] };
  }
  const eventCountsBefore = { ...state.eventCountsBefore };
  for (const [type, increment] of Object.entries(delta.eventCounts)) eventCountsBefore[type] = (eventCountsBefore[type] ?? 0) + increment;
  return {
    xp: state.xp + delta.xp,
    level: delta.level,
    tierCode: delta.tierCode,
    tags: [...state.tags, ...delta.tagsAdded.map((added) => added.tag)],
    balances,
    lots: lots.filter((lot) => lot.remaining > 0),
    badges: [...state.badges, ...delta.badges.map((badge) => badge.badgeCode)],
    eventCountsBefore,
    ruleRuns,
    missions: { ...state.missions, ...delta.missions },
    peakLevel: delta.peakLevel,
  };
}
