import { expect, it } from "vitest";
import { describeEachDatabase } from "../support/databases.js";
import { unmigratedDatabase } from "../support/unmigrated-database.js";

/*
 * Migration standings_identity_key: tournament standings lose their
 * surrogate id and are keyed by (participant, tournament, edition). The
 * stored standings survive it unchanged, and the key still refuses a second
 * row of the same standing (the event path's upsert names it).
 */
describeEachDatabase("tournament standings keyed by their identity (migration)", (kind) => {
  const { execute, migrator: migratorOf } = unmigratedDatabase(kind);
  const at = kind === "postgresql" ? "'2026-11-24T12:00:00Z'" : "1795521600000";

  it("keeps the stored standings and refuses a second row of one standing", async () => {
    const migrator = migratorOf();
    await migrator.up({ to: "Migration20261125010100_hot_update_room" });
    await execute(`insert into tournament_standings (id, club_id, env, participant_id, tournament_id, edition_key, score, reached_at, updated_at)
      values ('tst_1', 'club_a', 'live', 'par_1', 'weekly-race', '2026-11-23', 1250, ${at}, ${at}), ('tst_2', 'club_a', 'live', 'par_2', 'weekly-race', '2026-11-23', 900, ${at}, ${at})`);
    await migrator.up({ to: "Migration20261125010200_standings_identity_key" });

    const rows = (await execute("select participant_id, tournament_id, edition_key, score from tournament_standings order by participant_id")) as Record<
      string,
      unknown
    >[];
    expect(rows.map((row) => ({ ...row, score: Number(row.score) }))).toEqual([
      { participant_id: "par_1", tournament_id: "weekly-race", edition_key: "2026-11-23", score: 1250 },
      { participant_id: "par_2", tournament_id: "weekly-race", edition_key: "2026-11-23", score: 900 },
    ]);
    const columns =
      kind === "postgresql"
        ? ((await execute("select column_name as name from information_schema.columns where table_name = 'tournament_standings'")) as { name: string }[])
        : ((await execute("select name from pragma_table_info('tournament_standings')")) as { name: string }[]);
    expect(columns.map((column) => column.name)).not.toContain("id");
    await expect(
      execute(`insert into tournament_standings (club_id, env, participant_id, tournament_id, edition_key, score, reached_at, updated_at)
      values ('club_a', 'live', 'par_1', 'weekly-race', '2026-11-23', 5, ${at}, ${at})`),
    ).rejects.toThrow();
    // The rest of the migrations apply on top.
    await migrator.up();
    expect(await migrator.getPendingMigrations()).toEqual([]);
  });
});
