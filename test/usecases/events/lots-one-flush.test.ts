import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CurrencyLot } from "../../../server/src/db/entities/index.js";
import { ingestBatch } from "../../../server/src/usecases/events/ingest.js";
import { lotsAfterSpending } from "../../../server/src/usecases/evaluation/pending-writes.js";
import { describeEachDatabase } from "../../support/databases.js";
import { balancesOf, eventInput, participantRow, PUBLIC_URL } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { demoConfig } from "../../support/club-config.js";

describe("lotsAfterSpending", () => {
  it("takes what was spent from a new lot off its remaining, and leaves the spending of stored lots", () => {
    const lots = [
      { id: "lot_new", remaining: 10 },
      { id: "lot_other", remaining: 3 },
    ];
    expect(
      lotsAfterSpending(
        lots,
        new Map([
          ["lot_new", 4],
          ["lot_stored", 2],
        ]),
      ),
    ).toEqual({
      lots: [
        { id: "lot_new", remaining: 6 },
        { id: "lot_other", remaining: 3 },
      ],
      spent: [{ id: "lot_stored", amount: 2 }],
    });
  });
});

/** The casino with gems (expiring: credited as lots) granted at sign-up and spent on each session. */
function gemsConfig(): Record<string, unknown> {
  const config = demoConfig() as { rules: Record<string, unknown>[] };
  config.rules.push(
    {
      id: "signup-gems",
      name: "Gems at sign-up",
      trigger: { event: "user.signed_up" },
      conditions: [],
      effects: [{ type: "grant_currency", currency: "gems", amount: 10 }],
      limits: {},
    },
    {
      id: "session-fee",
      name: "Gems per session",
      trigger: { event: "session.started" },
      conditions: [],
      effects: [{ type: "debit_currency", currency: "gems", amount: 4 }],
      limits: {},
    },
  );
  return config;
}

describeEachDatabase("a lot credited and spent in one batch", (kind) => {
  let club: DatabaseClub;
  beforeAll(async () => {
    club = await openTestClub(kind, { config: gemsConfig() });
  });
  afterAll(async () => {
    await club?.close();
  });

  it("is written as it stands after the spending, then spent from again by a later batch", async () => {
    const opts = { now: new Date("2026-11-18T12:00:00Z"), publicUrl: PUBLIC_URL };
    const batch = (ids: string[]) =>
      ingestBatch(
        club.db,
        club.scope,
        ids.map((id) => eventInput({ participant: "gem-player", type: id.split(":")[0], id })),
        opts,
      );
    await batch(["user.signed_up:1", "session.started:1"]);
    const participant = await participantRow(club.db, club.scope, "gem-player");
    const lots = () => club.db.em().fork().find(CurrencyLot, { participantId: participant.id });
    expect((await lots()).map((lot) => [lot.granted, lot.remaining])).toEqual([[10, 6]]);
    expect(await balancesOf(club.db, participant.id)).toMatchObject({ gems: 6 });
    await batch(["session.started:2"]);
    expect((await lots()).map((lot) => [lot.granted, lot.remaining])).toEqual([[10, 2]]);
    expect(await balancesOf(club.db, participant.id)).toMatchObject({ gems: 2 });
  });
});
