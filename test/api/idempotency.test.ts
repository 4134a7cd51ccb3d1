import { afterAll, beforeAll, expect, it } from "vitest";
import { Event, IdempotencyKey, Participant, Redemption } from "../../server/src/db/entities/index.js";
import { expectError, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

/**
 * Stripe's Idempotency-Key semantics (server/src/http/idempotency.ts): a key
 * is bound to its first request; another request under it is refused, never
 * answered with the first result; a request still in flight is 409; and an
 * event key reused by another participant or type is `event_id_conflict`.
 */
describeEachDatabase("idempotency keys", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await openTestClub(kind, { api: true });
  });
  afterAll(() => api?.close());

  const deposit = (participant: string, extra: Record<string, unknown> = {}) => ({
    participant,
    type: "deposit.confirmed",
    amount: 500,
    currency: "BRL",
    ...extra,
  });
  const send = (body: unknown, key?: string) => api.request("POST", "/v1/events", { body, headers: key ? { "Idempotency-Key": key } : {} });
  const participantExists = async (externalId: string) => (await api.db.em().fork().count(Participant, { externalId })) > 0;

  it("refuses the same key with another body (409 idempotency_key_reused naming the key) and replays the same body", async () => {
    const first = await send(deposit("ana-idem"), "key-dep-0001");
    expect(first.status).toBe(200);
    expect(first.body.duplicate).toBe(false);
    // Another participant under the same key: refused, not charged, and the first result is not shown.
    const other = await send(deposit("bia-idem"), "key-dep-0001");
    expectError(other, 409, "idempotency_key_reused");
    expect(other.body.error.message).toContain("key-dep-0001");
    expect(JSON.stringify(other.body)).not.toContain(first.body.event_id);
    expect(await participantExists("bia-idem")).toBe(false);
    // Another amount or type: refused too.
    expectError(await send(deposit("ana-idem", { amount: 900 }), "key-dep-0001"), 409, "idempotency_key_reused");
    // The same request again: the stored result.
    const again = await send(deposit("ana-idem"), "key-dep-0001");
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, duplicate: true });
  });

  it("binds keys across operations: a redemption cannot reuse an event's key", async () => {
    expect((await send(deposit("caio-idem"), "shared-key-0001")).status).toBe(200);
    const redemption = await api.request("POST", "/v1/redemptions", {
      body: { participant: "caio-idem", reward: "store-bonus-10" },
      headers: { "Idempotency-Key": "shared-key-0001" },
    });
    expectError(redemption, 409, "idempotency_key_reused");
  });

  it("answers 409 idempotency_key_in_use while the first request holds the key, and lets a retry take over once its lease ran out", async () => {
    const body = deposit("duda-idem");
    const first = await send(body, "key-inflight-01");
    expect(first.status).toBe(200);
    const em = api.db.em().fork();
    // As if the first request were still running (its process holds the key for a minute).
    await em.nativeUpdate(IdempotencyKey, { key: "key-inflight-01" }, { state: "in_flight", lockedUntil: new Date(Date.now() + 3_600_000) });
    expectError(await send(body, "key-inflight-01"), 409, "idempotency_key_in_use");
    // Its process died: the lease ends and a retry replays the stored result.
    await em.nativeUpdate(IdempotencyKey, { key: "key-inflight-01" }, { lockedUntil: new Date(0) });
    const retry = await send(body, "key-inflight-01");
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ ...first.body, duplicate: true });
    expect(await em.findOneOrFail(IdempotencyKey, { key: "key-inflight-01" }, { disableIdentityMap: true })).toMatchObject({ state: "done" });
  });

  it("spends once for a redemption key sent many times at once: one original, the rest its duplicate or 409 idempotency_key_in_use", async () => {
    expect((await send(deposit("nina-idem", { amount: 20000 }))).status).toBe(200);
    const coins = async () =>
      ((await api.request("GET", "/v1/participants/nina-idem")).body.currencies as { code: string; balance: number }[]).find((c) => c.code === "coins")!
        .balance;
    const before = await coins();
    const headers = { "Idempotency-Key": "key-concurrent-01" };
    const redeem = () => api.request("POST", "/v1/redemptions", { body: { participant: "nina-idem", reward: "store-bonus-10" }, headers });
    const answers = await Promise.all(Array.from({ length: 8 }, redeem));
    for (const answer of answers) if (answer.status !== 200) expectError(answer, 409, "idempotency_key_in_use");
    const ok = answers.filter((answer) => answer.status === 200);
    const originals = ok.filter((answer) => !answer.body.duplicate);
    expect(originals).toHaveLength(1);
    expect(new Set(ok.map((answer) => answer.body.id))).toEqual(new Set([originals[0].body.id]));
    expect(await coins()).toBe(before - 1000);
    // Once committed: the stored answer; the key with another request: refused.
    const retry = await redeem();
    expect(retry.status).toBe(200);
    expect(retry.body).toEqual({ ...originals[0].body, duplicate: true });
    expect(await api.db.em().fork().findOneOrFail(IdempotencyKey, { key: "key-concurrent-01" }, { disableIdentityMap: true })).toMatchObject({ state: "done" });
    expectError(await api.request("POST", "/v1/me/store/store-bonus-10/redeem", { participant: "nina-idem", headers }), 409, "idempotency_key_reused");
    expect(await coins()).toBe(before - 1000);
  });

  it("the store's redemption claims its key with the purchase: a repeat answers it, a failed purchase leaves the key free", async () => {
    expect((await send(deposit("olga-idem", { amount: 20000 }))).status).toBe(200);
    const buy = (key: string) => api.request("POST", "/v1/me/store/store-bonus-10/redeem", { participant: "olga-idem", headers: { "Idempotency-Key": key } });
    const answers = await Promise.all([buy("key-store-0001"), buy("key-store-0001"), buy("key-store-0001")]);
    for (const answer of answers) if (answer.status !== 200) expectError(answer, 409, "idempotency_key_in_use");
    expect(answers.filter((answer) => answer.status === 200 && !answer.body.duplicate)).toHaveLength(1);
    const again = await buy("key-store-0001");
    expect(again.body.duplicate).toBe(true);
    expectError(
      await api.request("POST", "/v1/me/store/no-such-reward/redeem", { participant: "olga-idem", headers: { "Idempotency-Key": "key-store-0002" } }),
      404,
      "not_found",
    );
    expect(await api.db.em().fork().count(IdempotencyKey, { key: "key-store-0002" })).toBe(0);
  });

  it("releases the key of a request that failed, so it can be used for another request", async () => {
    const redeem = (participant: string) =>
      api.request("POST", "/v1/redemptions", { body: { participant, reward: "store-bonus-10" }, headers: { "Idempotency-Key": "key-failed-0001" } });
    expect((await send(deposit("edu-idem"))).status).toBe(200);
    expectError(await redeem("edu-idem"), 409, "insufficient_balance");
    expectError(await redeem("fabi-idem"), 404, "not_found");
    expect(await api.db.em().fork().count(IdempotencyKey, { key: "key-failed-0001" })).toBe(0);
  });

  it("refuses an event id reused by another participant or another type with 409 event_id_conflict", async () => {
    const first = await send(deposit("gabi-idem", { id: "dep-shared-77" }));
    expect(first.status).toBe(200);
    const otherParticipant = await send(deposit("hugo-idem", { id: "dep-shared-77" }));
    expectError(otherParticipant, 409, "event_id_conflict");
    expect(otherParticipant.body.error.message).toContain("dep-shared-77");
    expect(await participantExists("hugo-idem")).toBe(false);
    expectError(await send({ participant: "gabi-idem", type: "bet.placed", id: "dep-shared-77", amount: 10, currency: "BRL" }), 409, "event_id_conflict");
    // The same fact again is a repeat.
    expect((await send(deposit("gabi-idem", { id: "dep-shared-77" }))).body).toEqual({ ...first.body, duplicate: true });
  });

  it("answers event_id_conflict, not idempotency_key_reused, when the header is the event's own id reused for another event", async () => {
    const first = await send(deposit("iara-idem", { id: "dep-own-key-1" }), "dep-own-key-1");
    expect(first.status).toBe(200);
    const otherType = await send({ participant: "iara-idem", type: "bet.placed", id: "dep-own-key-1", amount: 10, currency: "BRL" }, "dep-own-key-1");
    expectError(otherType, 409, "event_id_conflict");
    expect(otherType.body.error.message).toContain("dep-own-key-1");
    expectError(await send(deposit("joel-idem", { id: "dep-own-key-1" }), "dep-own-key-1"), 409, "event_id_conflict");
    // A header that is not the event's id keeps the header's own refusal.
    expectError(await send(deposit("joel-idem", { id: "dep-other-id-2" }), "dep-own-key-1"), 409, "idempotency_key_reused");
    expect((await send(deposit("iara-idem", { id: "dep-own-key-1" }), "dep-own-key-1")).body).toEqual({ ...first.body, duplicate: true });
  });

  it("answers a repeat of an event stored before effects carried main units in main units", async () => {
    const first = await send(deposit("lia-idem", { id: "dep-old-shape-1" }));
    expect(first.status).toBe(200);
    const credit = first.body.effects.find((effect: { type: string }) => effect.type === "currency_granted");
    expect(credit).toMatchObject({ currency: "coins", amount: expect.any(Number) });
    // As a result stored by the earlier service: `amount_minor` instead of `amount`.
    const { amount, ...rest } = credit;
    const stored = first.body.effects.map((effect: unknown) => (effect === credit ? { ...rest, amount_minor: amount } : effect));
    await api.db.em().fork().nativeUpdate(Event, { externalEventId: "dep-old-shape-1" }, { effects: stored });
    const again = await send(deposit("lia-idem", { id: "dep-old-shape-1" }));
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, duplicate: true });
  });

  it("answers a repeated redemption stored before money carried main units in main units", async () => {
    expect((await send(deposit("mia-idem", { amount: 20000 }))).status).toBe(200);
    const redeem = () =>
      api.request("POST", "/v1/redemptions", {
        body: { participant: "mia-idem", reward: "store-bonus-10" },
        headers: { "Idempotency-Key": "key-old-redeem-1" },
      });
    const first = await redeem();
    expect(first.status).toBe(200);
    const { cost, balance_after, effects, ...rest } = first.body;
    const old = {
      ...rest,
      duplicate: false,
      cost: { currency: cost.currency, amount_minor: cost.amount },
      balance_after_minor: balance_after,
      effects: effects.map((effect: Record<string, unknown>) => {
        if (effect.type !== "currency_debited") return effect;
        const { amount, ...rest } = effect;
        return { ...rest, amount_minor: amount };
      }),
    };
    await api.db.em().fork().nativeUpdate(Redemption, { idempotencyKey: "key-old-redeem-1" }, { result: old });
    const again = await redeem();
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...first.body, duplicate: true });
  });

  it("reads an event currency in either case as upper case", async () => {
    const lower = await send(deposit("kaio-idem", { id: "dep-lower-brl", currency: "brl" }));
    expect(lower.status).toBe(200);
    expect((await api.db.em().fork().findOneOrFail(Event, { externalEventId: "dep-lower-brl" })).currency).toBe("BRL");
    // The same event with the code in upper case is the same fact: a repeat.
    expect((await send(deposit("kaio-idem", { id: "dep-lower-brl", currency: "BRL" }))).body).toEqual({ ...lower.body, duplicate: true });
  });
});
