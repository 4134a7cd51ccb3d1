import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/src/db/orm.js";
import type { LibsqlDatabase } from "../../server/src/db/hot/sqlite.js";
import { FIRED_DEDUPE_KEYS, counterProbes, postgresCounters, sqliteCounters } from "../../server/src/db/evaluation/rule-counters.js";
import type { EngineEvent } from "../../server/src/engine/types.js";
import { openTestDatabase } from "../support/databases.js";

/*
 * The plan of the rule-run counters read on SQLite (db/evaluation/rule-counters.ts
 * sqliteCounters), never its timing: one range probe of rule_run_days'
 * primary key (participant, rule, day) per participant and limit window of a
 * rule its events trigger. Written as a participant list and an OR of
 * windows, SQLite read every run of the limited rules in the whole club and
 * filtered by participant: a cost growing with the club's history, paid once
 * per step of a batch. The counters are checked against the same runs
 * counted one by one (a scratch table `runs`, as rule_runs held them until
 * migration 20261126020000): the day rows add up to what the runs did.
 */
describe("rule-run counters' plan [sqlite]", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openTestDatabase("sqlite")));
  afterAll(async () => close?.());

  it("probes the (participant, rule, day) index per participant and window, with statistics or none", async () => {
    // The pool's one connection, as the driver's: knex would read `?5` as a `?` binding.
    const driver = (await db.em().getKnex().client.acquireConnection()) as LibsqlDatabase;
    const run = (text: string) => driver.prepare(text).all([]);
    try {
      // A big club: 2,000 players with 20 runs each of three rules, stored as days.
      run(`create temp table runs as with recursive n(i) as (select 1 union all select i + 1 from n where i < 40000)
        select 'par_' || (i % 2000) as participant_id, 'rule_' || (i % 3) as rule_id, '2026-11-' || (10 + i % 20) as day_key, 5 as xp, i as run_at from n`);
      run(`insert into rule_run_days (participant_id, rule_id, day_key, club_id, env, runs, amounts, last_run_at)
        select participant_id, rule_id, day_key, 'club_big', 'live', count(*), json_object('xp', sum(xp)), max(run_at) from runs group by 1, 2, 3`);
      // One unit (xp), a total window (max runs) and a day window; par_2 only triggers rule_0: rule_1 is not probed for it.
      const text = sqliteCounters(1);
      const windows = [
        { event: "bet", params: ["rule_0"] },
        { event: "deposit", params: ["rule_1", "2026-11-11"] },
      ];
      const events = (...types: string[]) => types.map((type) => ({ type }) as EngineEvent);
      const [participants, rules, since] = counterProbes(
        [
          { participantId: "par_1", events: events("bet", "deposit") },
          { participantId: "par_2", events: events("bet") },
        ],
        windows,
      );
      const triples = participants.map((participant, i) => [participant, rules[i], since[i]]);
      expect(triples).toEqual([
        ["par_1", "rule_0", ""],
        ["par_1", "rule_1", "2026-11-11"],
        ["par_2", "rule_0", ""],
      ]);
      const params = ["2026-11-24", "2026-11-24", "xp", JSON.stringify(triples)];
      for (const analyzed of [false, true]) {
        if (analyzed) run("analyze");
        const plan = (driver.prepare(`explain query plan ${text}`).all(params) as { detail: string }[]).map((row) => row.detail);
        expect(
          plan.filter((detail) => / r\b/.test(detail)),
          `analyzed: ${analyzed}`,
        ).toEqual([expect.stringMatching(/^SEARCH r USING INDEX sqlite_autoindex_rule_run_days_1 \(participant_id=\? AND rule_id=\? AND day_key>\?\)/)]);
      }
      // And it counts what the probes hold: par_1's and par_2's runs of rule_0 (all days), par_1's of rule_1 from the 11th (par_2's, on
      // the 12th, are not probed).
      const rows = driver.prepare(text).all(params) as { participant_id: string; rule_id: string; total: number; granted_0: number }[];
      const expected = run(
        `select participant_id, rule_id, count(*) as total from runs where (participant_id in ('par_1', 'par_2') and rule_id = 'rule_0')
          or (participant_id = 'par_1' and rule_id = 'rule_1' and day_key >= '2026-11-11') group by participant_id, rule_id order by participant_id, rule_id`,
      ) as { participant_id: string; rule_id: string; total: number }[];
      expect(
        rows
          .map(({ participant_id, rule_id, total }) => ({ participant_id, rule_id, total }))
          .sort((a, b) => `${a.participant_id}${a.rule_id}`.localeCompare(`${b.participant_id}${b.rule_id}`)),
      ).toEqual(expected.map(({ participant_id, rule_id, total }) => ({ participant_id, rule_id, total })));
      expect(expected.map((row) => `${row.participant_id} ${row.rule_id}`)).toEqual(["par_1 rule_0", "par_1 rule_1", "par_2 rule_0"]);
    } finally {
      await db.em().getKnex().client.releaseConnection(driver);
    }
  });
});

