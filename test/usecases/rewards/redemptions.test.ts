import { afterAll, beforeAll, expect, it } from "vitest";
import { schemaValidators } from "../../../generated/validators.js";
import { CurrencyLot, Delivery, IdempotencyKey, LedgerEntry, Redemption, WebhookEndpoint } from "../../../server/src/db/entities/index.js";
import { withIdempotencyKey } from "../../../server/src/http/idempotency.js";
import { ApiError } from "../../../server/src/usecases/shared/errors.js";
import { ingestEvent } from "../../../server/src/usecases/events/ingest.js";
import { redeem, type RedemptionView } from "../../../server/src/usecases/rewards/redemptions.js";
import { confirmDelivery } from "../../../server/src/usecases/rewards/deliveries.js";
import { listNotifications } from "../../../server/src/usecases/participants/notifications.js";
import { describeEachDatabase } from "../../support/databases.js";
import { balancesOf, eventInput, ledgerSums, participantRow, PUBLIC_URL, recordedWebhooks } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { demoConfig } from "../../support/club-config.js";

const NOW = new Date("2026-11-18T12:00:00Z");
const DAY = 86_400_000;

describeEachDatabase("redemptions", (kind) => {
  let club: DatabaseClub;

  beforeAll(async () => {
    // Plus a coin-priced pack that credits gems: a reward moving a currency other than the one paid.
    const gemPack = {
      code: "pacote-gemas",
      title: "Pacote de gemas",
      type: "internal",
      payload: { currency: "gems", amount: 5 },
      cost: { currency: "coins", amount: 300 },
    };
    club = await openTestClub(kind, { config: demoConfig((config) => void config.rewards.push(gemPack)) });
    // Webhook rows are written only for events an enabled endpoint takes.
    await club.db.em().insert(WebhookEndpoint, {
      id: "we_redemptions",
      ...club.scope,
      url: "https://hooks.example.com/clube",
      events: ["store.purchased", "reward.*"],
      description: null,
      enabled: true,
      secret: "whsec_redemptions",
      previousSecret: null,
      previousSecretExpiresAt: null,
      createdAt: NOW,
      updatedAt: NOW,
      deletedAt: null,
    });
  });
  afterAll(async () => {
    await club?.close();
  });

  /**
   * A player with exactly `coins` coins (at least 155): the 100-coin welcome bonus, the daily deposit
   * mission's coins-50, and a deposit paying a tenth of it in coins.
   */
  async function playerWith(externalId: string, coins: number): Promise<string> {
    const send = (input: Record<string, unknown>) => ingestEvent(club.db, club.scope, eventInput(input), { now: NOW, publicUrl: PUBLIC_URL });
    await send({ participant: externalId, type: "user.signed_up", id: `${externalId}-signup` });
    await send({ participant: externalId, type: "deposit.confirmed", id: `${externalId}-dep`, amount: (coins - 150) * 10 });
    const participant = await participantRow(club.db, club.scope, externalId);
    expect((await balancesOf(club.db, participant.id)).coins).toBe(coins);
    return participant.id;
  }

  /** playerWith for each player, one after the other; their ids by external id. */
  async function playersWith<K extends string>(coins: Record<K, number>): Promise<Record<K, string>> {
    const ids = {} as Record<K, string>;
    for (const [externalId, amount] of Object.entries(coins) as [K, number][]) ids[externalId] = await playerWith(externalId, amount);
    return ids;
  }

  async function buy(participant: string, reward: string, idempotencyKey?: string, now = NOW): Promise<RedemptionView> {
    const result = await redeem(club.db, club.scope, { participant, reward }, { idempotencyKey, now, publicUrl: PUBLIC_URL });
    expect(schemaValidators.Redemption(structuredClone(result)), JSON.stringify(schemaValidators.Redemption.errors)).toBe(true);
    return result;
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

  it("spends the price and grants the reward: a delivery for the casino to credit, webhooks, the ledger", async () => {
    const anaId = await playerWith("ana", 1500);
    const redemption = await buy("ana", "store-bonus-10");
    expect(redemption).toEqual({
      id: expect.stringMatching(/^red_/),
      reward_code: "store-bonus-10",
      title: "R$ 10 de bônus",
      cost: { currency: "coins", amount: 1000 },
      balance_after: 500,
      delivery_status: "pending",
      duplicate: false,
      effects: [
        { type: "currency_debited", currency: "coins", amount: 1000, rule_id: "redemption:store-bonus-10" },
        {
          type: "reward_granted",
          reward_code: "store-bonus-10",
          rule_id: "redemption:store-bonus-10",
          reward_id: expect.stringMatching(/^rwd_/),
          delivery_id: expect.stringMatching(/^dlv_/),
        },
      ],
    });
    const grant = redemption.effects[1] as { reward_id: string; delivery_id: string };
    expect(await balancesOf(club.db, anaId)).toEqual({ coins: 500 });
    expect(await ledgerSums(club.db, anaId)).toMatchObject({ coins: 500 });
    const debit = await club.db.em().findOneOrFail(LedgerEntry, { participantId: anaId, delta: -1000 });
    expect(debit).toMatchObject({ unit: "coins", balanceAfter: 500, reason: "debit_currency", ruleId: "redemption:store-bonus-10", eventId: null });
    expect(await club.db.em().findOneOrFail(Delivery, { id: grant.delivery_id })).toMatchObject({ status: "pending", participantRewardId: grant.reward_id });

    const hooks = (await recordedWebhooks(club.db, club.scope)).slice(-3);
    const participant = { id: anaId, external_id: "ana" };
    expect(hooks).toEqual([
      {
        type: "reward.granted",
        data: {
          participant,
          reward: { id: grant.reward_id, code: "store-bonus-10", title: "R$ 10 de bônus", type: "client_delivered" },
          source: "redemption:store-bonus-10",
          delivery_id: grant.delivery_id,
          expires_at: null,
        },
      },
      {
        type: "reward.delivery_requested",
        data: {
          participant,
          reward: {
            id: grant.reward_id,
            code: "store-bonus-10",
            title: "R$ 10 de bônus",
            type: "client_delivered",
            payload: { kind: "bonus", amount_cents: 1000, rollover: 20 },
          },
          source: "redemption:store-bonus-10",
          delivery: {
            id: grant.delivery_id,
            confirm_url: `${PUBLIC_URL}/v1/deliveries/${grant.delivery_id}/confirm`,
            fail_url: `${PUBLIC_URL}/v1/deliveries/${grant.delivery_id}/fail`,
          },
        },
      },
      {
        type: "store.purchased",
        data: { participant, reward_code: "store-bonus-10", cost: { currency: "coins", amount: 1000 }, redemption_id: redemption.id },
      },
    ]);
  });

  it("moves the participant's updated_at with the payment, its other columns as they were", async () => {
    await playerWith("gil", 1500);
    const before = await participantRow(club.db, club.scope, "gil");
    const later = new Date(NOW.getTime() + 3_600_000);
    await buy("gil", "store-bonus-10", undefined, later);
    const after = await participantRow(club.db, club.scope, "gil");
    expect(after.updatedAt.getTime()).toBe(later.getTime());
    const columns = ({ xp, level, tierCode, tags, eventCounts }: typeof before) => ({ xp, level, tierCode, tags, eventCounts });
    expect(columns(after)).toEqual(columns(before));
    // A refused payment changes nothing.
    await refusal(buy("gil", "store-bonus-10", undefined, new Date(later.getTime() + 1000)));
    expect((await participantRow(club.db, club.scope, "gil")).updatedAt.getTime()).toBe(later.getTime());
  });

  it("leaves no inbox entry for the reward bought (the answer shows it); its delivery's outcome gets one", async () => {
    await playerWith("lia", 1500);
    const inbox = async () => (await listNotifications(club.db, club.scope, "lia", { limit: 100 })).data.map(({ kind, title }) => ({ kind, title }));
    const before = await inbox();
    const redemption = await buy("lia", "store-bonus-10");
    expect(await inbox()).toEqual(before);
    const { delivery_id: deliveryId } = redemption.effects[1] as { delivery_id: string };
    await confirmDelivery(club.db, club.scope, deliveryId, undefined, new Date(NOW.getTime() + 60_000));
    expect(await inbox()).toEqual([{ kind: "reward_delivered", title: "Prêmio entregue: R$ 10 de bônus" }, ...before]);
  });

  it("writes no webhook row that no enabled endpoint takes (the relay would drop it unsent)", async () => {
    await playerWith("flor", 3000);
    await club.db.em().nativeUpdate(WebhookEndpoint, { id: "we_redemptions" }, { events: ["reward.*"] });
    try {
      const redemption = await buy("flor", "store-bonus-10");
      const hooks = await recordedWebhooks(club.db, club.scope);
      expect(hooks.filter((hook) => hook.type === "store.purchased" && hook.data.redemption_id === redemption.id)).toEqual([]);
      expect(
        hooks.filter(
          (hook) =>
            hook.type === "reward.delivery_requested" &&
            hook.data.source === "redemption:store-bonus-10" &&
            (hook.data.participant as { external_id: string }).external_id === "flor",
        ),
      ).toHaveLength(1);
      await club.db.em().nativeUpdate(WebhookEndpoint, { id: "we_redemptions" }, { enabled: false });
      const unsent = (await recordedWebhooks(club.db, club.scope)).length;
      await buy("flor", "store-bonus-10");
      expect(await recordedWebhooks(club.db, club.scope)).toHaveLength(unsent);
    } finally {
      await club.db.em().nativeUpdate(WebhookEndpoint, { id: "we_redemptions" }, { events: ["store.purchased", "reward.*"], enabled: true });
    }
  });

  it("a balance equal to the price buys it; one unit less is 409 insufficient_balance and spends nothing", async () => {
    const exactId = await playerWith("bia", 1000);
    expect(await buy("bia", "store-bonus-10")).toMatchObject({ balance_after: 0, duplicate: false });
    expect(await balancesOf(club.db, exactId)).toEqual({ coins: 0 });

    const shortId = await playerWith("caio", 999);
    const webhooks = (await recordedWebhooks(club.db, club.scope)).length;
    expect(await refusal(buy("caio", "store-bonus-10"))).toEqual({
      status: 409,
      code: "insufficient_balance",
      message: `Participant "caio" has 999 coins; reward "store-bonus-10" costs 1000.`,
    });
    expect(await balancesOf(club.db, shortId)).toEqual({ coins: 999 });
    expect(await club.db.em().count(Redemption, { participantId: shortId })).toBe(0);
    expect(await club.db.em().count(Delivery, { participantId: shortId })).toBe(1); // the first-deposit bonus only
    expect(await recordedWebhooks(club.db, club.scope)).toHaveLength(webhooks);
  });

  it("a reward crediting another currency: both balances and their ledger lines exact; no balance of the price's currency is 0", async () => {
    // One gem per live-casino bet of 25+.
    const liveBet = (participant: string) =>
      ingestEvent(
        club.db,
        club.scope,
        eventInput({ participant, type: "bet.placed", id: `${participant}-live`, amount: 25, meta: { game_type: "live-casino" } }),
        { now: NOW, publicUrl: PUBLIC_URL },
      );
    const joId = await playerWith("jo", 400);
    // A gem the player already has: the credit's ledger line counts from it.
    await liveBet("jo");
    const gemsBefore = (await balancesOf(club.db, joId)).gems;
    expect(await buy("jo", "pacote-gemas")).toMatchObject({ cost: { currency: "coins", amount: 300 }, balance_after: 100 });
    expect(await balancesOf(club.db, joId)).toEqual({ coins: 100, gems: gemsBefore + 5 });
    expect(await ledgerSums(club.db, joId)).toMatchObject(await balancesOf(club.db, joId));
    const credit = await club.db.em().findOneOrFail(LedgerEntry, { participantId: joId, unit: "gems", ruleId: "redemption:pacote-gemas" });
    expect(credit).toMatchObject({ delta: 5, balanceAfter: gemsBefore + 5 });

    // A participant who never had coins: nothing to read, 0 to spend.
    await liveBet("ze");
    const zeId = (await participantRow(club.db, club.scope, "ze")).id;
    expect((await balancesOf(club.db, zeId)).coins).toBeUndefined();
    expect(await refusal(buy("ze", "pacote-gemas"))).toEqual({
      status: 409,
      code: "insufficient_balance",
      message: `Participant "ze" has 0 coins; reward "pacote-gemas" costs 300.`,
    });
  });

  it("404 for an unknown participant or reward, 422 for a reward without a price", async () => {
    await playerWith("davi", 3000);
    expect(await refusal(buy("nobody", "store-bonus-10"))).toEqual({ status: 404, code: "not_found", message: `Participant "nobody" was not found.` });
    expect(await refusal(buy("davi", "camiseta-oficial"))).toEqual({ status: 404, code: "not_found", message: `Reward "camiseta-oficial" was not found.` });
    expect(await refusal(buy("davi", "bonus-20"))).toEqual({
      status: 422,
      code: "reward_has_no_price",
      message: `Reward "bonus-20" has no cost and cannot be redeemed.`,
    });
    // Another club's key sees none of this club's participants.
    expect(
      await refusal(redeem(club.db, { ...club.scope, env: "live" }, { participant: "davi", reward: "store-bonus-10" }, { now: NOW, publicUrl: PUBLIC_URL })),
    ).toMatchObject({ status: 404 });
  });

  it("a repeated Idempotency-Key answers the first result with duplicate: true, whatever the repeat's body", async () => {
    const eduId = await playerWith("edu", 5000);
    const first = await buy("edu", "store-bonus-10", "resgate-edu-0001");
    expect(await buy("edu", "store-bonus-10", "resgate-edu-0001")).toEqual({ ...first, duplicate: true });
    expect(await buy("edu", "store-cash-5", "resgate-edu-0001")).toEqual({ ...first, duplicate: true });
    expect(await balancesOf(club.db, eduId)).toEqual({ coins: 4000 });
    // Without a key every call is a new redemption.
    expect((await buy("edu", "store-bonus-10")).id).not.toBe(first.id);
    expect((await buy("edu", "store-bonus-10")).balance_after).toBe(2000);
    expect(
      (await recordedWebhooks(club.db, club.scope)).filter((hook) => hook.type === "store.purchased" && (hook.data.participant as { id: string }).id === eduId),
    ).toHaveLength(3);
  });

  it("two concurrent redemptions that together exceed the balance: exactly one succeeds", async () => {
    const fabiId = await playerWith("fabi", 1500);
    const outcomes = await Promise.allSettled([buy("fabi", "store-bonus-10"), buy("fabi", "store-bonus-10")]);
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    expect((outcomes.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult).reason).toMatchObject({
      status: 409,
      code: "insufficient_balance",
    });
    expect(await balancesOf(club.db, fabiId)).toEqual({ coins: 500 });
    expect(await ledgerSums(club.db, fabiId)).toMatchObject({ coins: 500 });
  });

  it("20 at once beyond the balance: exactly the affordable number succeed, the rest 409, never below zero", async () => {
    const ivoId = await playerWith("ivo", 7500);
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => buy("ivo", "store-bonus-10", `resgate-ivo-${i}`)));
    const succeeded = outcomes
      .filter((outcome): outcome is PromiseFulfilledResult<RedemptionView> => outcome.status === "fulfilled")
      .map((outcome) => outcome.value);
    expect(succeeded).toHaveLength(7);
    expect(succeeded.every((result) => !result.duplicate)).toBe(true);
    // Each payment saw the balance the one before left: every amount from 6500 down to 500 once.
    expect(succeeded.map((result) => result.balance_after).sort((a, b) => b - a)).toEqual([6500, 5500, 4500, 3500, 2500, 1500, 500]);
    for (const outcome of outcomes) if (outcome.status === "rejected") expect(outcome.reason).toMatchObject({ status: 409, code: "insufficient_balance" });
    expect(await balancesOf(club.db, ivoId)).toEqual({ coins: 500 });
    expect(await ledgerSums(club.db, ivoId)).toMatchObject({ coins: 500 });
    expect(await club.db.em().count(Redemption, { participantId: ivoId })).toBe(7);
    // Repeats of those keys, all at once: the stored results, nothing spent again.
    const repeats = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => buy("ivo", "store-bonus-10", `resgate-ivo-${i}`)));
    const answered = repeats
      .filter((outcome): outcome is PromiseFulfilledResult<RedemptionView> => outcome.status === "fulfilled")
      .map((outcome) => outcome.value);
    expect(answered.every((result) => result.duplicate)).toBe(true);
    expect(new Set(answered.map((result) => result.id))).toEqual(new Set(succeeded.map((result) => result.id)));
    expect(await balancesOf(club.db, ivoId)).toEqual({ coins: 500 });
  });

  it("purchases of several participants at once: each its own outcome, those paid sharing one transaction on PostgreSQL", async () => {
    const ids = await playersWith({ rui: 1500, sol: 1500, tom: 1500, uli: 1500, vera: 500 });
    const buyers = ["rui", "rui", "sol", "tom", "vera", "nobody-here", "uli"];
    const outcomes = await Promise.allSettled(buyers.map((participant, i) => buy(participant, "store-bonus-10", `resgate-junto-${i}`)));
    const [rui, ruiAgain, sol, tom, vera, nobody, uli] = outcomes;
    const paid = [rui, sol, tom, uli].map((outcome) => (outcome as PromiseFulfilledResult<RedemptionView>).value);
    expect(paid.map((result) => [result.balance_after, result.duplicate])).toEqual(Array.from({ length: 4 }, () => [500, false]));
    // The participant's second purchase sees the first one's payment.
    expect((ruiAgain as PromiseRejectedResult).reason).toMatchObject({
      status: 409,
      code: "insufficient_balance",
      message: expect.stringContaining("has 500 coins"),
    });
    expect((vera as PromiseRejectedResult).reason).toMatchObject({
      status: 409,
      code: "insufficient_balance",
      message: expect.stringContaining("has 500 coins"),
    });
    expect((nobody as PromiseRejectedResult).reason).toMatchObject({ status: 404 });
    for (const id of Object.values(ids)) {
      expect(await balancesOf(club.db, id)).toEqual({ coins: 500 });
      expect(await ledgerSums(club.db, id)).toMatchObject({ coins: 500 });
      expect(await club.db.em().count(Redemption, { participantId: id })).toBe(id === ids.vera ? 0 : 1);
    }
    if (kind === "postgresql") {
      const transactions = await club.db
        .em()
        .getConnection()
        .execute<{ xmin: string }[]>("select distinct xmin::text as xmin from redemptions where id = any(?)", [paid.map((result) => result.id)]);
      expect(transactions).toHaveLength(1);
    }
    // Repeats of the keys at once: the stored results; the failed purchases' keys were never taken.
    const repeats = await Promise.all([0, 2, 3, 6].map((i) => buy(buyers[i], "store-bonus-10", `resgate-junto-${i}`)));
    expect(repeats.map((result) => [result.id, result.duplicate])).toEqual(paid.map((result) => [result.id, true]));
  });

  it("keyed purchases at once (the route's key claims): a failed one's key is released, one key for two participants spends once", async () => {
    const ids = await playersWith({ wil: 1500, xavi: 500, yara: 1500, zeca: 1500 });
    // As the HTTP route runs a keyed redemption: its key claimed by the payment's statement.
    const keyed = (participant: string, key: string) =>
      withIdempotencyKey(
        club.db,
        () => NOW,
        { scope: club.scope, key, operationId: "Redemptions_create", request: { participant, reward: "store-bonus-10" } },
        async () => ({
          status: 200,
          body: await buy(participant, "store-bonus-10", key),
        }),
      );
    const [wil, xavi, nobody, yara, zeca] = await Promise.allSettled([
      keyed("wil", "chave-junto-01"),
      keyed("xavi", "chave-junto-02"),
      keyed("nobody-here", "chave-junto-03"),
      keyed("yara", "chave-junto-04"),
      keyed("zeca", "chave-junto-04"),
    ]);
    expect(wil.status).toBe("fulfilled");
    expect((xavi as PromiseRejectedResult).reason).toMatchObject({ status: 409, code: "insufficient_balance" });
    expect((nobody as PromiseRejectedResult).reason).toMatchObject({ status: 404 });
    // One of the two under one key paid; the other, another request under a key taken, is refused.
    const shared = [yara, zeca];
    expect(shared.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(1);
    expect((shared.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult).reason).toMatchObject({
      status: 409,
      code: expect.stringMatching(/^idempotency_key_(reused|in_use)$/),
    });
    const coins = async (id: string) => (await balancesOf(club.db, id)).coins;
    expect([await coins(ids.wil), await coins(ids.xavi), (await coins(ids.yara)) + (await coins(ids.zeca))]).toEqual([500, 500, 2000]);
    const keys = async (key: string) =>
      (
        await club.db
          .em()
          .fork()
          .find(IdempotencyKey, { ...club.scope, key })
      ).map((row) => row.state);
    expect([await keys("chave-junto-01"), await keys("chave-junto-02"), await keys("chave-junto-03"), await keys("chave-junto-04")]).toEqual([
      ["done"],
      [],
      [],
      ["done"],
    ]);
    if (kind === "postgresql") {
      const paid = await club.db
        .em()
        .getConnection()
        .execute<{ xmin: string }[]>("select distinct xmin::text as xmin from redemptions where participant_id = any(?)", [[ids.wil, ids.yara, ids.zeca]]);
      expect(paid).toHaveLength(1);
    }
    // The released key buys once the balance allows it.
    await ingestEvent(club.db, club.scope, eventInput({ participant: "xavi", type: "deposit.confirmed", id: "xavi-dep-2", amount: 10_000 }), {
      now: NOW,
      publicUrl: PUBLIC_URL,
    });
    const retried = await keyed("xavi", "chave-junto-02");
    expect(retried.body.duplicate).toBe(false);
    expect(await keys("chave-junto-02")).toEqual(["done"]);
  });

  it("one key for two participants at once, without the route's claim: spent once (on PostgreSQL their shared transaction fails on the key, then each is paid alone)", async () => {
    const ids = [await playerWith("alba", 1500), await playerWith("bento", 1500)];
    const results = await Promise.all([buy("alba", "store-bonus-10", "resgate-duplo-01"), buy("bento", "store-bonus-10", "resgate-duplo-01")]);
    expect(results.map((result) => result.duplicate).sort()).toEqual([false, true]);
    expect(new Set(results.map((result) => result.id)).size).toBe(1);
    const coins = await Promise.all(ids.map(async (id) => (await balancesOf(club.db, id)).coins));
    expect(coins.sort()).toEqual([1500, 500]);
    for (const id of ids) expect((await ledgerSums(club.db, id)).coins).toBe((await balancesOf(club.db, id)).coins);
  });

  it("the same Idempotency-Key sent concurrently spends once", async () => {
    const gabiId = await playerWith("gabi", 3000);
    const results = await Promise.all(Array.from({ length: 5 }, () => buy("gabi", "store-bonus-10", "resgate-gabi-0001")));
    expect(results.filter((result) => !result.duplicate)).toHaveLength(1);
    expect(new Set(results.map((result) => result.id)).size).toBe(1);
    expect(await balancesOf(club.db, gabiId)).toEqual({ coins: 2000 });
  });

  it("pays with expiring gems oldest lot first, never with lots already expired", async () => {
    // One gem per live-casino bet of 25+ (the rule's cooldown is 60 s): 10 gems now, 15 fifty days later.
    const live = (n: number, at: Date) =>
      ingestEvent(
        club.db,
        club.scope,
        eventInput({ participant: "hugo", type: "bet.placed", id: `hugo-live-${at.getTime()}-${n}`, amount: 25, meta: { game_type: "live-casino" } }),
        {
          now: new Date(at.getTime() + n * 60_000),
          publicUrl: PUBLIC_URL,
        },
      );
    const early = NOW;
    const middle = new Date(NOW.getTime() + 50 * DAY);
    for (let n = 0; n < 10; n++) await live(n, early);
    for (let n = 0; n < 15; n++) await live(n, middle);
    const hugoId = (await participantRow(club.db, club.scope, "hugo")).id;
    expect((await balancesOf(club.db, hugoId)).gems).toBe(25);

    // 95 days on, the first 10 gems have expired (the expiry job has not run): 15 spendable, the price is 20.
    const late = new Date(NOW.getTime() + 95 * DAY);
    expect(await refusal(buy("hugo", "avatar-dourado", undefined, late))).toMatchObject({
      status: 409,
      code: "insufficient_balance",
      message: expect.stringContaining("has 15 gems"),
    });
    for (let n = 0; n < 5; n++) await live(n, late);
    const bought = await buy("hugo", "avatar-dourado", undefined, new Date(late.getTime() + 10 * 60_000));
    expect(bought).toMatchObject({ cost: { currency: "gems", amount: 20 }, balance_after: 10, delivery_status: "delivered" });
    const lots = await club.db.em().find(CurrencyLot, { participantId: hugoId }, { orderBy: { createdAt: "asc" } });
    expect(lots.map((lot) => lot.remaining)).toEqual([...Array(10).fill(1), ...Array(15).fill(0), ...Array(5).fill(0)]);
    // Bought under the participant's lock with its lots read (the other path): no inbox entry for it either.
    const inbox = await listNotifications(club.db, club.scope, "hugo", { limit: 100 });
    expect(inbox.data.filter((notice) => notice.title.includes("Moldura dourada"))).toEqual([]);
  });
});
