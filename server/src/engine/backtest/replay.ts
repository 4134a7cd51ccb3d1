import type { ApiEffect, EngineConfig } from "../config.js";
import { evaluate } from "../evaluate.js";
import { toMinorUnits } from "../money.js";
import type { EngineEvent, ParticipantState, RuleRunState, StateDelta } from "../types.js";

/*
 * Backtests, pure: replays events through a configuration on participants'
 * states held in memory (nothing is written anywhere), and tallies what each
 * rule and mission did, from the effects — so the same tally can be made of
 * the effects the published configuration actually produced.
 */

/** What one rule (`rule:<id>`) or mission (`mission:<id>`) did over the replayed events. */
export interface SourceTally {
  /** Events on which it fired (a rule) or progressed (a mission). */
  runs: number;
  /** Distinct participants it reached. */
  participants: number;
  xp: number;
  /** Per currency code, minor units. */
  currencies: Record<string, number>;
  rewards: number;
  /** Missions: completions. */
  completions: number;
}

export class Tally {
  private readonly tallies = new Map<string, SourceTally & { reached: Set<string> }>();

  /** `decimalsOf` gives each currency's `decimals`: effects carry main units, the tally counts minor units. */
  constructor(private readonly decimalsOf: (currency: string) => number) {}

  private of(source: string) {
    let tally = this.tallies.get(source);
    if (!tally) {
      tally = { runs: 0, participants: 0, xp: 0, currencies: {}, rewards: 0, completions: 0, reached: new Set() };
      this.tallies.set(source, tally);
    }
    return tally;
  }

  /** Adds one event's effects for `participant`. A mission's reward counts for the mission. */
  add(participant: string, effects: readonly ApiEffect[]): void {
    const ran = new Set<string>();
    const touch = (source: string) => {
      const tally = this.of(source);
      if (!ran.has(source)) {
        ran.add(source);
        tally.runs++;
        tally.reached.add(participant);
      }
      return tally;
    };
    for (const effect of effects) {
      const source = sourceOf(effect);
      if (source === null) continue;
      const tally = touch(source);
      if (effect.type === "xp_granted") tally.xp += effect.amount;
      else if (effect.type === "currency_granted")
        tally.currencies[effect.currency] = (tally.currencies[effect.currency] ?? 0) + effectMinorUnits(effect, this.decimalsOf(effect.currency));
      else if (effect.type === "reward_granted") tally.rewards++;
      else if (effect.type === "mission_completed") tally.completions++;
    }
  }

  result(): Record<string, SourceTally> {
    const out: Record<string, SourceTally> = {};
    for (const [source, { reached, ...tally }] of [...this.tallies].sort(([a], [b]) => a.localeCompare(b)))
      out[source] = { ...tally, participants: reached.size };
    return out;
  }
}

/** A currency effect's amount in minor units; results stored before effects carried main units hold `amount_minor`. */
function effectMinorUnits(effect: ApiEffect & { type: "currency_granted" }, decimals: number): number {
  const stored = (effect as { amount_minor?: unknown }).amount_minor;
  return typeof stored === "number" ? stored : toMinorUnits(effect.amount, decimals);
}

/** The `decimals` of each configured currency (0 for a code the configuration no longer has). */
export function currencyDecimals(config: Pick<EngineConfig, "currencies">): (currency: string) => number {
  return (currency) => config.currencies.find((entry) => entry.code === currency)?.decimals ?? 0;
}

/** `rule:<id>` or `mission:<id>` for an effect; null for level and tier changes. */
function sourceOf(effect: ApiEffect): string | null {
  if (effect.type === "mission_progressed" || effect.type === "mission_completed") return `mission:${effect.mission_id}`;
  const ruleId = (effect as { rule_id?: string }).rule_id;
  if (ruleId === undefined) return null;
  return ruleId.startsWith("mission:") ? ruleId : `rule:${ruleId}`;
}

/** The participant's state after an evaluated event, as the next event of a replay sees it. */
function carryState(state: ParticipantState, delta: StateDelta, eventType: string): ParticipantState {
  const balances = { ...state.balances };
  for (const [currency, change] of Object.entries(delta.balances)) balances[currency] = (balances[currency] ?? 0) + change;
  const ruleRuns: Record<string, RuleRunState> = { ...state.ruleRuns };
  for (const [ruleId, { dedupeKey, ...counters }] of Object.entries(delta.ruleRuns)) {
    const seen = state.ruleRuns[ruleId]?.dedupeKeys ?? [];
    ruleRuns[ruleId] = { ...counters, dedupeKeys: dedupeKey === null ? seen : [...seen, dedupeKey] };
  }
  return {
    ...state,
    xp: state.xp + delta.xp,
    level: delta.level,
    tierCode: delta.tierCode,
    peakLevel: delta.peakLevel,
    tags: [...state.tags, ...delta.tagsAdded.map((added) => added.tag)],
    balances,
    badges: [...state.badges, ...delta.badges.map((badge) => badge.badgeCode)],
    eventCountsBefore: { ...state.eventCountsBefore, [eventType]: (state.eventCountsBefore[eventType] ?? 0) + 1 },
    ruleRuns,
    missions: { ...state.missions, ...delta.missions },
  };
}

export interface ReplayedEvent {
  participant: string;
  event: EngineEvent;
  /** When the event was applied: the replay evaluates it at that instant. */
  at: Date;
}

/**
 * Replays events (in order, possibly in several `run` calls) through
 * `config`, each participant starting from `startStates` (blank when
 * absent), and tallies the effects. Pure.
 */
export class Replay {
  private readonly states: Map<string, ParticipantState>;
  private readonly tally: Tally;

  constructor(
    private readonly config: EngineConfig,
    private readonly timeZone: string,
    startStates: Map<string, ParticipantState>,
    private readonly blank: () => ParticipantState,
  ) {
    this.states = new Map(startStates);
    this.tally = new Tally(currencyDecimals(config));
  }

  run(events: Iterable<ReplayedEvent>): void {
    for (const { participant, event, at } of events) {
      const state = this.states.get(participant) ?? this.blank();
      const evaluation = evaluate({ config: this.config, state, event, now: at, timeZone: this.timeZone });
      this.tally.add(participant, evaluation.effects);
      this.states.set(participant, carryState(state, evaluation.delta, event.type));
    }
  }

  result(): Record<string, SourceTally> {
    return this.tally.result();
  }
}
