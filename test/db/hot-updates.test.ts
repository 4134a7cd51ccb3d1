import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/src/db/orm.js";
import { openTestDatabase, postgresEnabled } from "../support/databases.js";

/*
 * The rows every event updates (a participant, its balances, its missions)
 * must update as HOT on PostgreSQL: no indexed column changes, so with room
 * on the page the new version goes beside the old one and no index gets an
 * entry. The room is the tables' fill factor (migration hot_update_room):
 * a round of updates of every row, each row its batch's one update, fits.
 * Counted in the transaction's own statistics (pg_stat_xact_user_tables),
 * exact and immediate.
 */
describe.skipIf(!postgresEnabled)("HOT updates of the rows each event updates [postgresql]", () => {
  let db: Database;
  let close: () => Promise<void>;
  const execute = (sql: string) => db.em().getConnection().execute(sql, [], "all");
  beforeAll(async () => ({ db, close } = await openTestDatabase("postgresql")));
  afterAll(async () => close?.());

  it("leaves half of each page free on participants, balances, mission progress and rule run days", async () => {
    const rows = (await execute(
      "select relname, reloptions from pg_class where relname in ('participants', 'balances', 'mission_progress', 'rule_run_days') order by relname",
    )) as { relname: string; reloptions: string[] }[];
    expect(rows.map((row) => [row.relname, row.reloptions])).toEqual([
      ["balances", ["fillfactor=50"]],
      ["mission_progress", ["fillfactor=50"]],
      ["participants", ["fillfactor=50"]],
      ["rule_run_days", ["fillfactor=50"]],
    ]);
  });

  it("updates a full table of participants and mission progress (event counts, XP, progress) without an index entry", async () => {
    // Rows of a playing participant's size: a few dozen event types counted.
    const counts = `jsonb_build_object(${Array.from({ length: 24 }, (_, i) => `'event.type_${i}', g.n`).join(", ")})`;
    await execute(`insert into participants (id, club_id, env, external_id, tags, flags, xp, level, event_counts, created_at, updated_at)
      select 'par_' || g.n, 'club_hot', 'live', 'player_' || g.n, '["vip"]', '{}', 0, 1, ${counts}, now(), now() from generate_series(1, 400) as g(n)`);
    await execute(`insert into mission_progress (id, club_id, env, participant_id, mission_id, period_key, progress, updated_at)
      select 'msp_' || g.n, 'club_hot', 'live', 'par_' || (g.n % 400 + 1), 'mission_' || (g.n / 400), '2026-W48', 0, now() from generate_series(1, 1200) as g(n)`);
    const updated = await db.em().transactional(async (em) => {
      // In the transaction's own session: its statistics are what pg_stat_xact_user_tables shows.
      const inTransaction = (sql: string) => em.getConnection().execute(sql, [], "all", em.getTransactionContext());
      await inTransaction(`update participants set xp = xp + 10, level = 2, event_counts = event_counts || '{"event.type_0": 999}', updated_at = now()`);
      await inTransaction("update mission_progress set progress = progress + 1.5, updated_at = now()");
      return (await inTransaction(
        "select relname, n_tup_upd, n_tup_hot_upd from pg_stat_xact_user_tables where relname in ('participants', 'mission_progress') order by relname",
      )) as { relname: string; n_tup_upd: string; n_tup_hot_upd: string }[];
    });
    expect(updated.map((row) => [row.relname, Number(row.n_tup_upd), Number(row.n_tup_hot_upd)])).toEqual([
      ["mission_progress", 1200, 1200],
      ["participants", 400, 400],
    ]);
  });

  it("adds a day's later runs to its rule run day without an index entry", async () => {
    await execute(`insert into rule_run_days (participant_id, rule_id, day_key, club_id, env, runs, amounts, last_run_at)
      select 'par_' || g.n, 'bet-xp', '2026-11-24', 'club_hot', 'live', 1, '{"xp": 10}', now() from generate_series(1, 1000) as g(n)`);
    const updated = await db.em().transactional(async (em) => {
      const inTransaction = (sql: string) => em.getConnection().execute(sql, [], "all", em.getTransactionContext());
      // What the flush's upsert sets (RULE_RUN_DAY_SUMS), for every row.
      await inTransaction(`update rule_run_days set runs = runs + 1, amounts = amounts || '{"xp": 15}', last_run_at = now()`);
      return (await inTransaction("select n_tup_upd, n_tup_hot_upd from pg_stat_xact_user_tables where relname = 'rule_run_days'")) as {
        n_tup_upd: string;
        n_tup_hot_upd: string;
      }[];
    });
    expect(updated.map((row) => [Number(row.n_tup_upd), Number(row.n_tup_hot_upd)])).toEqual([[1000, 1000]]);
  });
});
