import type { HotStore } from "../hot/index.js";

/*
 * The rule counters an evaluation reads back (see loadRuleRuns in
 * usecases/evaluation/rule-runs.ts): the dedupe keys already fired and the
 * runs of rule_run_days a limit needs, each one statement for a whole batch.
 */

/** A row of the counters read: aggregates come back as numbers or numeric strings; SQLite keeps datetimes as epoch milliseconds. */
export interface RunCounters {
  participant_id: string;
  rule_id: string;
  total: number | string;
  last_run_at: Date | string | number;
  today_runs: number | string;
  [granted: `granted_${number}`]: number | string;
}

/**
 * The stored (participant, rule, dedupe key) triples among those bound: one
 * probe of rule_dedupe_keys' primary key per triple, all three columns equal.
 * PostgreSQL: a lateral subquery the planner may not flatten (`offset 0`, as
 * in db/hot/scoped-reads.ts): as a join, statistics of a table analysed
 * nearly empty had it hash the whole table for every batch (a seq scan
 * growing with the table; test/db/query-plans.test.ts). SQLite: the bound
 * triples first (CROSS JOIN), each one primary-key probe.
 */
export const FIRED_DEDUPE_KEYS = {
  postgresql: `select x.participant_id, x.rule_id, x.dedupe_key from unnest(?::text[], ?::text[], ?::text[]) as w(participant_id, rule_id, dedupe_key)
    cross join lateral (select participant_id, rule_id, dedupe_key from rule_dedupe_keys
      where rule_id = w.rule_id and dedupe_key = w.dedupe_key and participant_id = w.participant_id offset 0) as x`,
  // The triples bound as one JSON array of [participant, rule, key].
  sqlite: `select k.participant_id, k.rule_id, k.dedupe_key from json_each(?) as w
    cross join rule_dedupe_keys as k on k.rule_id = w.value ->> 1 and k.dedupe_key = w.value ->> 2 and k.participant_id = w.value ->> 0`,
};

/**
 * loadRuleRuns' aggregate on PostgreSQL: per (participant, rule, first day)
 * probe (counterProbes), one aggregate over one range of rule_run_days'
 * primary key (participant_id, rule_id, day_key), a lateral subquery: a row
 * per day the rule ran, so a probe reads today's row (per-day limits), the
 * days since the cooldown window opened, or every day (a total limit: never
 * more rows than the limit), however many runs those days hold. Parameters:
 * today, (today, unit) per unit — as loadRuleRuns binds them, hence the first
 * FROM item holding them — then the probes' three columns. Written as a
 * participant list and an OR of windows grouped afterwards, it was planned on
 * the statistics of tables analysed nearly empty (nothing analyses them while
 * `clube serve` runs without a worker) as a scan of the whole table. Probes
 * without rows are left out, as a GROUP BY leaves them.
 */
export function postgresCounters(unitCount: number): string {
  const units = Array.from({ length: unitCount }, (_, i) => `, ?::text as day_${i}, ?::text as unit_${i}`).join("");
  const sums = Array.from(
    { length: unitCount },
    (_, i) => `, sum(case when day_key = k.day_${i} then coalesce(cast(amounts ->> k.unit_${i} as bigint), 0) else 0 end) as granted_${i}`,
  ).join("");
  return `select w.participant_id, w.rule_id, r.*
    from (select ?::text as today${units}) as k cross join unnest(?::text[], ?::text[], ?::text[]) as w(participant_id, rule_id, since)
    cross join lateral (select sum(runs) as total, max(last_run_at) as last_run_at, sum(case when day_key = k.today then runs else 0 end) as today_runs${sums}
      from rule_run_days where participant_id = w.participant_id and rule_id = w.rule_id and day_key >= w.since) as r
    where r.total > 0`;
}

/**
 * postgresCounters' probes as three columns (participants, rules, first day
 * keys; "" for a rule's total, before every day key): a participant's limit
 * windows of the rules its own events trigger, the only counters its
 * evaluations read (a rule runs on events of its trigger type), instead of
 * every window for every participant.
 */
