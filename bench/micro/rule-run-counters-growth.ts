/**
 * The rule-run counters read (db/evaluation/rule-counters.ts sqliteCounters) as players
 * play more in a day: a batch's 500 players, each with RUNS runs today of one
 * rule capped per day, read as stored since migration 20261126020000 (a row
 * per participant, rule and day) and as rule_runs stored them before (a row
 * per run, the old aggregate over every run of the day: rebuilt here in a
 * scratch table). Prints the main thread's CPU per read (median of 15) for
 * each RUNS. Not a test: `npx tsx bench/micro/rule-run-counters-growth.ts`.
 */
import type { LibsqlDatabase } from "../../server/src/db/hot/sqlite.js";
import { sqliteCounters } from "../../server/src/db/evaluation/rule-counters.js";
import { openTestDatabase } from "../../test/support/databases.js";

const PLAYERS = 500;
const TODAY = "2026-11-24";

/** The aggregate over a row per run, as sqliteCounters read rule_runs until 26 Nov. */
const PER_RUN = `select r.participant_id, r.rule_id, count(*) as total, max(r.run_at) as last_run_at, sum(case when r.day_key = ?1 then 1 else 0 end) as today_runs,
    sum(case when r.day_key = ?2 then coalesce(cast(r.amounts ->> ?3 as integer), 0) else 0 end) as granted_0
  from json_each(?4) as w cross join runs as r
  where r.participant_id = w.value ->> 0 and r.rule_id = w.value ->> 1 and r.day_key >= w.value ->> 2
  group by r.participant_id, r.rule_id`;

function cpuMs(read: () => unknown): number {
  const samples: number[] = [];
  for (let i = 0; i < 15; i++) {
    const start = process.cpuUsage();
    read();
    const used = process.cpuUsage(start);
    samples.push((used.user + used.system) / 1000);
  }
  return samples.sort((a, b) => a - b)[7];
}

const { db, close } = await openTestDatabase("sqlite");
const driver = (await db.em().getKnex().client.acquireConnection()) as LibsqlDatabase;
const run = (sql: string) => driver.prepare(sql).run([]);
run(`create table runs (participant_id text not null, rule_id text not null, day_key text not null, amounts json not null, run_at integer not null)`);
run(`create index runs_participant_rule_day on runs (participant_id, rule_id, day_key)`);
const probes = JSON.stringify(Array.from({ length: PLAYERS }, (_, p) => [`par_${p}`, "bet-xp", TODAY]));
const params = [TODAY, TODAY, "xp", probes];
const perDay = driver.prepare(sqliteCounters(1));
const perRun = driver.prepare(PER_RUN);
console.log("runs/player/day  per-day rows (ms CPU/read)  per-run rows (ms CPU/read)");
let stored = 0;
for (const runs of [1, 10, 100, 500, 1000]) {
  // Tops each player up to `runs` runs today, both ways.
  run(`insert into runs (participant_id, rule_id, day_key, amounts, run_at)
    with recursive n(i) as (select 0 union all select i + 1 from n where i < ${PLAYERS * (runs - stored) - 1})
    select 'par_' || (i % ${PLAYERS}), 'bet-xp', '${TODAY}', '{"xp":10}', i from n`);
  run("delete from rule_run_days");
  run(`insert into rule_run_days (participant_id, rule_id, day_key, club_id, env, runs, amounts, last_run_at)
    select participant_id, rule_id, day_key, 'club', 'live', count(*), json_object('xp', 10 * count(*)), max(run_at) from runs group by 1, 2, 3`);
  stored = runs;
  const a = perDay.all(params) as { total: number; granted_0: number }[];
  const b = perRun.all(params) as { total: number; granted_0: number }[];
  if (a.length !== PLAYERS || a[0].total !== runs || b[0].total !== runs || a[0].granted_0 !== b[0].granted_0) throw new Error("the reads disagree");
  console.log(
    `${String(runs).padStart(16)}  ${cpuMs(() => perDay.all(params))
      .toFixed(2)
      .padStart(26)}  ${cpuMs(() => perRun.all(params))
      .toFixed(2)
      .padStart(26)}`,
  );
}
await db.em().getKnex().client.releaseConnection(driver);
await close();
