import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaValidators } from "../../../generated/validators.js";
import { CheckinClaim, OutboxMessage } from "../../../server/src/db/entities/index.js";
import type { Scope } from "../../../server/src/db/scope.js";
import { claimCheckin, getCheckinState } from "../../../server/src/usecases/checkin/checkin.js";
import { ApiError } from "../../../server/src/usecases/shared/errors.js";
import { ingestEvent } from "../../../server/src/usecases/events/ingest.js";
import { loadBalances, upsertParticipant } from "../../../server/src/usecases/participants/participants.js";
import { Participant } from "../../../server/src/db/entities/index.js";
import { describeEachDatabase } from "../../support/databases.js";
import { eventInput, PUBLIC_URL } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { expectResponse } from "../../support/contract.js";
import { subscribedClubWith, subscribeToEverything } from "../../support/endpoints.js";

/** Local noon in São Paulo (UTC−3) of `key`. */
const noon = (key: string) => new Date(`${key}T15:00:00Z`);

describeEachDatabase("check-in use cases", (kind) => {
  let club: DatabaseClub;
  beforeAll(async () => {
    club = await openTestClub(kind);
    await subscribeToEverything(club.db, club.scope);
  });
  afterAll(async () => {
    await club?.close();
  });

  /** A club like the demo casino with `checkin` replaced. */
  const clubWith = (checkin: Record<string, unknown> | undefined) => subscribedClubWith(club, "Cassino Check-in", "checkin", checkin);

  async function join(scope: Scope, externalId: string, at = new Date("2026-11-01T12:00:00Z")): Promise<void> {
    await upsertParticipant(club.db, scope, { external_id: externalId, display_name: "Ana Souza" }, at);
  }

  async function webhooks(scope: Scope, type: string): Promise<Record<string, unknown>[]> {
    const rows = await club.db.em().find(OutboxMessage, { clubId: scope.clubId, env: scope.env }, { orderBy: { createdAt: "asc" } });
    return rows
      .map((row) => row.payload)
      .filter((payload) => payload.type === type)
      .map((payload) => payload.data as Record<string, unknown>);
  }

  const refusal = (status: number, code: string) => expect.objectContaining({ constructor: ApiError, status, code });

  it("answers 404 for a participant that does not exist", async () => {
    await expect(getCheckinState(club.db, club.scope, "ninguem", noon("2026-11-05"))).rejects.toEqual(refusal(404, "not_found"));
    await expect(claimCheckin(club.db, club.scope, "ninguem", { now: noon("2026-11-05"), publicUrl: PUBLIC_URL })).rejects.toEqual(refusal(404, "not_found"));
  });

  it("runs the demo's 7-day streak calendar: claims, rewards, webhooks and the day's refusal", async () => {
    await join(club.scope, "ana");
    const before = await getCheckinState(club.db, club.scope, "ana", noon("2026-11-05"));
    expectResponse("Me_getCheckin", "200", before);
    expect(before).toMatchObject({ todayKey: "2026-11-05", period: "streak", daysInPeriod: 7, todayIndex: 0, canClaim: true, streak: 0 });

    const participant = await club.db.em().findOneOrFail(Participant, { ...club.scope, externalId: "ana" });
    const coinsBefore = (await loadBalances(club.db.em(), participant.id)).coins ?? 0;
    const first = await claimCheckin(club.db, club.scope, "ana", { now: noon("2026-11-05"), publicUrl: PUBLIC_URL });
    expectResponse("Me_claimCheckin", "200", first);
    expect(first.reward).toEqual({ code: "coins-50", label: "50 moedas", multiplier: 1 });
    // coins-50 is an internal reward with payload {currency: coins, amount: 50}: granting it credits 50 coins.
    expect(first.effects).toEqual([
      { type: "reward_granted", reward_code: "coins-50", rule_id: "checkin:2026-11-05", reward_id: expect.stringMatching(/^rwd_/) },
      { type: "currency_granted", currency: "coins", amount: 50, rule_id: "checkin:2026-11-05" },
    ]);
    expect((await loadBalances(club.db.em(), participant.id)).coins).toBe(coinsBefore + 50);
    expect(first.state).toMatchObject({ claimedToday: true, canClaim: false, currentDayIndex: 1, streak: 1 });
    expect(first.state.days[0]).toBe("claimed");

    await expect(claimCheckin(club.db, club.scope, "ana", { now: noon("2026-11-05"), publicUrl: PUBLIC_URL })).rejects.toEqual(refusal(409, "already_claimed"));
    expect(await getCheckinState(club.db, club.scope, "ana", noon("2026-11-05"))).toEqual(first.state);

    const completed = await webhooks(club.scope, "checkin.completed");
    expect(schemaValidators.CheckinCompletedWebhookData(completed[0])).toBe(true);
    expect(completed).toEqual([
      { participant: { id: expect.stringMatching(/^par_/), external_id: "ana" }, day_key: "2026-11-05", day_index: 0, streak: 1, reward_code: "coins-50" },
    ]);
    const rows = await club.db.em().find(CheckinClaim, { clubId: club.scope.clubId });
    expect(rows.map((row) => [row.dayKey, row.periodKey, row.dayIndex, row.reward])).toEqual([["2026-11-05", "2026-11-05", 0, "coins-50"]]);
  });

  it("delivers the seventh day's client-delivered reward and starts a new run after it", async () => {
    await join(club.scope, "bruno");
    let last;
    for (let day = 10; day <= 16; day++) last = await claimCheckin(club.db, club.scope, "bruno", { now: noon(`2026-11-${day}`), publicUrl: PUBLIC_URL });
    expect(last!.reward.code).toBe("free-spins-20");
    expectResponse("Me_claimCheckin", "200", last);
    expect(last!.effects[0]).toMatchObject({ type: "reward_granted", reward_code: "free-spins-20", delivery_id: expect.stringMatching(/^dlv_/) });
    expect(last!.state).toMatchObject({ todayIndex: 6, currentDayIndex: 7, streak: 7 });
    const next = await claimCheckin(club.db, club.scope, "bruno", { now: noon("2026-11-17"), publicUrl: PUBLIC_URL });
    expect(next.state).toMatchObject({ todayIndex: 0, streak: 8 });
    expect(next.reward.code).toBe("coins-50");
  });

  it("forgives the demo's first missed day of a run and restarts on the second", async () => {
    await join(club.scope, "carla");
    await claimCheckin(club.db, club.scope, "carla", { now: noon("2026-11-10"), publicUrl: PUBLIC_URL });
    const forgiven = await claimCheckin(club.db, club.scope, "carla", { now: noon("2026-11-12"), publicUrl: PUBLIC_URL });
    expect(forgiven.state).toMatchObject({ todayIndex: 2, streak: 2, forgivenessUsed: 1 });
    expect(forgiven.state.days.slice(0, 3)).toEqual(["claimed", "missed", "claimed"]);
    const restarted = await claimCheckin(club.db, club.scope, "carla", { now: noon("2026-11-14"), publicUrl: PUBLIC_URL });
    expect(restarted.state).toMatchObject({ todayIndex: 0, streak: 1, forgivenessUsed: 0 });
  });

  it("lets only one of five concurrent claims of the same day through", async () => {
    await join(club.scope, "dora");
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => claimCheckin(club.db, club.scope, "dora", { now: noon("2026-11-20"), publicUrl: PUBLIC_URL })),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    for (const result of results) if (result.status === "rejected") expect(result.reason).toEqual(refusal(409, "already_claimed"));
  });

  describe("required event and reset hour", () => {
    let scope: Scope;
    beforeAll(async () => {
      scope = await clubWith({ rewards: [{ reward: "coins:10" }], requireEvent: "deposit.confirmed", resetHour: 6 });
      await join(scope, "eva");
    });

    it("stays locked with 409 event_required until a deposit arrives in the check-in day", async () => {
      // 08:59:59Z is 05:59:59 in São Paulo: still 2026-11-21's check-in day.
      await ingestEvent(club.db, scope, eventInput({ participant: "eva", type: "deposit.confirmed", id: "dep-1", amount: 50 }), {
        now: new Date("2026-11-22T08:59:59Z"),
        publicUrl: PUBLIC_URL,
      });
      const at = new Date("2026-11-22T09:00:00Z");
      const state = await getCheckinState(club.db, scope, "eva", at);
      expect(state).toMatchObject({ todayKey: "2026-11-22", canClaim: false, nextDayAt: "2026-11-23T09:00:00.000Z" });
      expect(state.days[21]).toBe("locked");
      await expect(claimCheckin(club.db, scope, "eva", { now: at, publicUrl: PUBLIC_URL })).rejects.toEqual(refusal(409, "event_required"));

      await ingestEvent(club.db, scope, eventInput({ participant: "eva", type: "deposit.confirmed", id: "dep-2", amount: 50 }), {
        now: at,
        publicUrl: PUBLIC_URL,
      });
      expect((await getCheckinState(club.db, scope, "eva", at)).days[21]).toBe("available");
      const claimed = await claimCheckin(club.db, scope, "eva", { now: at, publicUrl: PUBLIC_URL });
      expect(claimed.effects).toEqual([{ type: "currency_granted", currency: "coins", amount: 10, rule_id: "checkin:2026-11-22" }]);
      expect(claimed.reward).toEqual({ code: "coins:10", label: null, multiplier: 1 });
    });

    it("lets the claim of the previous check-in day happen up to 05:59:59 local", async () => {
      await join(scope, "fabio");
      await ingestEvent(club.db, scope, eventInput({ participant: "fabio", type: "deposit.confirmed", id: "dep-f", amount: 50 }), {
        now: new Date("2026-11-22T08:00:00Z"),
        publicUrl: PUBLIC_URL,
      });
      const claimed = await claimCheckin(club.db, scope, "fabio", { now: new Date("2026-11-22T08:59:59Z"), publicUrl: PUBLIC_URL });
      expect(claimed.state.todayKey).toBe("2026-11-21");
    });
  });

  it("applies the day's multiplier to coins and passes it to a delivered reward's payload", async () => {
    const scope = await clubWith({
      rewards: [
        { reward: "coins:10", multiplier: 3 },
        { reward: "free-spins-10", multiplier: 2 },
      ],
    });
    await join(scope, "gil");
    const coins = await claimCheckin(club.db, scope, "gil", { now: noon("2026-11-01"), publicUrl: PUBLIC_URL });
    expect(coins.effects).toEqual([{ type: "currency_granted", currency: "coins", amount: 30, rule_id: "checkin:2026-11-01" }]);
    const participant = await club.db.em().findOneOrFail(Participant, { ...scope, externalId: "gil" });
    expect(await loadBalances(club.db.em(), participant.id)).toEqual({ coins: 30 });

    const spins = await claimCheckin(club.db, scope, "gil", { now: noon("2026-11-02"), publicUrl: PUBLIC_URL });
    expect(spins.reward).toEqual({ code: "free-spins-10", label: null, multiplier: 2 });
    const [requested] = await webhooks(scope, "reward.delivery_requested");
    expect(requested).toMatchObject({
      source: "checkin:2026-11-02",
      reward: { code: "free-spins-10", payload: { kind: "free_spins", spins: 10, game: "Gates of Olympus", multiplier: 2 } },
    });
  });

  it("answers 409 checkin_disabled for a disabled calendar and a club without one", async () => {
    for (const checkin of [{ enabled: false, rewards: [{ reward: "coins:10" }] }, undefined]) {
      const scope = await clubWith(checkin);
      await join(scope, "hugo");
      await expect(claimCheckin(club.db, scope, "hugo", { now: noon("2026-11-05"), publicUrl: PUBLIC_URL })).rejects.toEqual(refusal(409, "checkin_disabled"));
      expect((await getCheckinState(club.db, scope, "hugo", noon("2026-11-05"))).canClaim).toBe(false);
    }
  });

  it("grants one of two claims of the same day sent at once, the other 409 already_claimed", async () => {
    const scope = await clubWith({ rewards: [{ reward: "coins:10" }] });
    await join(scope, "ivo");
    const claim = () => claimCheckin(club.db, scope, "ivo", { now: noon("2026-11-05"), publicUrl: PUBLIC_URL });
    const results = await Promise.allSettled([claim(), claim()]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    expect(results.find((result) => result.status === "rejected")).toEqual({ status: "rejected", reason: refusal(409, "already_claimed") });
    const participant = await club.db.em().findOneOrFail(Participant, { ...scope, externalId: "ivo" });
    expect(await loadBalances(club.db.em(), participant.id)).toEqual({ coins: 10 });
    expect(await webhooks(scope, "checkin.completed")).toHaveLength(1);
  });
});
