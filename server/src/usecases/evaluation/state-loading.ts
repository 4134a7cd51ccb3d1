import type { SqlEntityManager } from "@mikro-orm/knex";
import type { ClubConfig, MissionConfig, RuleConfig } from "../../engine/config.js";
import { periodKey } from "../../engine/time.js";
import type { EngineEvent, Lot, MissionState, ParticipantState, RuleRunState } from "../../engine/types.js";
import { readBadges, readBalancesOf, readLots, readMissionProgress, type Balances } from "../../db/evaluation/state-reads.js";
import { hotStore, type HotStore } from "../../db/hot/index.js";
import { storedTierCode, type ParticipantSnapshot } from "./participant-snapshot.js";
import { storedPeakLevel } from "./peak-level.js";
import { loadRuleRuns } from "./rule-runs.js";

/* The engine's state of participants, read under their locks (the statements: db/evaluation/state-reads.ts). */

/**
 * What the engine needs to know about the participant, read inside the
 * transaction that holds the participant's lock: for evaluating `event`, or
 * without one for a claim, a redemption or a view of missions and the store.
 *
 * Only what the engine will consult is read; the rest is left empty:
 * - for an event, the rules it triggers decide: badges only when one grants a
 *   badge (a badge held is not granted again), lots only when one debits (a
 *   debit spends lots), missions only those the event or a rule can advance;
 *   without an event, lots and every mission, but no badges (claims and
 *   redemptions grant rewards, never badges);
 * - rule counters only for the rules the event triggers, and only those a
 *   limit of the rule looks at: the dedupe key the event resolves to, the run
 *   total and last run for `max_runs_per_participant`/`cooldown_seconds`, and
 *   today's runs and grants for `per_participant_per_day` (the engine's
 *   updates of the others are not stored either: see gatherRuleRuns);
 * - missions in their current period only, since the engine starts any other
 *   period over.
 */
export async function loadParticipantState(
  em: SqlEntityManager,
  participant: ParticipantSnapshot,
  config: ClubConfig,
  at: { now: Date; timeZone: string; event?: EngineEvent },
): Promise<ParticipantState> {
  const [state] = await loadStates(em, [participant], config, at, at.event ? [[at.event]] : null);
  return state;
}

/**
 * The states for evaluating events of several participants, each
 * participant's one after the other (a batch): what any of the events needs,
 * read with one query per kind for all of them, as `loadParticipantState`
 * reads it for one event (the union of their rules, missions and dedupe
 * keys). `events[i]` are the events of `participants[i]`. The caller carries
 * each state forward from one event to the next.
 */
export async function loadStatesForEvents(
  em: SqlEntityManager,
  participants: ParticipantSnapshot[],
  config: ClubConfig,
  at: { now: Date; timeZone: string },
  events: EngineEvent[][],
): Promise<ParticipantState[]> {
  return loadStates(em, participants, config, at, events);
}

