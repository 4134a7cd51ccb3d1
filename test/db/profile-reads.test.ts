import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missionsReader, profileReader } from "../../server/src/db/hot/participant-reads.js";
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
      read(club.scope, "ana", { ids: [], periodKeys: [] }),
      read(club.scope, "bia", { ids: ["m1", "m2"], periodKeys: ["2026-11-27"] }),
      read(club.scope, "caio", { ids: ["m3"], periodKeys: ["2026-W48"] }),
      read(club.scope, "nobody", { ids: ["m1", "m2"], periodKeys: ["2026-11-27"] }),
    ]);
    expect(answers).toEqual([{ tags: [], missions: [] }, { tags: [], missions: [] }, { tags: [], missions: [] }, null]);
  });

  it("sees what was committed before it was asked", async () => {
    await upsertParticipant(club.db, club.scope, { external_id: "dora", display_name: "Dora" });
    expect((await profileReader(club.db)(club.scope, "dora"))?.participant.displayName).toBe("Dora");
    await upsertParticipant(club.db, club.scope, { external_id: "dora", display_name: "Dora 2" });
    expect((await profileReader(club.db)(club.scope, "dora"))?.participant.displayName).toBe("Dora 2");
  });
});
