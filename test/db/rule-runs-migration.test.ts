import { expect, it } from "vitest";
import { describeEachDatabase } from "../support/databases.js";
import { unmigratedDatabase } from "../support/unmigrated-database.js";

/*
 * Migration rule_runs_by_reader: rule_runs (a row per run) becomes
 * rule_dedupe_keys (a row per key fired) and rule_run_days (per participant,
 * rule and club day: runs, amounts summed per unit, last run), then goes.
 * The backfill keeps what every limit and dedupe check read from the runs.
 */
describeEachDatabase("rule runs stored by what reads them (migration)", (kind) => {
  const { execute, migrator: migratorOf } = unmigratedDatabase(kind);
  // 12:00 and 12:05 on 24 Nov, and 09:00 on the 23rd.
  const at =
    kind === "postgresql"
      ? { noon: "'2026-11-24T12:00:00Z'", later: "'2026-11-24T12:05:00Z'", before: "'2026-11-23T09:00:00Z'" }
      : { noon: "1795521600000", later: "1795521900000", before: "1795424400000" };
  const instant = (value: unknown) =>
    new Date(typeof value === "string" && /^\d+$/.test(value) ? Number(value) : (value as string | number | Date)).toISOString();

  it("keeps every fired key, adds each day's runs and amounts up per unit, and drops rule_runs", async () => {
    const migrator = migratorOf();
    await migrator.up({ to: "Migration20261125010200_standings_identity_key" });
    await execute(`insert into rule_runs (id, club_id, env, participant_id, rule_id, dedupe_key, event_id, day_key, amounts, run_at) values
      ('run_1', 'club_a', 'live', 'par_1', 'bet-xp', 'evt_1', 'evt_1', '2026-11-24', '{"xp":10}', ${at.noon}),
      ('run_2', 'club_a', 'live', 'par_1', 'bet-xp', 'evt_2', 'evt_2', '2026-11-24', '{"xp":5,"gems":2}', ${at.later}),
      ('run_3', 'club_a', 'live', 'par_1', 'bet-xp', 'evt_3', 'evt_3', '2026-11-23', '{"xp":7}', ${at.before}),
      ('run_4', 'club_a', 'live', 'par_2', 'bet-xp', null, null, '2026-11-24', '{}', ${at.noon}),
      ('run_5', 'club_a', 'live', 'par_2', 'signup', 'par_2', 'evt_5', '2026-11-24', '{}', ${at.noon})`);
    await migrator.up({ to: "Migration20261126020000_rule_runs_by_reader" });

    const keys = (await execute("select rule_id, dedupe_key, participant_id, event_id, fired_at from rule_dedupe_keys order by rule_id, dedupe_key")) as Record<
      string,
      unknown
    >[];
    expect(keys.map((row) => ({ ...row, fired_at: instant(row.fired_at) }))).toEqual([
      { rule_id: "bet-xp", dedupe_key: "evt_1", participant_id: "par_1", event_id: "evt_1", fired_at: "2026-11-24T12:00:00.000Z" },
      { rule_id: "bet-xp", dedupe_key: "evt_2", participant_id: "par_1", event_id: "evt_2", fired_at: "2026-11-24T12:05:00.000Z" },
      { rule_id: "bet-xp", dedupe_key: "evt_3", participant_id: "par_1", event_id: "evt_3", fired_at: "2026-11-23T09:00:00.000Z" },
      { rule_id: "signup", dedupe_key: "par_2", participant_id: "par_2", event_id: "evt_5", fired_at: "2026-11-24T12:00:00.000Z" },
    ]);
    const days = (await execute(
      "select participant_id, rule_id, day_key, club_id, env, runs, amounts, last_run_at from rule_run_days order by participant_id, rule_id, day_key",
    )) as Record<string, unknown>[];
    expect(
      days.map((row) => ({
        ...row,
        runs: Number(row.runs),
        amounts: typeof row.amounts === "string" ? JSON.parse(row.amounts) : row.amounts,
        last_run_at: instant(row.last_run_at),
      })),
    ).toEqual([
      {
        participant_id: "par_1",
        rule_id: "bet-xp",
        day_key: "2026-11-23",
        club_id: "club_a",
        env: "live",
        runs: 1,
        amounts: { xp: 7 },
        last_run_at: "2026-11-23T09:00:00.000Z",
      },
      {
        participant_id: "par_1",
        rule_id: "bet-xp",
        day_key: "2026-11-24",
        club_id: "club_a",
        env: "live",
        runs: 2,
        amounts: { xp: 15, gems: 2 },
        last_run_at: "2026-11-24T12:05:00.000Z",
      },
      {
        participant_id: "par_2",
        rule_id: "bet-xp",
        day_key: "2026-11-24",
        club_id: "club_a",
        env: "live",
        runs: 1,
        amounts: {},
        last_run_at: "2026-11-24T12:00:00.000Z",
      },
      {
        participant_id: "par_2",
        rule_id: "signup",
        day_key: "2026-11-24",
        club_id: "club_a",
        env: "live",
        runs: 1,
        amounts: {},
        last_run_at: "2026-11-24T12:00:00.000Z",
      },
    ]);
    await expect(execute("select count(*) from rule_runs")).rejects.toThrow();
    // A key fired stays refused.
    await expect(
      execute(`insert into rule_dedupe_keys (rule_id, dedupe_key, participant_id, club_id, env, event_id, fired_at)
      values ('bet-xp', 'evt_1', 'par_1', 'club_a', 'live', null, ${at.noon})`),
    ).rejects.toThrow();
    // The rest of the migrations apply on top.
    await migrator.up();
    expect(await migrator.getPendingMigrations()).toEqual([]);
  });
});
