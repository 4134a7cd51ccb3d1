import type { RuleConfig } from "./config.js";
import { toMinorUnits } from "./money.js";
import type { RuleGate, RuleRunState } from "./types.js";

/** The limit key that caps runs per club day; every other key names a unit. */
const RUNS_KEY = "runs";

/** The rule's counters as of `dayKey`: yesterday's daily counters count as zero. */
export function currentRunState(state: RuleRunState | undefined, dayKey: string): RuleRunState {
  if (!state) return neverRun(dayKey);
  if (state.today.dayKey === dayKey) return state;
  return { ...state, today: { dayKey, runs: 0, granted: {} } };
}

/**
 * The counters of a rule that never ran, as of `dayKey`: one frozen object
 * for the latest day asked, shared (run states are read, never changed in
 * place), instead of four new objects for each rule of each event.
 */
let lastNeverRun: RuleRunState | null = null;
function neverRun(dayKey: string): RuleRunState {
  if (lastNeverRun?.today.dayKey !== dayKey) {
    const today = Object.freeze({ dayKey, runs: 0, granted: Object.freeze({}) as Record<string, number> });
    lastNeverRun = Object.freeze({ total: 0, lastRunAt: null, today, dedupeKeys: Object.freeze([]) as unknown as string[] });
  }
  return lastNeverRun;
}

/**
 * The first run limit that stops the rule from firing now, or null. `run` must
 * be current (see currentRunState). The cooldown is over exactly
 * `cooldown_seconds` after the last run.
 */
export function runLimitReached(rule: RuleConfig, run: RuleRunState, dedupeKey: string | null, now: Date): RuleGate | null {
  if (dedupeKey !== null && run.dedupeKeys.includes(dedupeKey)) return "duplicate";
  const { max_runs_per_participant: maxRuns, cooldown_seconds: cooldown, per_participant_per_day: perDay } = rule.limits;
  if (maxRuns !== undefined && run.total >= maxRuns) return "max_runs";
  if (cooldown !== undefined && run.lastRunAt !== null && now.getTime() - Date.parse(run.lastRunAt) < cooldown * 1000) return "cooldown";
  const dailyRuns = perDay?.[RUNS_KEY];
  if (dailyRuns !== undefined && run.today.runs + 1 > dailyRuns) return "daily_runs";
  return null;
}

/**
 * The rule's daily cap for `unit` ("xp" or a currency code), configured in
 * main units, in units with `decimals` places (truncated); undefined when
 * there is none. A cap too large to count in minor units caps nothing.
 */
export function dailyCapUnits(rule: RuleConfig, unit: string, decimals: number): number | undefined {
  const cap = unit === RUNS_KEY ? undefined : rule.limits.per_participant_per_day?.[unit];
  if (cap === undefined) return undefined;
  try {
    return toMinorUnits(cap, decimals);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** How much of `amount` still fits under `cap` after `alreadyGranted` today (same units). */
export function fitUnderCap(amount: number, alreadyGranted: number, cap: number | undefined): number {
  if (cap === undefined) return amount;
  return Math.max(0, Math.min(amount, cap - alreadyGranted));
}