export function counterProbes(
  participants: { participantId: string; events: { type: string }[] }[],
  windows: { event: string; params: unknown[] }[],
): string[][] {
  const columns: string[][] = [[], [], []];
  for (const { participantId, events } of participants) {
    for (const { event, params } of windows) {
      if (!events.some((e) => e.type === event)) continue;
      columns[0].push(participantId);
      columns[1].push(params[0] as string);
      columns[2].push(params.length === 2 ? (params[1] as string) : "");
    }
  }
  return columns;
}

/**
 * counterProbes as loadRuleRuns binds them: three array parameters on
 * PostgreSQL (postgresCounters' unnest), one JSON array of [participant,
 * rule, first day] triples on SQLite (sqliteCounters' json_each).
 */
function boundProbes(store: HotStore, [participantIds, ruleIds, since]: string[][]): unknown[] {
  if (store.dialect === "postgresql") return [participantIds, ruleIds, since];
  const triples = new Array<[string, string, string]>(participantIds.length);
  for (let i = 0; i < triples.length; i++) triples[i] = [participantIds[i], ruleIds[i], since[i]];
  return [JSON.stringify(triples)];
}

/**
 * loadRuleRuns' aggregate on SQLite: one range probe of rule_run_days'
 * primary key (participant_id, rule_id, day_key) per probe of counterProbes —
 * a participant's limit windows of the rules its own events trigger — bound
 * as one JSON array of [participant, rule, first day] triples ("" for a
 * rule's total, before every day key): a row per day the rule ran (see
 * postgresCounters). Parameters are numbered (?N) because they come in
 * loadRuleRuns' order: today, (today, unit) per unit, then the triples. The
 * CROSS JOIN keeps the triples first, so that each is one index probe.
 */
export function sqliteCounters(unitCount: number): string {
  const sums = Array.from(
    { length: unitCount },
    (_, i) => `, sum(case when r.day_key = ?${2 + 2 * i} then coalesce(cast(r.amounts ->> ?${3 + 2 * i} as integer), 0) else 0 end) as granted_${i}`,
  );
  return `select r.participant_id, r.rule_id, sum(r.runs) as total, max(r.last_run_at) as last_run_at, sum(case when r.day_key = ?1 then r.runs else 0 end) as today_runs${sums.join("")}
    from json_each(?${2 + 2 * unitCount}) as w cross join rule_run_days as r
    where r.participant_id = w.value ->> 0 and r.rule_id = w.value ->> 1 and r.day_key >= w.value ->> 2
    group by r.participant_id, r.rule_id`;
}

/**
 * The counters of the (participant, rule, first day) `probes` (counterProbes):
 * a row per probe whose rule ran, with today's runs and, per unit of
 * `units` (in that order, `granted_<i>`), what it granted today.
 */
export function readRuleCounters(store: HotStore, today: string, units: string[], probes: string[][]): Promise<RunCounters[]> {
  return store.select<RunCounters>({ postgresql: postgresCounters(units.length), sqlite: sqliteCounters(units.length) }, [
    today,
    ...units.flatMap((unit) => [today, unit]),
    ...boundProbes(store, probes),
  ]);
}

/** Which of the (participant, rule, stored dedupe key) triples, as three columns of equal length, are stored. */
export function readFiredDedupeKeys(
  store: HotStore,
  participantIds: string[],
  ruleIds: string[],
  storedKeys: string[],
): Promise<{ participant_id: string; rule_id: string; dedupe_key: string }[]> {
  return store.select<{ participant_id: string; rule_id: string; dedupe_key: string }>(
    FIRED_DEDUPE_KEYS,
    store.dialect === "postgresql" ? [participantIds, ruleIds, storedKeys] : [participantIds.map((id, i) => [id, ruleIds[i], storedKeys[i]])],
  );
}