/** `events` null: the states for a claim or a redemption. */
async function loadStates(
  em: SqlEntityManager,
  participants: ParticipantSnapshot[],
  config: ClubConfig,
  at: { now: Date; timeZone: string },
  events: EngineEvent[][] | null,
): Promise<ParticipantState[]> {
  const all = events?.flat() ?? null;
  const types = new Set(all?.map((event) => event.type));
  const triggered = config.rules.filter((rule) => rule.enabled && types.has(rule.trigger.event));
  const effectTypes = new Set(triggered.flatMap((rule) => rule.effects.map((effect) => effect.type)));
  const missionIds = all ? advanceableMissions(config, types, triggered) : new Set(config.missions.map((mission) => mission.id));
  const ids = participants.map((participant) => participant.id);
  // A view of missions or the store may come without a transaction; the driver's statements run in one.
  if (!em.getTransactionContext()) return em.transactional((trx) => loadStates(trx, participants, config, at, events));
  const store = await hotStore(em);
  // Issued together: on PostgreSQL they share one round trip (see HotStore.select).
  const [balances, lots, badges, missions, ruleRuns] = await Promise.all([
    readBalancesOf(store, ids),
    !all || effectTypes.has("debit_currency") ? readLots(store, ids, expiringCurrencies(config)) : new Map<string, Lot[]>(),
    effectTypes.has("grant_badge") ? readBadges(store, ids) : new Map<string, string[]>(),
    loadMissions(
      store,
      ids,
      config.missions.filter((mission) => missionIds.has(mission.id)),
      at.now,
      at.timeZone,
    ),
    events
      ? loadRuleRuns(
          store,
          participants.map((participant, i) => ({ participantId: participant.id, events: events[i] })),
          triggered,
          at,
        )
      : null,
  ]);
  // One literal per participant, no second object merged in (once per participant of a batch); keys in the order
  // stateAfter (carried-state.ts) builds the states after each event, so every state of a batch has one shape. What
  // nothing was read for is the one shared empty record or list.
  return participants.map((participant): ParticipantState => {
    const { id } = participant;
    return {
      xp: participant.xp,
      level: participant.level,
      tierCode: storedTierCode(participant, config),
      tags: participant.tags,
      eventCountsBefore: participant.eventCounts,
      peakLevel: storedPeakLevel(participant),
      balances: balances.get(id) ?? (NO_RECORD as Record<string, number>),
      lots: lots.get(id) ?? NO_LIST,
      badges: badges.get(id) ?? NO_LIST,
      ruleRuns: ruleRuns?.get(id) ?? (NO_RECORD as Record<string, RuleRunState>),
      missions: missions.get(id) ?? (NO_RECORD as Record<string, MissionState>),
    };
  });
}

/**
 * The state of a participant for a view (missions, the store), from rows read
 * without a lock (db/hot/participant-reads.ts): no lots, badges or rule runs,
 * which no view consults.
 */
export function viewedState(
  participant: ParticipantSnapshot,
  config: ClubConfig,
  balances: Balances,
  missions: Record<string, MissionState>,
): ParticipantState {
  return {
    xp: participant.xp,
    level: participant.level,
    tierCode: storedTierCode(participant, config),
    tags: participant.tags,
    eventCountsBefore: participant.eventCounts,
    peakLevel: storedPeakLevel(participant),
    balances,
    lots: NO_LIST,
    badges: NO_LIST,
    ruleRuns: NO_RECORD as Record<string, RuleRunState>,
    missions,
  };
}

/**
 * The empty record and list of a loaded state without rows of a kind: states
 * are read, never changed in place (the engine and carried-state.ts build new
 * ones), so every participant of a batch shares these (frozen: a write would throw).
 */
export const NO_RECORD: Readonly<Record<string, never>> = Object.freeze({});
export const NO_LIST = Object.freeze([]) as unknown as never[];

/** The missions events of `types` can move: those listening to one of them, and those their triggered rules advance. */
function advanceableMissions(config: ClubConfig, types: Set<string>, triggered: RuleConfig[]): Set<string> {
  const ids = new Set(config.missions.filter((mission) => types.has(mission.event)).map((mission) => mission.id));
  for (const rule of triggered) {
    for (const effect of rule.effects) if (effect.type === "progress_mission") ids.add(effect.mission);
  }
  return ids;
}

/** The currencies that expire: only those are credited as lots. */
function expiringCurrencies(config: ClubConfig): string[] {
  return config.currencies.filter((currency) => currency.expiresInDays !== null).map((currency) => currency.code);
}

/** The participants' progress in the missions' current periods: any other period the engine starts over. */
function loadMissions(
  store: HotStore,
  participantIds: string[],
  missions: MissionConfig[],
  now: Date,
  timeZone: string,
): Promise<Map<string, Record<string, MissionState>>> {
  return readMissionProgress(store, participantIds, new Map(missions.map((mission) => [mission.id, periodKey(mission.period, now, timeZone)])));
}
