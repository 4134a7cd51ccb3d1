import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectError } from "../support/api.js";
import { demoConfig, tournamentsStartingAt } from "../support/club-config.js";
import { ok, type ClubClient } from "./support/client.js";
import { shiftableClock } from "./support/clock.js";
import { describeEachStack, startInProcessStack, type InProcessStack } from "./support/stack.js";
import { Endpoints, noticesOf, waitForNotices, type ConnectedEndpoint, type Notice } from "./support/endpoints.js";
import { expectContractNotice, NoticeCursor, single } from "./support/webhooks.js";

/**
 * What a club's endpoint receives while a player lives a casino day through
 * the real server: every event the receiver subscribed to by name, each body
 * valid against its generated schema, signed, with the documented data.
 */

const openapi = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));
/** Every event an endpoint can name, straight from the contract. */
const EVERY_EVENT: string[] = openapi.components.schemas.SubscribableWebhookEvent.enum;

const PLAYER = "jogador_8412";
const FRIEND = "amigo_9120";
const SLOT = { game_id: "vs20olympgate", game_name: "Gates of Olympus", game_provider: "Pragmatic Play", game_type: "video-slots" };

describeEachStack("webhook emission", (kind) => {
  const clock = shiftableClock();
  const endpoints = new Endpoints(clock);
  let stack: InProcessStack;
  let club: ClubClient;
  let endpoint: ConnectedEndpoint;
  let cursor: NoticeCursor;
  /** The player as webhooks name them: `{id, external_id}`. */
  let player: { id: string; external_id: string };
  /** The pending deliveries the steps create, by reward code. */
  const deliveries = new Map<string, Notice>();

  const send = async (event: Record<string, unknown>) => ok(club.call("POST", "/v1/events", { body: { participant: PLAYER, currency: "BRL", ...event } }));
  /** POSTs to a link a webhook gave (confirm_url, fail_url) with the secret key, as the client's backend does. */
  const postWithKey = (url: string, body: unknown) =>
    fetch(url, { method: "POST", headers: { Authorization: `Bearer ${club.keys.test}`, "Content-Type": "application/json" }, body: JSON.stringify(body) });
  /** Waits for a step's notices and checks each against the contract. */
  const step = async (types: string[]) => {
    const notices = await cursor.next(types);
    for (const notice of notices) expectContractNotice(notice, club);
    return notices;
  };

  beforeAll(async () => {
    stack = await startInProcessStack(kind, { clock });
    // Tournaments anchored now: no edition ends (and sends tournament.finished) during the scenario.
    club = await stack.newClub(undefined, demoConfig(tournamentsStartingAt(clock.now())));
    endpoint = await endpoints.connect(club, EVERY_EVENT);
    cursor = new NoticeCursor(endpoint.receiver);
  });
  afterAll(async () => {
    await endpoints.stopAll();
    await stack?.close();
  });

  it("signup: participant.created for the participant the first event made", async () => {
    await send({ type: "user.signed_up", id: "signup-8412", meta: { channel: "web" } });
    const [created] = await step(["participant.created"]);
    player = created.envelope.data.participant;
    expect(player).toEqual({ id: expect.stringMatching(/^par_/), external_id: PLAYER });
    expect(created.envelope.data).toEqual({ participant: player, display_name: null });
  });

  it("first deposit: level.up {participant, level, from}, the bonus's reward.granted and reward.delivery_requested, the daily mission", async () => {
    const result = await send({ type: "deposit.confirmed", id: "dep-778201", amount: 500, meta: { method: "pix" } });
    const bonus = result.effects.find((effect: { reward_code?: string }) => effect.reward_code === "bonus-first-deposit");
    const notices = await step(["level.up", "reward.granted", "reward.granted", "reward.delivery_requested", "mission.completed"]);

    expect(single(notices, "level.up").envelope.data).toEqual({ participant: player, level: 2, from: 1 });
    const requested = single(notices, "reward.delivery_requested");
    // Exactly the seed's data: participant, reward {id, code, title, type, payload}, source, delivery {id, confirm_url, fail_url}.
    expect(requested.envelope.data).toEqual({
      participant: player,
      reward: {
        id: bonus.reward_id,
        code: "bonus-first-deposit",
        title: "Bônus de primeiro depósito",
        type: "client_delivered",
        payload: { kind: "bonus", amount_cents: 5000, rollover: 35 },
      },
      source: "rule:first-deposit",
      delivery: {
        id: bonus.delivery_id,
        confirm_url: `${stack.url}/v1/deliveries/${bonus.delivery_id}/confirm`,
        fail_url: `${stack.url}/v1/deliveries/${bonus.delivery_id}/fail`,
      },
    });
    deliveries.set("bonus-first-deposit", requested);
    const granted = notices.filter((notice) => notice.envelope.type === "reward.granted").map((notice) => notice.envelope.data);
    expect(granted).toEqual(
      expect.arrayContaining([
        {
          participant: player,
          reward: { id: bonus.reward_id, code: "bonus-first-deposit", title: "Bônus de primeiro depósito", type: "client_delivered" },
          source: "rule:first-deposit",
          delivery_id: bonus.delivery_id,
          expires_at: null,
        },
        {
          participant: player,
          reward: { id: expect.stringMatching(/^rwd_/), code: "coins-50", title: "50 moedas", type: "internal" },
          source: "mission:deposito-diario",
          delivery_id: null,
          expires_at: null,
        },
      ]),
    );
    expect(single(notices, "mission.completed").envelope.data).toEqual({
      participant: player,
      mission_id: "deposito-diario",
      period_key: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      reward_code: "coins-50",
    });
  });

  it("bets and settles: mission.completed for the weekly betting mission (claimed by hand, so no reward yet); settles send nothing", async () => {
    for (const [i, stake] of [150, 200, 250].entries()) await send({ type: "bet.placed", id: `bet-${i}`, amount: stake, meta: SLOT });
    const [completed] = await step(["mission.completed"]);
    expect(completed.envelope.data).toEqual({
      participant: player,
      mission_id: "apostar-500",
      period_key: expect.stringMatching(/^\d{4}-W\d{2}$/),
      reward_code: null,
    });
    await send({ type: "bet.settled", id: "settle-0", amount: 1500, meta: { ...SLOT, outcome: "won" } });
    await send({ type: "bet.settled", id: "settle-1", amount: 0, meta: { ...SLOT, outcome: "lost" } });
    await step([]);
  });

  it("mission claim: reward.granted and reward.delivery_requested with source mission:<id>", async () => {
    const claim = await ok(club.call("POST", "/v1/me/missions/apostar-500/claim", { participant: PLAYER }));
    const notices = await step(["reward.granted", "reward.delivery_requested"]);
    const requested = single(notices, "reward.delivery_requested");
    expect(requested.envelope.data).toMatchObject({
      reward: { id: claim.reward_granted.reward_id, code: "free-spins-20", payload: { kind: "free_spins", spins: 20, game: "Sweet Bonanza" } },
      source: "mission:apostar-500",
      delivery: { id: claim.reward_granted.delivery_id },
    });
    expect(single(notices, "reward.granted").envelope.data).toMatchObject({ source: "mission:apostar-500", delivery_id: claim.reward_granted.delivery_id });
    deliveries.set("free-spins-20", requested);
  });

  it("the delivery's confirm_url confirms it (reward.delivered, once even when repeated); its fail_url fails another (reward.delivery_failed)", async () => {
    const bonus = deliveries.get("bonus-first-deposit")!.envelope.data.delivery;
    const confirm = () => postWithKey(bonus.confirm_url, { external_ref: "bonus-778201" });
    const confirmed = await confirm();
    expect(confirmed.status).toBe(200);
    expect(await confirmed.json()).toMatchObject({ id: bonus.id, status: "delivered", external_ref: "bonus-778201" });
    const [delivered] = await step(["reward.delivered"]);
    expect(delivered.envelope.data).toEqual({
      participant: player,
      reward_code: "bonus-first-deposit",
      delivery: expect.objectContaining({
        id: bonus.id,
        status: "delivered",
        external_ref: "bonus-778201",
        fail_reason: null,
        confirmed_at: expect.any(String),
      }),
    });
    expect((await confirm()).status).toBe(200); // safe to repeat, and announced once
    await step([]);

    const spins = deliveries.get("free-spins-20")!.envelope.data.delivery;
    const failed = await postWithKey(spins.fail_url, { reason: "Jogo Sweet Bonanza indisponível para a conta" });
    expect(failed.status).toBe(200);
    const [notice] = await step(["reward.delivery_failed"]);
    expect(notice.envelope.data).toEqual({
      participant: player,
      reward_code: "free-spins-20",
      delivery: expect.objectContaining({ id: spins.id, status: "failed", fail_reason: "Jogo Sweet Bonanza indisponível para a conta", confirmed_at: null }),
    });
    expectError(await club.call("POST", `/v1/deliveries/${spins.id}/confirm`, { body: {} }), 409, "already_closed");
    await step([]);
  });

  it("a big deposit: one level.up across levels 2 → 10 and tier.changed bronze → prata", async () => {
    await send({ type: "deposit.confirmed", id: "dep-778202", amount: 55000, meta: { method: "ted" } });
    const notices = await step(["level.up", "tier.changed"]);
    expect(single(notices, "level.up").envelope.data).toEqual({ participant: player, level: 10, from: 2 });
    expect(single(notices, "tier.changed").envelope.data).toEqual({
      participant: player,
      from: { code: "bronze", name: "Bronze" },
      to: { code: "prata", name: "Prata" },
    });
  });

  it("a redemption: store.purchased, reward.granted and reward.delivery_requested (source redemption:<code>); its repeat sends nothing", async () => {
    const redeem = () =>
      ok(
        club.call("POST", "/v1/redemptions", { body: { participant: PLAYER, reward: "store-bonus-10" }, headers: { "Idempotency-Key": "resgate-8412-0001" } }),
      );
    const redemption = await redeem();
    const notices = await step(["store.purchased", "reward.granted", "reward.delivery_requested"]);
    expect(single(notices, "store.purchased").envelope.data).toEqual({
      participant: player,
      reward_code: "store-bonus-10",
      cost: { currency: "coins", amount: 1000 },
      redemption_id: redemption.id,
    });
    expect(single(notices, "reward.delivery_requested").envelope.data).toMatchObject({
      reward: { code: "store-bonus-10", title: "R$ 10 de bônus", type: "client_delivered", payload: { kind: "bonus", amount_cents: 1000, rollover: 20 } },
      source: "redemption:store-bonus-10",
    });
    expect((await redeem()).duplicate).toBe(true);
    await step([]);
  });

  it("a check-in: checkin.completed; a refused first attempt is retried after 1 minute with the same envelope id, X-Clube-Delivery and body", async () => {
    endpoint.receiver.replyWith({ status: 503 });
    await ok(club.call("POST", "/v1/me/checkin", { participant: PLAYER }));
    const notices = await step(["checkin.completed", "reward.granted"]);
    expect(single(notices, "checkin.completed").envelope.data).toEqual({
      participant: player,
      day_key: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      day_index: 0,
      streak: 1,
      reward_code: "coins-50",
    });
    // The first of the two requests was answered 503; nothing more is sent until its retry is due.
    const refused = notices[0];
    await step([]);
    clock.advance(61_000);
    const [retry] = await cursor.next([refused.envelope.type]);
    expectContractNotice(retry, club);
    expect(retry.envelope.id).toBe(refused.envelope.id);
    expect(retry.deliveryId).toBe(refused.deliveryId);
    expect(retry.request.body).toBe(refused.request.body);
    // Signed again at send time: a fresh timestamp, still valid for the receiver.
    const timestamp = (notice: Notice) => Number(/^t=(\d+)/.exec(String(notice.request.headers["x-clube-signature"]))![1]);
    expect(timestamp(retry) - timestamp(refused)).toBeGreaterThanOrEqual(60);
  });

  it("a wheel spin: wheel.spun, with the reward notices of the slice won", async () => {
    const spin = await ok(club.call("POST", "/v1/me/wheel/spin", { participant: PLAYER, headers: { "Idempotency-Key": "giro-8412-0001" } }));
    const rewardNotices =
      spin.reward === null
        ? []
        : spin.effects.some((e: { delivery_id?: string }) => e.delivery_id)
          ? ["reward.granted", "reward.delivery_requested"]
          : ["reward.granted"];
    const notices = await step(["wheel.spun", ...rewardNotices]);
    expect(single(notices, "wheel.spun").envelope.data).toEqual({
      participant: player,
      spin_id: spin.spinId,
      slice_id: spin.sliceId,
      label: spin.label,
      reward_code: spin.reward,
      probability_version: spin.probabilityVersion,
    });
  });

  it("a referral registration and the friend's qualifying deposit: referral.qualified naming both", async () => {
    const { code } = await ok(club.call("GET", "/v1/me/referral", { participant: PLAYER }));
    const registered = await ok(club.call("POST", "/v1/referrals", { body: { referred_external_id: FRIEND, code } }), 201);
    expect(registered).toEqual({ id: expect.any(String), status: "pending" });
    const [friendCreated] = await step(["participant.created"]);
    const friend = friendCreated.envelope.data.participant;

    await ok(club.call("POST", "/v1/events", { body: { participant: FRIEND, type: "deposit.confirmed", id: "dep-9120-1", amount: 50, currency: "BRL" } }));
    const notices = await waitForNotices(endpoint.receiver, "referral.qualified", (all) => all.some((notice) => notice.envelope.type === "referral.qualified"));
    const qualified = single(notices, "referral.qualified");
    expectContractNotice(qualified, club);
    expect(qualified.envelope.data).toEqual({
      referral_id: registered.id,
      referrer: player,
      referred: friend,
      rewards: { referrer: "coins:500", referred: "coins:200" },
    });
  });

  it("every notice: valid for its schema, signed, with an envelope id of its own that only a retry repeats (with the same X-Clube-Delivery)", async () => {
    const all = noticesOf(endpoint.receiver);
    for (const notice of all) expectContractNotice(notice, club);
    const byEnvelope = new Map<string, Notice[]>();
    for (const notice of all) byEnvelope.set(notice.envelope.id, [...(byEnvelope.get(notice.envelope.id) ?? []), notice]);
    for (const [id, copies] of byEnvelope) {
      // Copies of one envelope id are attempts of one sending: same delivery id, same bytes.
      expect(new Set(copies.map((copy) => copy.deliveryId)).size, id).toBe(1);
      expect(new Set(copies.map((copy) => copy.request.body)).size, id).toBe(1);
    }
    expect(new Set(all.map((notice) => notice.deliveryId)).size).toBe(byEnvelope.size);
    // One retry in the scenario (the check-in's refused attempt).
    expect(all.length - byEnvelope.size).toBe(1);
  });
});
