import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redemption } from "../../../server/src/db/entities/index.js";
import { ingestEvent } from "../../../server/src/usecases/events/ingest.js";
import { redeem } from "../../../server/src/usecases/rewards/redemptions.js";
import { ApiError } from "../../../server/src/usecases/shared/errors.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { postgresEnabled } from "../../support/databases.js";
import { balancesOf, eventInput, participantRow, PUBLIC_URL } from "../fixtures.js";

const NOW = new Date("2026-11-18T12:00:00Z");

/*
 * PostgreSQL's redemptions paid together (group commit, redeem in
 * server/src/usecases/rewards/redemptions.ts) when the connection breaks in
 * the round trip that carries the COMMIT: the outcome of the COMMIT is then
 * unknown, so the purchases are not paid again one by one (one without a key
 * would be paid twice had it committed); each caller hears of the failure.
 * The break is the backend ending itself in a trigger on the redemption's
 * row, once (a sequence counts across rollbacks).
 */
describe.skipIf(!postgresEnabled)("redemptions paid together when the COMMIT's round trip breaks", () => {
  let club: DatabaseClub;

  beforeAll(async () => {
    club = await openTestClub("postgresql");
    const sql = club.db.em().getConnection();
    await sql.execute("create sequence redemption_breaks");
    await sql.execute(`create function break_once() returns trigger language plpgsql as $$
      begin
        if nextval('redemption_breaks') = 1 then perform pg_terminate_backend(pg_backend_pid()); end if;
        return new;
      end $$`);
    await sql.execute("create trigger break_once before insert on redemptions for each row execute function break_once()");
  });
  afterAll(async () => {
    await club?.close();
  });

  it("answers each paid purchase's caller with the error and pays none of them again", async () => {
    const players = ["lara", "leo", "luna"];
    for (const player of players) {
      const send = (input: Record<string, unknown>) => ingestEvent(club.db, club.scope, eventInput(input), { now: NOW, publicUrl: PUBLIC_URL });
      await send({ participant: player, type: "user.signed_up", id: `${player}-signup` });
      await send({ participant: player, type: "deposit.confirmed", id: `${player}-dep`, amount: 13_500 });
    }
    const ids = await Promise.all(players.map(async (player) => (await participantRow(club.db, club.scope, player)).id));
    const before = await Promise.all(ids.map((id) => balancesOf(club.db, id)));
    const redemptions = () =>
      club.db
        .em()
        .fork()
        .count(Redemption, { participantId: { $in: ids } });
    const buyAll = () =>
      players.map((participant) => redeem(club.db, club.scope, { participant, reward: "store-bonus-10" }, { now: NOW, publicUrl: PUBLIC_URL }));
    const outcomes = await Promise.allSettled(buyAll());
    for (const outcome of outcomes) {
      expect(outcome.status).toBe("rejected");
      expect((outcome as PromiseRejectedResult).reason).not.toBeInstanceOf(ApiError);
    }
    // The backend ended before its COMMIT ran: nothing was paid, and nothing was paid again alone.
    expect(await Promise.all(ids.map((id) => balancesOf(club.db, id)))).toEqual(before);
    expect(await redemptions()).toBe(0);
    // The pool let the broken connection go: the next purchases are paid.
    const again = await Promise.all(buyAll());
    expect(again.map((result) => result.duplicate)).toEqual([false, false, false]);
    expect(await redemptions()).toBe(3);
  });
});