/*
 * The fired dedupe keys read on SQLite (db/evaluation/rule-counters.ts
 * FIRED_DEDUPE_KEYS): each bound (participant, rule, key) triple one probe of
 * rule_dedupe_keys' primary key, all three columns equal (PostgreSQL's shape:
 * test/db/query-plans.test.ts).
 */
describe("fired dedupe keys' plan [sqlite]", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openTestDatabase("sqlite")));
  afterAll(async () => close?.());

  it("probes the primary key once per triple, with statistics or none", async () => {
    const driver = (await db.em().getKnex().client.acquireConnection()) as LibsqlDatabase;
    try {
      driver
        .prepare(
          `insert into rule_dedupe_keys (rule_id, dedupe_key, participant_id, club_id, env, event_id, fired_at)
        with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000)
        select 'rule_' || (i % 3), 'evt_' || i, 'par_' || (i % 2000), 'club_big', 'live', 'evt_' || i, 0 from n`,
        )
        .run([]);
      const params = [
        JSON.stringify([
          ["par_1", "rule_1", "evt_1"],
          ["par_2", "rule_2", "evt_9"],
        ]),
      ];
      for (const analyzed of [false, true]) {
        if (analyzed) driver.prepare("analyze").run([]);
        const plan = (driver.prepare(`explain query plan ${FIRED_DEDUPE_KEYS.sqlite}`).all(params) as { detail: string }[]).map((row) => row.detail);
        expect(
          plan.filter((detail) => / k\b/.test(detail)),
          `analyzed: ${analyzed}`,
        ).toEqual([
          expect.stringMatching(/^SEARCH k USING COVERING INDEX sqlite_autoindex_rule_dedupe_keys_1 \(rule_id=\? AND dedupe_key=\? AND participant_id=\?\)/),
        ]);
      }
      expect(driver.prepare(FIRED_DEDUPE_KEYS.sqlite).all(params)).toEqual([{ participant_id: "par_1", rule_id: "rule_1", dedupe_key: "evt_1" }]);
    } finally {
      await db.em().getKnex().client.releaseConnection(driver);
    }
  });
});

/*
 * The same read on PostgreSQL (db/evaluation/rule-counters.ts postgresCounters), on
 * statistics of tables analysed empty (as the migrations leave them, and as
 * they stay while `clube serve` runs without a worker): written as a
 * participant list and an OR of windows, it scanned the whole table and
 * grouped (sorted) every run read; now one aggregate over one index range
 * per participant and window, as a generic plan and as a custom one.
 */
