import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MissionProgress, Participant } from "../../server/src/db/entities/index.js";
import { missionsReader, profileReader, type ParticipantMissionsRows } from "../../server/src/db/hot/participant-reads.js";
import { newId } from "../../server/src/db/ids.js";
import { upsertParticipant } from "../../server/src/usecases/participants/index.js";
import { openTestClub, type DatabaseClub } from "../support/club.js";
import { postgresEnabled, type DatabaseKind } from "../support/databases.js";

const kinds: DatabaseKind[] = postgresEnabled ? ["sqlite", "postgresql"] : ["sqlite"];

describe.each(kinds)("profile and progress reads of concurrent requests (db/hot/participant-reads.ts profileReader) [%s]", (kind) => {
  let club: DatabaseClub;
  beforeAll(async () => {
    club = await openTestClub(kind);
    for (const name of ["ana", "bia", "caio"]) await upsertParticipant(club.db, club.scope, { external_id: name, display_name: name.toUpperCase() });
  });
  afterAll(() => club?.close());

  it("answers each caller its own participant, null for one that does not exist, however many ask at once", async () => {
    const read = profileReader(club.db);
    const other = await club.newClub();
    await upsertParticipant(club.db, other.scope, { external_id: "ana", display_name: "Other Ana" });
    const asked = ["ana", "bia", "nobody", "ana", "caio"];
    const answers = await Promise.all([...asked.map((name) => read(club.scope, name)), read(other.scope, "ana"), read(other.scope, "bia")]);
    expect(answers.map((answer) => answer?.participant.displayName ?? null)).toEqual(["ANA", "BIA", null, "ANA", "CAIO", "Other Ana", null]);
    for (const answer of answers.filter((found) => found !== null)) {
      expect(answer.balances).toEqual({});
      expect(answer.participant.xp).toBe(0);
      expect(answer.participant.updatedAt).toBeInstanceOf(Date);
    }
  });

  it("reads the missions list's columns (missionsReader) for concurrent callers asking different missions", async () => {
    const read = missionsReader(club.db);
    const answers = await Promise.all([
      read(club.scope, "ana", { ids: [], periodKeys: [], pairs: [] }),
      read(club.scope, "bia", { ids: ["m1", "m2"], periodKeys: ["2026-11-27"], pairs: ["m1", "2026-11-27", "m2", "2026-11-27"] }),
      read(club.scope, "caio", { ids: ["m3"], periodKeys: ["2026-W48"], pairs: ["m3", "2026-W48"] }),
      read(club.scope, "nobody", { ids: ["m1", "m2"], periodKeys: ["2026-11-27"], pairs: ["m1", "2026-11-27", "m2", "2026-11-27"] }),
    ]);
    expect(answers).toEqual([{ tags: [], missions: [] }, { tags: [], missions: [] }, { tags: [], missions: [] }, null]);
  });

  it("reads each mission's progress in the period asked for it, none of its other periods", async () => {
    const em = club.db.em();
    const ana = await em.findOneOrFail(Participant, { ...club.scope, externalId: "ana" });
    const at = new Date("2026-11-27T12:00:00.000Z");
    const progress = (missionId: string, periodKey: string, value: number) =>
      em.insert(MissionProgress, { id: newId("msp"), ...club.scope, participantId: ana.id, missionId, periodKey, progress: value, updatedAt: at });
    await progress("daily", "2026-11-26", 1);
    await progress("daily", "2026-11-27", 2);
    await progress("weekly", "2026-W47", 3);
    await progress("weekly", "2026-W48", 4);
    await progress("once", "once", 5);
    const found = await missionsReader(club.db)(club.scope, "ana", {
      ids: ["daily", "weekly", "once", "unplayed"],
      periodKeys: ["2026-11-27", "2026-W48", "once"],
      pairs: ["daily", "2026-11-27", "weekly", "2026-W48", "once", "once", "unplayed", "2026-11-27"],
    });
    const read = (found instanceof Promise ? await found : found) as ParticipantMissionsRows;
    expect(read.missions.map((row) => [row.missionId, row.periodKey, row.progress]).sort()).toEqual([
      ["daily", "2026-11-27", 2],
      ["once", "once", 5],
      ["weekly", "2026-W48", 4],
    ]);
  });

  it("sees what was committed before it was asked", async () => {
    await upsertParticipant(club.db, club.scope, { external_id: "dora", display_name: "Dora" });
    expect((await profileReader(club.db)(club.scope, "dora"))?.participant.displayName).toBe("Dora");
    await upsertParticipant(club.db, club.scope, { external_id: "dora", display_name: "Dora 2" });
    expect((await profileReader(club.db)(club.scope, "dora"))?.participant.displayName).toBe("Dora 2");
  });
});
