import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/src/db/orm.js";
import type { LibsqlDatabase } from "../../server/src/db/hot/sqlite.js";
import { sqliteCounters } from "../../server/src/usecases/participant-state.js";
import { openTestDatabase } from "../support/databases.js";

/*
 * The plan of the rule-run counters read on SQLite (participant-state.ts
 * sqliteCounters), never its timing: one range probe of the (participant,
 * rule, day) index per participant and limit window. Written as a participant
 * list and an OR of windows, SQLite read every run of the limited rules in
 * the whole club and filtered by participant: a cost growing with the club's
 * history, paid once per step of a batch.
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
      // A big club: 2,000 players with 20 runs each of three rules.
      run(`insert into rule_runs (id, club_id, env, participant_id, rule_id, dedupe_key, event_id, day_key, amounts, run_at)
        with recursive n(i) as (select 1 union all select i + 1 from n where i < 40000)
        select 'run_' || i, 'club_big', 'live', 'par_' || (i % 2000), 'rule_' || (i % 3), null, null, '2026-11-' || (10 + i % 20), '{"xp":5}', 0 from n`);
      // One unit (xp), a total window (max runs) and a day window.
      const text = sqliteCounters(1, [{ params: ["rule_0"] }, { params: ["rule_1", "2026-11-24"] }]);
      const params = ["2026-11-24", "2026-11-24", "xp", JSON.stringify(["par_1", "par_2"]), "rule_0", "rule_1", "2026-11-24"];
      for (const analyzed of [false, true]) {
        if (analyzed) run("analyze");
        const plan = (driver.prepare(`explain query plan ${text}`).all(params) as { detail: string }[]).map((row) => row.detail);
        expect(plan.filter((detail) => / r\b/.test(detail)), `analyzed: ${analyzed}`).toEqual([
          expect.stringMatching(/^SEARCH r USING INDEX rule_runs_participant_id_rule_id_day_key_index \(participant_id=\? AND rule_id=\? AND day_key>\?\)/),
        ]);
      }
      // And it counts what the windows hold: par_1's runs of rule_0 (all days) and of rule_1 from the 24th.
      const rows = driver.prepare(text).all(params) as { participant_id: string; rule_id: string; total: number; granted_0: number }[];
      const expected = run(
        `select participant_id, rule_id, count(*) as total from rule_runs where participant_id in ('par_1', 'par_2')
          and (rule_id = 'rule_0' or (rule_id = 'rule_1' and day_key >= '2026-11-24')) group by participant_id, rule_id order by participant_id, rule_id`,
      ) as { participant_id: string; rule_id: string; total: number }[];
      expect(rows.map(({ participant_id, rule_id, total }) => ({ participant_id, rule_id, total })).sort((a, b) => `${a.participant_id}${a.rule_id}`.localeCompare(`${b.participant_id}${b.rule_id}`)))
        .toEqual(expected.map(({ participant_id, rule_id, total }) => ({ participant_id, rule_id, total })));
      expect(expected.length).toBeGreaterThan(0);
    } finally {
      await db.em().getKnex().client.releaseConnection(driver);
    }
  });
});
