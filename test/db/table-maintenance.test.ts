import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutboxMessage } from "../../server/src/db/entities/index.js";
import { newId } from "../../server/src/db/ids.js";
import type { Database } from "../../server/src/db/orm.js";
import { maintainTables, maintenancePlan } from "../../server/src/db/table-maintenance.js";
import { describeEachDatabase, openTestDatabase } from "../support/databases.js";
import { waitFor } from "../jobs/support/wait.js";

describe("maintenancePlan (autovacuum's thresholds)", () => {
  const table = (rows: number, changedSinceAnalyze: number, dead: number) => ({ table: "t", rows, changedSinceAnalyze, dead });

  it("analyses a table once more than 50 + 10 % of its rows changed since the last analyze", () => {
    expect(maintenancePlan([table(1000, 150, 0)]).analyze).toEqual([]);
    expect(maintenancePlan([table(1000, 151, 0)]).analyze).toEqual(["t"]);
  });

  it("vacuums a table once more than 50 + 20 % of its rows are dead", () => {
    expect(maintenancePlan([table(1000, 0, 250)]).vacuum).toEqual([]);
    expect(maintenancePlan([table(1000, 0, 251)]).vacuum).toEqual(["t"]);
  });

  it("acts on a table counted under 1,000 rows at every check, on a bigger one at most every 30 s", () => {
    const at = (rows: number, seconds: number | null) => ({
      table: "t",
      rows,
      changedSinceAnalyze: rows + 100,
      dead: rows + 100,
      sinceAnalyze: seconds,
      sinceVacuum: seconds,
    });
    expect(maintenancePlan([at(999, 1)])).toEqual({ analyze: ["t"], vacuum: ["t"] });
    expect(maintenancePlan([at(1000, 29)])).toEqual({ analyze: [], vacuum: [] });
    expect(maintenancePlan([at(1000, 30)])).toEqual({ analyze: ["t"], vacuum: ["t"] });
    expect(maintenancePlan([at(1000, null)])).toEqual({ analyze: ["t"], vacuum: ["t"] });
  });

  it("counts a never-analysed table (reltuples -1) as empty", () => {
    expect(maintenancePlan([table(-1, 50, 50)])).toEqual({ analyze: [], vacuum: [] });
    expect(maintenancePlan([table(-1, 51, 51)])).toEqual({ analyze: ["t"], vacuum: ["t"] });
  });
});

describeEachDatabase("maintainTables", (kind) => {
  let db: Database;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(kind));
  });
  afterAll(async () => close());

  it(kind === "postgresql" ? "analyses a table that grew, where autovacuum is off (else leaves it to autovacuum)" : "does nothing on SQLite", async () => {
    const now = new Date();
    await db.em().insertMany(
      OutboxMessage,
      Array.from({ length: 200 }, () => ({
        id: newId("out"),
        clubId: "club_maint",
        env: "test" as const,
        kind: "event",
        payload: {},
        createdAt: now,
      })),
    );
    if (kind === "sqlite") {
      expect(await maintainTables(db)).toEqual({ analyze: [], vacuum: [] });
      return;
    }
    const connection = db.em().getConnection();
    const [{ autovacuum }] = await connection.execute<{ autovacuum: string }[]>("select current_setting('autovacuum') as autovacuum");
    if (autovacuum === "on") {
      expect(await maintainTables(db)).toEqual({ analyze: [], vacuum: [] });
      return;
    }
    // A backend's statistics reach the shared counters within a second or so of its commit.
    await waitFor("the outbox table planned for an ANALYZE", async () => (await maintainTables(db)).analyze.includes("outbox_messages"));
    const [stats] = await connection.execute<{ last_analyze: Date | null; changed: string | number }[]>(
      "select last_analyze, n_mod_since_analyze as changed from pg_stat_user_tables where relname = 'outbox_messages' and schemaname = current_schema()",
    );
    expect(stats.last_analyze).not.toBeNull();
    expect(Number(stats.changed)).toBeLessThanOrEqual(50);
  });
});
