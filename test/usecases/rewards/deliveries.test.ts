import { afterAll, beforeAll, expect, it } from "vitest";
import { schemaValidators } from "../../../generated/validators.js";
import { Delivery, Notification, ParticipantReward, StaffWarning } from "../../../server/src/db/entities/index.js";
import { newId } from "../../../server/src/db/ids.js";
import type { Scope } from "../../../server/src/db/scope.js";
import {
  confirmDelivery,
  deliveryContext,
  deliveryView,
  failDelivery,
  listDeliveries,
  type DeliveryView,
} from "../../../server/src/usecases/rewards/deliveries.js";
import { ApiError } from "../../../server/src/usecases/shared/errors.js";
import { ingestEvent } from "../../../server/src/usecases/events/ingest.js";
import { describeEachDatabase } from "../../support/databases.js";
import { eventInput, participantRow, PUBLIC_URL, recordedWebhooks } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";

const GRANTED_AT = new Date("2026-11-18T12:00:00Z");
const CONFIRMED_AT = new Date("2026-11-18T12:00:09Z");

describeEachDatabase("deliveries", (kind) => {
  let club: DatabaseClub;

  beforeAll(async () => {
    club = await openTestClub(kind);
  });
  afterAll(async () => {
    await club?.close();
  });

  /** A first deposit: the casino must credit the first-deposit bonus, a pending delivery. */
  async function pendingDelivery(externalId: string): Promise<{ deliveryId: string; rewardId: string }> {
    const result = await ingestEvent(
      club.db,
      club.scope,
      eventInput({ participant: externalId, type: "deposit.confirmed", id: `${externalId}-dep-1`, amount: 100 }),
      {
        now: GRANTED_AT,
        publicUrl: PUBLIC_URL,
      },
    );
    const effect = result.effects.find((candidate) => candidate.type === "reward_granted" && candidate.delivery_id !== undefined) as {
      delivery_id: string;
      reward_id: string;
    };
    return { deliveryId: effect.delivery_id, rewardId: effect.reward_id };
  }

  function valid(delivery: DeliveryView): DeliveryView {
    expect(schemaValidators.Delivery(structuredClone(delivery)), JSON.stringify(schemaValidators.Delivery.errors)).toBe(true);
    return delivery;
  }

  async function refusal(call: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
    const error = await call.then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(ApiError);
    const { status, code, message } = error as ApiError;
    return { status, code, message };
  }

  async function storedView(deliveryId: string): Promise<DeliveryView> {
    const row = await club.db.em().findOneOrFail(Delivery, { id: deliveryId });
    return deliveryView(row, await deliveryContext(club.db, club.db.em(), club.scope, [row]));
  }

  async function hooksFor(deliveryId: string) {
    return (await recordedWebhooks(club.db, club.scope)).filter((hook) => (hook.data.delivery as { id?: string } | undefined)?.id === deliveryId);
  }

  it("pending → delivered: confirm stores the reference and details, the reward follows, the client and participant are told", async () => {
    const { deliveryId, rewardId } = await pendingDelivery("ana");
    const ana = await participantRow(club.db, club.scope, "ana");
    const details = { spins: 10000, game: "Fortune Tiger", game_code: "fortune-tiger", play_url: "https://cassino.example.com/jogar/fortune-tiger" };
    const delivered = valid(await confirmDelivery(club.db, club.scope, deliveryId, { external_ref: "bonus-778201", details }, CONFIRMED_AT));
    expect(delivered).toEqual({
      id: deliveryId,
      participant_id: ana.id,
      participant: { id: ana.id, external_id: "ana" },
      participant_reward_id: rewardId,
      reward_code: "bonus-first-deposit",
      reward: {
        id: rewardId,
        code: "bonus-first-deposit",
        title: "Bônus de primeiro depósito",
        type: "client_delivered",
        payload: expect.objectContaining({ kind: "bonus" }),
      },
      kind: "client_delivered",
      status: "delivered",
      external_ref: "bonus-778201",
      fail_reason: null,
      note: null,
      created_at: GRANTED_AT.toISOString(),
      confirmed_at: CONFIRMED_AT.toISOString(),
    });
    expect((await club.db.em().findOneOrFail(Delivery, { id: deliveryId })).details).toEqual(details);
    expect((await club.db.em().findOneOrFail(ParticipantReward, { id: rewardId })).status).toBe("delivered");
    expect((await hooksFor(deliveryId)).filter((hook) => hook.type === "reward.delivered")).toEqual([
      { type: "reward.delivered", data: { participant: { id: ana.id, external_id: "ana" }, reward_code: "bonus-first-deposit", delivery: delivered } },
    ]);
    const notices = await club.db.em().find(Notification, { participantId: ana.id, kind: "reward_delivered" });
    expect(notices.map((notice) => notice.title)).toEqual(["Prêmio entregue: Bônus de primeiro depósito"]);

    // delivered → confirm again: 200 with the delivery unchanged, nothing sent again.
    const again = await confirmDelivery(club.db, club.scope, deliveryId, { external_ref: "another-ref" }, new Date("2026-11-18T13:00:00Z"));
    expect(again).toEqual(delivered);
    expect((await hooksFor(deliveryId)).filter((hook) => hook.type === "reward.delivered")).toHaveLength(1);

    // delivered → fail: 409 already_closed, unchanged.
    expect(await refusal(failDelivery(club.db, club.scope, deliveryId, { reason: "Duplicado" }, CONFIRMED_AT))).toMatchObject({
      status: 409,
      code: "already_closed",
    });
    expect(await storedView(deliveryId)).toMatchObject({ status: "delivered", fail_reason: null });
  });

  it("stores the longest reference (200 characters) and the longest failure reason (500) the contract allows", async () => {
    const confirmed = await pendingDelivery("lia");
    const reference = "r".repeat(200);
    expect((await confirmDelivery(club.db, club.scope, confirmed.deliveryId, { external_ref: reference }, CONFIRMED_AT)).external_ref).toBe(reference);
    const failed = await pendingDelivery("leo");
    const reason = "x".repeat(500);
    expect((await failDelivery(club.db, club.scope, failed.deliveryId, { reason }, CONFIRMED_AT)).fail_reason).toBe(reason);
  });

  it("a confirmation without a body closes the delivery without a reference", async () => {
    const { deliveryId } = await pendingDelivery("bia");
    expect(await confirmDelivery(club.db, club.scope, deliveryId, undefined, CONFIRMED_AT)).toMatchObject({ status: "delivered", external_ref: null });
    expect((await club.db.em().findOneOrFail(Delivery, { id: deliveryId })).details).toBeNull();
  });

  it("pending → failed: the reason is stored, the participant is told, staff are warned; failed stays closed", async () => {
    const { deliveryId, rewardId } = await pendingDelivery("caio");
    const caio = await participantRow(club.db, club.scope, "caio");
    const reason = "Conta do jogador bloqueada para bônus (autoexclusão)";
    const failed = valid(await failDelivery(club.db, club.scope, deliveryId, { reason }, CONFIRMED_AT));
    expect(failed).toMatchObject({ status: "failed", fail_reason: reason, external_ref: null, confirmed_at: null });
    expect((await club.db.em().findOneOrFail(ParticipantReward, { id: rewardId })).status).toBe("failed");
    expect((await hooksFor(deliveryId)).map((hook) => hook.type)).toEqual(["reward.delivery_requested", "reward.delivery_failed"]);
    expect((await hooksFor(deliveryId))[1].data).toEqual({
      participant: { id: caio.id, external_id: "caio" },
      reward_code: "bonus-first-deposit",
      delivery: failed,
    });
    const notice = await club.db.em().findOneOrFail(Notification, { participantId: caio.id, kind: "reward_delivery_failed" });
    expect(notice).toMatchObject({ title: "Não foi possível entregar: Bônus de primeiro depósito", view: "rewards" });
    // The reason is for staff: it may name the casino's internal checks.
    expect(`${notice.title} ${notice.body}`).not.toContain("autoexclusão");
    const warning = await club.db.em().findOneOrFail(StaffWarning, { kind: "delivery_failed", subjectId: deliveryId });
    expect(warning).toMatchObject({ id: expect.stringMatching(/^wrn_/), ...club.scope, message: expect.stringContaining(reason) });

    // failed → confirm: 409 already_closed; failed → fail: 409; nothing changes.
    expect(await refusal(confirmDelivery(club.db, club.scope, deliveryId, { external_ref: "late" }, CONFIRMED_AT))).toEqual({
      status: 409,
      code: "already_closed",
      message: `Delivery "${deliveryId}" is already failed and cannot be confirmed.`,
    });
    expect(await refusal(failDelivery(club.db, club.scope, deliveryId, { reason: "again" }, CONFIRMED_AT))).toMatchObject({
      status: 409,
      code: "already_closed",
    });
    expect(await storedView(deliveryId)).toEqual(failed);
  });

  it("404 for an unknown delivery and for one of another club or environment", async () => {
    const { deliveryId } = await pendingDelivery("davi");
    const elsewhere: Scope[] = [
      { clubId: "club_other", env: "test" },
      { ...club.scope, env: "live" },
    ];
    for (const scope of [club.scope, ...elsewhere]) {
      const id = scope === club.scope ? "dlv_unknown" : deliveryId;
      expect(await refusal(confirmDelivery(club.db, scope, id, {}, CONFIRMED_AT))).toMatchObject({ status: 404, code: "not_found" });
      expect(await refusal(failDelivery(club.db, scope, id, { reason: "x" }, CONFIRMED_AT))).toMatchObject({ status: 404, code: "not_found" });
    }
    expect((await storedView(deliveryId)).status).toBe("pending");
  });

  it("a confirm and a fail racing for the same delivery: exactly one wins", async () => {
    const { deliveryId } = await pendingDelivery("eva");
    const outcomes = await Promise.allSettled([
      confirmDelivery(club.db, club.scope, deliveryId, { external_ref: "x" }, CONFIRMED_AT),
      failDelivery(club.db, club.scope, deliveryId, { reason: "y" }, CONFIRMED_AT),
    ]);
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    const lost = outcomes.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason).toMatchObject({ status: 409, code: "already_closed" });
    expect((await hooksFor(deliveryId)).filter((hook) => hook.type !== "reward.delivery_requested")).toHaveLength(1);
  });

  it("lists newest first, filters by status, and pages with limit and starting_after", async () => {
    const all = (await listDeliveries(club.db, club.scope, { limit: 100 })).deliveries;
    expect(all.map((delivery) => delivery.created_at)).toEqual(
      all
        .map((delivery) => delivery.created_at)
        .sort()
        .reverse(),
    );
    for (const status of ["pending", "delivered", "failed"] as const) {
      const only = (await listDeliveries(club.db, club.scope, { status, limit: 100 })).deliveries;
      expect(only.length).toBeGreaterThan(0);
      expect(only).toEqual(all.filter((delivery) => delivery.status === status));
    }

    // A club of its own, so the count is exact: 45 rows in pages of 20, 20 and 5, each after the last id of the previous one.
    const other: Scope = { clubId: "club_list", env: "live" };
    const row = (minute: number) => ({
      id: newId("dlv"),
      ...other,
      participantId: "par_list",
      participantRewardId: newId("rwd"),
      rewardCode: "free-spins-10",
      status: "pending" as const,
      createdAt: new Date(Date.UTC(2026, 10, 18, 0, minute)),
    });
    await club.db.em().insertMany(
      Delivery,
      Array.from({ length: 45 }, (_, minute) => row(minute + 1)),
    );
    // The seed's list: every delivery up to 200 in one answer by default.
    const everything = await listDeliveries(club.db, other);
    expect([everything.deliveries.length, everything.has_more]).toEqual([45, false]);
    const first = await listDeliveries(club.db, other, { limit: 20 });
    expect([first.deliveries.length, first.has_more]).toEqual([20, true]);
    expect(first.deliveries[0].created_at).toBe(new Date(Date.UTC(2026, 10, 18, 0, 45)).toISOString());
    const second = await listDeliveries(club.db, other, { limit: 20, starting_after: first.deliveries.at(-1)!.id });
    expect([second.deliveries.length, second.has_more]).toEqual([20, true]);
    const third = await listDeliveries(club.db, other, { limit: 20, starting_after: second.deliveries.at(-1)!.id });
    expect([third.deliveries.length, third.has_more]).toEqual([5, false]);
    expect(third.deliveries.at(-1)!.created_at).toBe(new Date(Date.UTC(2026, 10, 18, 0, 1)).toISOString());
    expect(new Set([...first.deliveries, ...second.deliveries, ...third.deliveries].map((d) => d.id)).size).toBe(45);
    for (const delivery of third.deliveries) valid(delivery);
    await expect(listDeliveries(club.db, other, { starting_after: "dlv_unknown" })).rejects.toMatchObject({ status: 422 });
  });
});