describe("rule-run counters' plan [postgresql]", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openTestDatabase("postgresql")));
  afterAll(async () => close?.());

  it("aggregates one (participant, rule, day) index range per participant and window, and counts what the windows hold", async () => {
    const connection = db.em().getConnection();
    // The runs one by one in a scratch table (as rule_runs held them until migration 20261126020000), and as days.
    await connection.execute(`create table scratch_runs as select 'par_' || (i % 2000) as participant_id, 'rule_' || (i % 3) as rule_id, '2026-11-' || (10 + i % 20) as day_key,
        jsonb_build_object('xp', i % 7) as amounts, timestamptz '2026-11-01' + i * interval '1 second' as run_at from generate_series(1, 40000) as i`);
    await connection.execute(`insert into rule_run_days (participant_id, rule_id, day_key, club_id, env, runs, amounts, last_run_at)
      select participant_id, rule_id, day_key, 'club_big', 'live', count(*), jsonb_build_object('xp', sum(cast(amounts ->> 'xp' as bigint))), max(run_at) from scratch_runs group by 1, 2, 3`);
    // One unit (xp), a total window (max runs) and a day window; par_14's runs are on the 24th, par_35's on the 25th, par_1's before; par_none has none.
    // Every participant has events of both rules' triggers but par_35, who only triggers rule_0: rule_1 is not probed for it.
    const windows = [
      { event: "bet", params: ["rule_0"] },
      { event: "deposit", params: ["rule_1", "2026-11-24"] },
    ];
    const events = (...types: string[]) => types.map((type) => ({ type }) as EngineEvent);
    const probes = counterProbes(
      [
        { participantId: "par_1", events: events("bet", "deposit") },
        { participantId: "par_14", events: events("deposit", "bet") },
        { participantId: "par_35", events: events("bet") },
        { participantId: "par_none", events: events("bet", "deposit") },
      ],
      windows,
    );
    expect(probes).toEqual([
      ["par_1", "par_1", "par_14", "par_14", "par_35", "par_none", "par_none"],
      ["rule_0", "rule_1", "rule_0", "rule_1", "rule_0", "rule_0", "rule_1"],
      ["", "2026-11-24", "", "2026-11-24", "", "", "2026-11-24"],
    ]);
    const params = ["2026-11-24", "2026-11-24", "xp", ...probes.map((column) => `{${column.map((value) => `"${value}"`).join(",")}}`)];
    let n = 0;
    const text = postgresCounters(1).replace(/\?/g, () => `$${++n}`);
    for (const mode of ["force_generic_plan", "force_custom_plan"]) {
      const plan = await db.em().transactional(async (trx) => {
        await trx.execute(`set local plan_cache_mode = ${mode}`);
        await trx.execute(`prepare counters as ${text}`);
        // EXPLAIN EXECUTE is a utility statement, which takes no bind parameters: its arguments are written as literals.
        const explain = trx.getPlatform().formatQuery(`explain (costs off) execute counters(${params.map(() => "?").join(", ")})`, params);
        const rows = await trx.execute<{ "QUERY PLAN": string }[]>(explain);
        await trx.execute("deallocate counters");
        return rows.map((row) => row["QUERY PLAN"]).join("\n");
      });
      const scans = plan.split("\n").filter((line) => /on rule_run_days/.test(line));
      expect(scans, `${mode}\n${plan}`).toEqual([expect.stringMatching(/Index Scan using rule_run_days_pkey on rule_run_days/)]);
      expect(plan, plan).toMatch(
        /Index Cond: \(\(\(participant_id\)::text = w\.participant_id\) AND \(\(rule_id\)::text = w\.rule_id\) AND \(\(day_key\)::text >= w\.since\)\)/,
      );
      expect(plan, plan).not.toMatch(/Sort|Hash/);
    }
    type Counters = { participant_id: string; rule_id: string; total: unknown; today_runs: unknown; granted_0: unknown; last_run_at: unknown };
    const rows = await connection.execute<Counters[]>(postgresCounters(1), params);
    const expected = await connection.execute<Counters[]>(
      `select participant_id, rule_id, count(*) as total, max(run_at) as last_run_at, sum(case when day_key = '2026-11-24' then 1 else 0 end) as today_runs,
          sum(case when day_key = '2026-11-24' then coalesce(cast(amounts ->> 'xp' as bigint), 0) else 0 end) as granted_0
        from scratch_runs where (participant_id in ('par_1', 'par_14', 'par_35', 'par_none') and rule_id = 'rule_0')
          or (participant_id in ('par_1', 'par_14', 'par_none') and rule_id = 'rule_1' and day_key >= '2026-11-24')
        group by participant_id, rule_id`,
    );
    const normalized = (list: Counters[]) =>
      list
        .map((row) => ({
          ...row,
          total: Number(row.total),
          today_runs: Number(row.today_runs),
          granted_0: Number(row.granted_0),
          last_run_at: new Date(row.last_run_at as string).toISOString(),
        }))
        .sort((a, b) => `${a.participant_id}${a.rule_id}`.localeCompare(`${b.participant_id}${b.rule_id}`));
    expect(expected.map((row) => `${row.participant_id} ${row.rule_id}`).sort()).toEqual(["par_1 rule_0", "par_14 rule_0", "par_14 rule_1", "par_35 rule_0"]);
    expect(normalized(rows)).toEqual(normalized(expected));
    await connection.execute("drop table scratch_runs");
  });
});
