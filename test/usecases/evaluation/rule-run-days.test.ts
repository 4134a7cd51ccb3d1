import { afterAll, beforeAll, expect, it } from "vitest";
import { RuleRunDay } from "../../../server/src/db/entities/index.js";
import type { Database } from "../../../server/src/db/orm.js";
import { PendingWrites } from "../../../server/src/usecases/evaluation/pending-writes.js";
import { describeEachDatabase, openTestDatabase } from "../../support/databases.js";

/*
 * A limited rule's runs of one club day add up in its row (PendingWrites.addRuleRun
 * and the upsert RULE_RUN_DAY_SUMS): runs of one flush gathered into one row,
 * a later flush adding to the stored row unit by unit, a unit new to the day
 * joining it, a run granting nothing leaving the amounts as they are, the
 * later last run kept.
 */
describeEachDatabase("rule run days", (kind) => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openTestDatabase(kind)));
  afterAll(async () => close?.());

  const at = (minute: number) => new Date(Date.UTC(2026, 10, 24, 12, minute));
  const run = (participantId: string, amounts: Record<string, number>, minute: number) => ({
    participantId,
    ruleId: "bet-xp",
    dayKey: "2026-11-24",
    clubId: "club_1",
    env: "test" as const,
    amounts,
    lastRunAt: at(minute),
  });
  const flush = (...runs: ReturnType<typeof run>[]) =>
    db.em().transactional(async (em) => {
      const writes = new PendingWrites();
      for (const r of runs) writes.addRuleRun(r);
      await writes.flush(em);
    });
  const days = async () =>
    (
      await db
        .em()
        .fork()
        .find(RuleRunDay, {}, { orderBy: { participantId: "asc" } })
    ).map((day) => ({ participantId: day.participantId, runs: day.runs, amounts: day.amounts, lastRunAt: day.lastRunAt.toISOString() }));

  it("adds each flush's runs and amounts per unit to the day's row", async () => {
    await flush(run("par_a", { xp: 10 }, 1), run("par_a", { xp: 5 }, 2), run("par_b", {}, 1));
    expect(await days()).toEqual([
      { participantId: "par_a", runs: 2, amounts: { xp: 15 }, lastRunAt: at(2).toISOString() },
      { participantId: "par_b", runs: 1, amounts: {}, lastRunAt: at(1).toISOString() },
    ]);
    await flush(run("par_a", { xp: 7, gems: 2 }, 3), run("par_b", { coins: 4 }, 3));
    await flush(run("par_a", {}, 0));
    expect(await days()).toEqual([
      { participantId: "par_a", runs: 4, amounts: { xp: 22, gems: 2 }, lastRunAt: at(3).toISOString() },
      { participantId: "par_b", runs: 2, amounts: { coins: 4 }, lastRunAt: at(3).toISOString() },
    ]);
  });
});
