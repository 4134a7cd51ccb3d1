import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachDatabase } from "../support/databases.js";
import { ingestEvent } from "../../server/src/usecases/events.js";
import { eventInput, openClub, PUBLIC_URL, type TestClub } from "./fixtures.js";

describeEachDatabase("smoke", (kind) => {
  let club: TestClub;
  beforeAll(async () => { club = await openClub(kind); });
  afterAll(async () => { await club?.close(); });
  it("runs", async () => {
    const now = new Date("2026-11-18T15:00:00Z");
    const r1 = await ingestEvent(club.db, club.scope, eventInput({ participant: "u1", type: "user.signed_up", id: "s1" }), { now, publicUrl: PUBLIC_URL });
    console.log(JSON.stringify(r1));
    const r2 = await ingestEvent(club.db, club.scope, eventInput({ participant: "u1", type: "deposit.confirmed", id: "d1", amount: 100 }), { now, publicUrl: PUBLIC_URL });
    console.log(JSON.stringify(r2));
    const r3 = await ingestEvent(club.db, club.scope, eventInput({ participant: "u1", type: "bet.placed", id: "b1", amount: "2.50", meta: { game_type: "live-casino" } }), { now, publicUrl: PUBLIC_URL });
    console.log(JSON.stringify(r3));
    const r4 = await ingestEvent(club.db, club.scope, eventInput({ participant: "u1", type: "bet.placed", id: "b2", amount: "30", meta: { game_type: "live-casino" } }), { now, publicUrl: PUBLIC_URL });
    console.log(JSON.stringify(r4));
    const r5 = await ingestEvent(club.db, club.scope, eventInput({ participant: "u1", type: "bet.placed", id: "b3", amount: "30", meta: { game_type: "live-casino" } }), { now, publicUrl: PUBLIC_URL });
    console.log(JSON.stringify(r5));
    const d = await ingestEvent(club.db, club.scope, eventInput({ participant: "u1", type: "deposit.confirmed", id: "d1", amount: 100 }), { now, publicUrl: PUBLIC_URL });
    expect(d).toEqual({ ...r2, duplicate: true });
  });
});
