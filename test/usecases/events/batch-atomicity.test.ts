import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { Event, LedgerEntry, MissionProgress, Participant } from "../../../server/src/db/entities/index.js";
import { ingestBatch, ingestEvent } from "../../../server/src/usecases/events/ingest.js";
import { PendingWrites } from "../../../server/src/usecases/evaluation/pending-writes.js";
import { describeEachDatabase } from "../../support/databases.js";
import { participantStateOf } from "../../support/participant-state.js";
import { eventInput, PUBLIC_URL } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";

/** A Wednesday, 09:00 in São Paulo. */
const NOW = new Date("2026-11-18T12:00:00Z");
const opts = { now: NOW, publicUrl: PUBLIC_URL };

/** The i-th event of a casino mix over `players` players named `${prefix}-N`. */
function casinoEvent(prefix: string, i: number, players: number): Record<string, unknown> {
  const participant = `${prefix}-${i % players}`;
  const id = `${prefix}-evt-${i}`;
  const game_type = ["video-slots", "live-casino", "crash"][i % 3];
  switch (i % 6) {
    case 0:
      return { participant, type: "deposit.confirmed", id, amount: 20 + (i % 7) * 15, meta: { method: "pix" } };
    case 1:
    case 2:
    case 3:
      return { participant, type: "bet.placed", id, amount: `${1 + (i % 50)}.50`, meta: { game_id: `game-${i % 9}`, game_type } };
    case 4:
      return { participant, type: "bet.settled", id, amount: i % 4, meta: { game_type } };
    default:
      return { participant, type: i % 12 === 5 ? "user.signed_up" : "session.started", id };
  }
}

describeEachDatabase("atomic batches", (kind) => {
  let club: DatabaseClub;

  beforeAll(async () => {
    club = await openTestClub(kind);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await club?.close();
  });

  async function counts() {
    const em = club.db.em();
    return {
      events: await em.count(Event, club.scope),
      participants: await em.count(Participant, club.scope),
      ledger: await em.count(LedgerEntry, {}),
      missions: await em.count(MissionProgress, {}),
    };
  }

  it("refuses a 150-event batch whose last event is no real instant with a 422 naming it, and writes nothing", async () => {
    const before = await counts();
    const events = Array.from({ length: 150 }, (_, i) => eventInput(casinoEvent("leap", i, 150)));
    // The contract's validator refuses a leap second at the HTTP edge; the use case must hold on its own too
    // (queued events and internal callers reach it without that validator), so the bad value is set after it.
    events[149] = { ...eventInput(casinoEvent("leap", 149, 150)), occurred_at: "2026-06-30T23:59:60Z" };
    await expect(ingestBatch(club.db, club.scope, events, opts)).rejects.toMatchObject({
      status: 422,
      code: "validation_failed",
      message: expect.stringContaining("body.events[149].occurred_at"),
    });
    expect(await counts()).toEqual(before);
  });

  it("rolls the whole 151-event batch back when a later step fails after earlier ones were written", async () => {
    const before = await counts();
    // 150 players, then a repeat of the first event: the repeat is answered in a step of its own, after the originals.
    const events = [...Array.from({ length: 150 }, (_, i) => eventInput(casinoEvent("late", i, 150))), eventInput(casinoEvent("late", 0, 150))];
    const flush = PendingWrites.prototype.flush;
    let calls = 0;
    const spy = vi.spyOn(PendingWrites.prototype, "flush").mockImplementation(async function (this: PendingWrites, em) {
      // The first step is written; the second fails as a lost connection would.
      if (++calls === 2) throw new Error("connection lost");
      return flush.call(this, em);
    });
    try {
      await expect(ingestBatch(club.db, club.scope, events, opts)).rejects.toThrow("connection lost");
    } finally {
      spy.mockRestore();
    }
    expect(calls).toBe(2);
    expect(await counts()).toEqual(before);
    // Resending the same batch applies it once: only the repeat inside it is a duplicate.
    const { results } = await ingestBatch(club.db, club.scope, events, opts);
    expect(results.map((result, i) => [i, result.duplicate]).filter(([, duplicate]) => duplicate)).toEqual([[150, true]]);
    expect((await counts()).events).toBe(before.events + 151);
  });

  it("a batch gives the same state as the same events sent one by one", async () => {
    const players = 12;
    const total = 120;
    for (let i = 0; i < total; i++) await ingestEvent(club.db, club.scope, eventInput(casinoEvent("one", i, players)), opts);
    await ingestBatch(
      club.db,
      club.scope,
      Array.from({ length: total }, (_, i) => eventInput(casinoEvent("all", i, players))),
      opts,
    );
    const stateOf = (externalId: string) => participantStateOf(club.db, club.scope, externalId);
    for (let p = 0; p < players; p++) expect(await stateOf(`all-${p}`)).toEqual(await stateOf(`one-${p}`));
  });
});
