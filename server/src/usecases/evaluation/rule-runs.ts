import { createHash } from "node:crypto";
import type { RuleConfig } from "../../engine/config.js";
import { dedupeKey } from "../../engine/rules.js";
import { dayKey } from "../../engine/time.js";
import type { EngineEvent, RuleRunState } from "../../engine/types.js";
import { counterProbes, readFiredDedupeKeys, readRuleCounters } from "../../db/evaluation/rule-counters.js";
import type { HotStore } from "../../db/hot/index.js";

/* The rule counters an evaluation's limits read back (the statements: db/evaluation/rule-counters.ts). */

/** RuleDedupeKey.dedupeKey holds at most 200 characters. */
const DEDUPE_KEY_MAX = 200;

/**
 * A dedupe key as stored: the value itself, or its SHA-256 when longer than
 * the column (a rule may key on any event field, such as a long `meta` value).
 */
export function storedDedupeKey(key: string): string {
  return key.length <= DEDUPE_KEY_MAX ? key : `sha256:${createHash("sha256").update(key).digest("hex")}`;
}

/**
 * The counters of the triggered rules, per participant, read so that every
 * query stays bounded however long the participants have played: dedupe keys
 * by exact lookup; then one aggregate over only the days a limit needs (a
 * row per participant, rule and day it ran): all of a rule with
 * `max_runs_per_participant` (never more than that many), those since the
 * cooldown window opened for `cooldown_seconds`, today's for
 * `per_participant_per_day` (summed per unit in SQL).
 */
export async function loadRuleRuns(
  store: HotStore,
  participants: { participantId: string; events: EngineEvent[] }[],
  triggered: RuleConfig[],
  at: { now: Date; timeZone: string },
): Promise<Map<string, Record<string, RuleRunState>>> {
  const today = dayKey(at.now, at.timeZone);
  /*
   * Only the rules with stored runs or fired keys get counters: a rule
   * without any reads as never run (the engine's currentRunState), and a
   * batch would otherwise build four objects per participant and triggered
   * rule (≈ 16,000 per batch of 500) that nothing reads.
   */
  const states = new Map<string, Record<string, RuleRunState>>();
  for (const { participantId } of participants) states.set(participantId, {});
  const counters = (participantId: string, ruleId: string): RuleRunState => {
    const runs = states.get(participantId)!;
    return (runs[ruleId] ??= { total: 0, lastRunAt: null, today: { dayKey: today, runs: 0, granted: {} }, dedupeKeys: [] });
  };
  // Issued before awaiting: both reads share a round trip (see HotStore.select).
  const fired = firedDedupeKeys(store, participants, triggered);
  fired.catch(() => undefined); // awaited below; a failure of the shared round trip is thrown by the counters first
  const recordFired = async () => {
    for (const { participantId, ruleId, key } of await fired) counters(participantId, ruleId).dedupeKeys.push(key);
  };

  // Each rule's runs a limit needs: its id, and the first day key of its window (none: all its runs); and its trigger.
  const windows = triggered.flatMap((rule) => {
    const { max_runs_per_participant: maxRuns, cooldown_seconds: cooldown, per_participant_per_day: perDay } = rule.limits;
    if (maxRuns !== undefined) return [{ event: rule.trigger.event, params: [rule.id] }];
    const since = [
      ...(cooldown !== undefined ? [dayKey(new Date(at.now.getTime() - cooldown * 1000), at.timeZone)] : []),
      ...(perDay !== undefined ? [today] : []),
    ];
    // Day keys are "YYYY-MM-DD", so text order is time order.
    return since.length === 0 ? [] : [{ event: rule.trigger.event, params: [rule.id, since.sort()[0]] }];
  });
  if (windows.length === 0) {
    await recordFired();
    return states;
  }
  const units = [...new Set(triggered.flatMap((rule) => Object.keys(rule.limits.per_participant_per_day ?? {}).filter((unit) => unit !== "runs")))];
  const rows = await readRuleCounters(store, today, units, counterProbes(participants, windows));
  await recordFired();
  const grantedColumns = units.map((_, i) => `granted_${i}` as const);
  // Runs of one batch share their run_at: each instant read is normalized once, by its value (PostgreSQL's driver
  // hands each row a Date of its own, which as a key would never be found again).
  const isoTexts = new Map<number | string, string>();
  for (const row of rows) {
    const state = counters(row.participant_id, row.rule_id);
    // Aggregates come back as numbers or numeric strings; SQLite keeps datetimes as epoch milliseconds.
    state.total = Number(row.total);
    const instant = row.last_run_at instanceof Date ? row.last_run_at.getTime() : row.last_run_at;
    let lastRunAt = isoTexts.get(instant);
    if (lastRunAt === undefined) isoTexts.set(instant, (lastRunAt = new Date(instant).toISOString()));
    state.lastRunAt = lastRunAt;
    state.today.runs = Number(row.today_runs);
    for (let i = 0; i < units.length; i++) {
      const granted = Number(row[grantedColumns[i]]);
      if (granted !== 0) state.today.granted[units[i]] = granted;
    }
  }
  return states;
}

/**
 * The dedupe keys the events resolve to (for the rules each triggers) that
 * their participant's rules already fired for: the wanted (participant,
 * rule, stored key) triples joined to the primary key in one statement, a
 * probe per triple (lists per column would probe every combination of them).
 */
async function firedDedupeKeys(
  store: HotStore,
  participants: { participantId: string; events: EngineEvent[] }[],
  triggered: RuleConfig[],
): Promise<{ participantId: string; ruleId: string; key: string }[]> {
  // The wanted triples as three columns. A triple asked twice (two events of a participant with one key) is read
  // twice, and its key recorded twice, which the engine's "already fired" check does not mind.
  const participantIds: string[] = [];
  const ruleIds: string[] = [];
  const storedKeys: string[] = [];
  // Keys stored as their hash (longer than the column), by that hash: the engine compares the key itself.
  const hashed = new Map<string, string>();
  for (const { participantId, events } of participants) {
    for (const event of events) {
      for (const rule of triggered) {
        const key = rule.trigger.event === event.type ? dedupeKey(rule, event) : null;
        if (key === null) continue;
        const stored = storedDedupeKey(key);
        if (stored !== key) hashed.set(stored, key);
        participantIds.push(participantId);
        ruleIds.push(rule.id);
        storedKeys.push(stored);
      }
    }
  }
  if (participantIds.length === 0) return [];
  const seen = await readFiredDedupeKeys(store, participantIds, ruleIds, storedKeys);
  return seen.map((run) => ({ participantId: run.participant_id, ruleId: run.rule_id, key: hashed.get(run.dedupe_key) ?? run.dedupe_key }));
}
