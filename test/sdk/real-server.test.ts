// Both SDKs against the real server (the demo casino club, on each database)
// through `prism proxy --errors`: Prism checks every request the SDKs send and
// every answer the server gives against generated/openapi.json, and turns any
// violation into an error answer. A client integrating the casino runs here
// end to end, server side with @clube/node and in the participant's browser
// with @clube/browser; Prism's log is read after every call so a violation it
// only logs fails the suite too.
//
// The steps build on each other (the browser uses the token of the player the
// server created, the deliveries come from that player's rewards), so they run
// in order, as vitest runs the tests of a file.
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { createClubeBrowser, type ClubeBrowser } from "../../sdk-browser/src/index.js";
import { Clube, ClubeError, type ClubConfig } from "../../sdk-node/src/index.js";
import { demoConfig, manualClock, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";
import { startPrism, type PrismServer } from "../support/prism.js";

/** A Wednesday, 09:00 in São Paulo: club day 2026-11-18, inside the weekly slots tournament. */
const WEDNESDAY = new Date("2026-11-18T12:00:00Z");
const PLAYER = "user_8412";
const REQUEST_ID = /^req_/;

/**
 * The lines of Prism's log that report a request or an answer breaking the
 * contract. Its start-up probe (a GET of `/`, which no path matches) is not one.
 */
function violationsIn(log: string): string[] {
  return log.split("\n").filter((line) => /prism\/errors#|\[VALIDATOR\]|violation/i.test(line) && !line.includes("[HTTP SERVER] get / "));
}

/** The error a call failed with; fails the test when the call succeeded. */
async function failureOf(call: Promise<unknown>): Promise<ClubeError> {
  const outcome = await call.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  if (!("error" in outcome)) throw new Error(`expected the call to fail, it answered ${JSON.stringify(outcome.value)}`);
  expect(outcome.error).toBeInstanceOf(ClubeError);
  return outcome.error as ClubeError;
}

/** A documented error, as the SDK surfaces it through the proxy: status, code, a message naming what failed, the server's request id. */
function expectClubeError(error: ClubeError, status: number, code: string, message: string): void {
  expect({ status: error.status, code: error.code }).toEqual({ status, code });
  expect(error.message).toContain(message);
  expect(error.requestId).toMatch(REQUEST_ID);
}

describeEachDatabase("SDKs against the real server through Prism's validating proxy", (kind) => {
  const clock = manualClock(WEDNESDAY);
  let api: TestApi;
  let prism: PrismServer;
  let clube: Clube;
  let browser: ClubeBrowser;
  let token: string;
  const violations = new Set<string>();

  /** The global fetch, noting any violation Prism logged by the time the answer arrived. */
  const watchedFetch = async (request: Request): Promise<Response> => {
    const response = await fetch(request);
    for (const line of violationsIn(prism.log())) violations.add(line);
    return response;
  };

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
    prism = await startPrism({ mode: "proxy", upstream: api.url });
    // No retries: a retried call would hide the first answer from the assertions.
    clube = new Clube({ apiKey: api.keys.test, baseUrl: prism.url, maxRetries: 0, fetch: watchedFetch });
    browser = createClubeBrowser({ baseUrl: prism.url, getToken: async () => token, fetch: watchedFetch });
  });
  afterAll(async () => {
    await prism?.stop();
    await api?.close();
  });
  afterEach(async () => {
    // Prism's output reaches us through a pipe: give the last call's lines a moment to arrive.
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const line of violationsIn(prism.log())) violations.add(line);
    expect([...violations]).toEqual([]);
  });

  it("server side: upserts the player, sends events (one by one, queued, in a batch), reads progress and issues a token", async () => {
    const profile = await clube.participants.upsert({ external_id: PLAYER, display_name: "Ana Souza", email: "ana.souza@example.com.br", tags: ["vip-sp"] });
    expect(profile).toMatchObject({ external_id: PLAYER, display_name: "Ana Souza", xp: 0, level: 1, tier: { code: "bronze", name: "Bronze" } });

    const signup = await clube.events.send({ participant: PLAYER, type: "user.signed_up", id: "signup-8412" });
    expect(signup).toEqual({
      event_id: expect.stringMatching(/^evt_/),
      duplicate: false,
      effects: [
        { type: "currency_granted", currency: "coins", amount: 100, rule_id: "signup-bonus" },
        { type: "xp_granted", amount: 50, rule_id: "signup-bonus" },
      ],
    });
    // R$ 40,000 (deposit-xp: amount × 2, deposit-coins: amount / 10): level 8 of the `media` curve.
    const deposit = await clube.events.send({
      participant: PLAYER,
      type: "deposit.confirmed",
      id: "dep-8412-1",
      amount: 40000,
      currency: "BRL",
      meta: { method: "pix" },
    });
    expect(deposit.effects).toEqual(
      expect.arrayContaining([
        {
          type: "reward_granted",
          reward_code: "bonus-first-deposit",
          rule_id: "first-deposit",
          reward_id: expect.any(String),
          delivery_id: expect.any(String),
        },
        { type: "xp_granted", amount: 80000, rule_id: "deposit-xp" },
        { type: "currency_granted", currency: "coins", amount: 4000, rule_id: "deposit-coins" },
        { type: "level_up", from: 1, to: 8 },
      ]),
    );
    // The same fact again (a retry after a timeout, the same body): the first answer, marked duplicate. The SDK
    // sends the event's id as its Idempotency-Key, which binds the body: a different body would get 409.
    expect(
      await clube.events.send({ participant: PLAYER, type: "deposit.confirmed", id: "dep-8412-1", amount: 40000, currency: "BRL", meta: { method: "pix" } }),
    ).toEqual({ ...deposit, duplicate: true });

    // Queued (Prefer: respond-async): 202 at once; no worker runs in this suite, so it stays queued.
    const queued = await clube.events.send({ participant: PLAYER, type: "deposit.confirmed", id: "dep-8412-2", amount: 50 }, { async: true });
    expect(queued).toEqual({ queued: true, event_ids: [expect.stringMatching(/^evt_/)] });

    const batch = await clube.events.sendBatch({
      events: [
        { participant: PLAYER, type: "bet.placed", id: "bet-8412-1", amount: 50, meta: { game_id: "pgsoft-fortune-tiger", game_type: "video-slots" } },
        { participant: PLAYER, type: "bet.placed", id: "bet-8412-2", amount: "30.00", meta: { game_type: "live-casino" } },
        { participant: PLAYER, type: "bet.settled", id: "settle-8412-1", amount: 1500, meta: { game_type: "video-slots" } },
      ],
    });
    expect(batch.results.map((result) => result.effects.map((effect) => effect.type))).toEqual([
      ["xp_granted", "leaderboard_points", "mission_progressed", "mission_progressed"],
      ["xp_granted", "currency_granted", "mission_progressed"],
      ["badge_granted", "tagged"],
    ]);

    // 100 welcome coins, 4000 from the deposit, 50 from the daily deposit mission's coins-50.
    // 50 + 80000 + 50 + 30 XP; on the `media` curve (round(1000 × L^1.5) from level L to L+1) level 8 starts at 61421, level 9 at 84048.
    const progress = await clube.participants.progress(PLAYER);
    expect(progress).toMatchObject({
      participant: { external_id: PLAYER, display_name: "Ana Souza" },
      level: { number: 8, name: "Nível 8" },
      xp: { total: 80130, current: 80130 - 61421, required: 84048 - 61421 },
      currencies: [
        { code: "coins", balance: 4150 },
        { code: "gems", balance: 1 },
      ],
    });
    expect(await clube.participants.progressMany({ external_ids: [PLAYER, "nobody"] })).toEqual({
      items: [{ external_id: PLAYER, level: progress.level, xp: progress.xp }],
    });
    expect(await clube.participants.get(PLAYER)).toMatchObject({ xp: 80130, level: 8, tier: { code: "bronze" } });

    const issued = await clube.participants.token(PLAYER, { ttl_seconds: 900 });
    expect(issued).toMatchObject({
      participant_id: profile.id,
      expires_at: new Date(WEDNESDAY.getTime() + 900_000).toISOString(),
      level: progress.level,
      xp: progress.xp,
    });
    token = issued.token;
  });

  it("in the browser, with the participant token: profile, progress, missions, check-in, wheel, store, rewards, notifications, cashback, referral, leaderboards, badges", async () => {
    const { me } = browser;
    expect(await me.profile()).toEqual(await clube.participants.get(PLAYER));
    expect(await me.progress()).toEqual(await clube.participants.progress(PLAYER));
    // Headless mode (secret key + X-Participant) shows the same participant.
    expect(await clube.me(PLAYER).profile()).toEqual(await me.profile());

    const missions = new Map((await me.missions()).data.map((mission) => [mission.id, mission]));
    expect(missions.get("deposito-diario")).toMatchObject({ completed: true, claimed: true, period_key: "2026-11-18" });
    expect(missions.get("apostar-500")).toMatchObject({ progress: 80, completed: false, goal: { kind: "sum", target: 500 } });

    expect(await me.checkin()).toMatchObject({ todayKey: "2026-11-18", canClaim: true, claimedToday: false, daysInPeriod: 7, period: "streak" });
    const checkin = await me.claimCheckin();
    expect(checkin).toMatchObject({
      reward: { code: "coins-50", label: "50 moedas", multiplier: 1 },
      state: { claimedToday: true, canClaim: false, streak: 1 },
    });
    expectClubeError(await failureOf(me.claimCheckin()), 409, "already_claimed", "2026-11-18");

    expect(await me.wheel()).toMatchObject({ style: "classica", spinsLeft: 1 });
    const spin = await me.spin({ idempotencyKey: "giro-8412-0001" });
    const slices = (await demoConfig()).wheel.slices.map((slice: { id: string }) => slice.id);
    expect(spin).toMatchObject({ duplicate: false, spinsLeft: 0, probabilityVersion: 1 });
    expect(slices).toContain(spin.sliceId);
    expect(await me.spin({ idempotencyKey: "giro-8412-0001" })).toEqual({ ...spin, duplicate: true });

    // 4150 coins, the check-in's 50 and whatever the wheel paid, and 1 gem: both coin rewards are affordable, the gem frame (20 gems) is not.
    const coinsBefore = (await me.progress()).currencies.find((currency) => currency.code === "coins")!.balance;
    expect(coinsBefore).toBeGreaterThanOrEqual(4150 + 50);
    const store = new Map((await me.store()).data.map((item) => [item.code, item]));
    expect(store.get("store-bonus-10")).toMatchObject({ cost: { currency: "coins", amount: 1000 }, affordable: true });
    expect(store.get("store-cash-5")).toMatchObject({ cost: { currency: "coins", amount: 2500 }, affordable: true });
    expect(store.get("avatar-dourado")).toMatchObject({ cost: { currency: "gems", amount: 20 }, affordable: false });
    const bought = await me.redeem("store-bonus-10");
    expect(bought).toMatchObject({
      reward_code: "store-bonus-10",
      cost: { currency: "coins", amount: 1000 },
      balance_after: coinsBefore - 1000,
      delivery_status: "pending",
      duplicate: false,
    });

    const rewards = (await me.rewards()).data.map((reward) => [reward.reward_code, reward.status]);
    expect(rewards).toEqual(
      expect.arrayContaining([
        ["bonus-first-deposit", "pending_delivery"],
        ["store-bonus-10", "pending_delivery"],
        ["coins-50", "granted"],
      ]),
    );

    const inbox = await me.notifications();
    expect(inbox.data.map((notice) => notice.title)).toContain("Você subiu para o Nível 8!");
    expect(inbox.unread_count).toBe(inbox.data.length);
    await me.markRead(inbox.data[0].id);
    expect((await me.notifications({ unread: true })).data).toHaveLength(inbox.data.length - 1);

    // The demo club has no cashback program yet: the participant sees the club's (disabled) defaults, nothing earned.
    const program = await clube.cashback.get();
    expect(await me.cashback()).toMatchObject({
      enabled: program.enabled,
      mode: program.mode,
      autoHour: program.hour,
      claimDays: program.claim_days,
      pctRange: { min: program.min_pct, max: program.max_pct },
      available: 0,
      availableDays: [],
    });
    expect(await me.referral()).toMatchObject({
      enabled: true,
      code: expect.any(String),
      referrerReward: "coins:500",
      referredReward: "coins:200",
      qualifyEvent: "deposit.confirmed",
      minAmount: 30,
    });
    expect((await me.leaderboards()).data).toEqual([expect.objectContaining({ campaign_id: "slots-semanal", points: 50, rank: 1 })]);
    expect((await me.badges()).data.map((badge) => badge.badge_code).sort()).toEqual(["grande-vitoria", "primeiro-deposito"]);
  });

  it("server side: confirms and fails deliveries, redeems with an idempotency key, registers a referral and attributes an affiliate", async () => {
    const pending = await clube.deliveries.list({ status: "pending" }).autoPagingToArray({ limit: 1000 });
    const bonus = pending.find((delivery) => delivery.reward_code === "bonus-first-deposit")!;
    const storeBonus = pending.find((delivery) => delivery.reward_code === "store-bonus-10")!;
    expect([bonus, storeBonus]).toEqual([expect.objectContaining({ status: "pending" }), expect.objectContaining({ status: "pending" })]);

    const confirmed = await clube.deliveries.confirm(bonus.id, { external_ref: "bonus-778201" });
    expect(confirmed).toMatchObject({ id: bonus.id, status: "delivered", external_ref: "bonus-778201", confirmed_at: WEDNESDAY.toISOString() });
    expect(await clube.deliveries.confirm(bonus.id)).toEqual(confirmed);
    expect(await clube.deliveries.fail(storeBonus.id, { reason: "Conta bloqueada para bônus" })).toMatchObject({
      status: "failed",
      fail_reason: "Conta bloqueada para bônus",
    });
    expect((await clube.deliveries.list({ status: "failed" })).deliveries.map((delivery) => delivery.id)).toEqual([storeBonus.id]);

    // 3200 to 3400 coins (the wheel): R$ 5 cash (2500) leaves under 1000; the same key again is the same redemption; a second one is refused.
    const coinsBefore = (await clube.participants.progress(PLAYER)).currencies.find((currency) => currency.code === "coins")!.balance;
    const redemption = await clube.redemptions.create({ participant: PLAYER, reward: "store-cash-5" }, { idempotencyKey: "resgate-8412-0001" });
    expect(redemption).toMatchObject({
      reward_code: "store-cash-5",
      title: "R$ 5 na carteira",
      cost: { currency: "coins", amount: 2500 },
      balance_after: coinsBefore - 2500,
      duplicate: false,
    });
    expect(await clube.redemptions.create({ participant: PLAYER, reward: "store-cash-5" }, { idempotencyKey: "resgate-8412-0001" })).toEqual({
      ...redemption,
      duplicate: true,
    });
    expectClubeError(
      await failureOf(clube.redemptions.create({ participant: PLAYER, reward: "store-cash-5" }, { idempotencyKey: "resgate-8412-0002" })),
      409,
      "insufficient_balance",
      "store-cash-5",
    );

    const code = (await browser.me.referral()).code;
    expect(await clube.referrals.register({ referred_external_id: "user_9001", code })).toEqual({ id: expect.any(String), status: "pending" });

    const affiliate = await clube.affiliates.create({ code: "STREAMERJOAO", name: "João Streamer" });
    expect(affiliate).toMatchObject({ code: "STREAMERJOAO", name: "João Streamer", status: "active", players: 0 });
    const attribution = await clube.affiliates.attribute({ participant_external_id: "user_9002", code: "STREAMERJOAO" });
    expect(attribution).toEqual({ id: expect.any(String), affiliate_link: affiliate.link, backfilled: 0 });
    expect(await clube.affiliates.get(affiliate.id)).toMatchObject({ id: affiliate.id, players: 1 });
  });

  it("console: configuration draft and publish, cashback program, key, game catalog, webhook endpoints, warnings and the event log", async () => {
    const published = await clube.config.get();
    expect(published).toMatchObject({ club_id: api.clubId, env: "test", config: { name: "Clube Sorte Grande" } });
    // casino.json read as plain JSON: the server (and Prism) check it against the contract.
    const edited = { ...(await demoConfig()), legalNote: "Jogue com responsabilidade. Proibido para menores de 18 anos. Suporte 24h." } as ClubConfig;
    const draft = await clube.config.saveDraft(edited);
    expect(await clube.config.getDraft()).toEqual(draft);
    const version = await clube.config.publish();
    expect(version).toMatchObject({ version: draft.version, config: { legalNote: edited.legalNote } });
    // The club was created with version 1 published; the new one supersedes it.
    expect((await clube.config.versions()).data.map((summary) => [summary.version, summary.status])).toEqual([
      [draft.version, "published"],
      [1, "superseded"],
    ]);
    expect((await clube.config.get()).config).toEqual(version.config);

    // The cashback program changes at once, without publishing: the participant sees it on the next call.
    const update = {
      enabled: true,
      mode: "auto" as const,
      hour: 9,
      claim_days: 3,
      tiers: [
        { name: "Bronze", min_loss_minor: 5000, pct: 5 },
        { name: "Prata", min_loss_minor: 50000, pct: 10 },
      ],
    };
    const program = await clube.cashback.update(update);
    // Sent in integer cents (`_minor`), answered in the seed's names and main units.
    expect(program).toMatchObject({
      enabled: true,
      mode: "auto",
      hour: 9,
      claim_days: 3,
      tiers: [
        { name: "Bronze", min_loss: 50, pct: 5 },
        { name: "Prata", min_loss: 500, pct: 10 },
      ],
    });
    expect(await clube.cashback.get()).toEqual(program);
    expect(await browser.me.cashback()).toMatchObject({ enabled: true, mode: "auto", autoHour: 9, claimDays: 3 });

    expect(await clube.key.get()).toMatchObject({ club_id: api.clubId, env: "test", key_prefix: expect.stringMatching(/^cf_test_/) });

    const games = [
      { id: "pgsoft-fortune-tiger", name: "Fortune Tiger", provider: "PG Soft", category: "video-slots" },
      { id: "spribe-aviator", name: "Aviator", provider: "Spribe", category: "crash" },
    ];
    expect(await clube.games.sync({ games, deactivate_missing: true })).toEqual({ upserted: 2, deactivated: 0 });
    expect((await clube.games.list()).data.map((game) => game.id)).toEqual(["pgsoft-fortune-tiger", "spribe-aviator"]);
    expect((await clube.games.list({ category: "crash" })).data.map((game) => game.name)).toEqual(["Aviator"]);

    const endpoint = await clube.webhookEndpoints.create({ url: "https://hooks.sortegrande.example/clube", description: "Backoffice" });
    expect(endpoint).toMatchObject({ url: "https://hooks.sortegrande.example/clube", events: [], enabled: true, secret: expect.stringMatching(/^whsec_/) });
    const { secret, ...shown } = endpoint;
    expect((await clube.webhookEndpoints.list()).data).toEqual([shown]);
    const updated = await clube.webhookEndpoints.update(endpoint.id, { events: ["reward.*", "level.up"] });
    expect(updated).toMatchObject({ id: endpoint.id, events: ["reward.*", "level.up"] });
    const rotated = await clube.webhookEndpoints.rotateSecret(endpoint.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(secret);
    expect(await clube.webhookEndpoints.get(endpoint.id)).toEqual(updated);
    // The registration's webhook.test waits in the outbox: no worker runs here to hand it to a sending.
    expect(await clube.webhookEndpoints.sendings(endpoint.id)).toEqual({ data: [], has_more: false });
    expect(await clube.webhookEndpoints.delete(endpoint.id)).toEqual({ id: endpoint.id, deleted: true });
    expect((await clube.webhookEndpoints.list()).data).toEqual([]);

    const warnings = (await clube.warnings.list()).data;
    expect(warnings).toEqual([expect.objectContaining({ kind: "delivery_failed", subject_id: expect.stringMatching(/^dlv_/) })]);

    const log = (await clube.events.list({ participant: PLAYER })).data;
    expect(log.find((entry) => entry.type === "deposit.confirmed" && entry.status === "queued")).toBeDefined();
    expect(log.filter((entry) => entry.duplicate_of !== null)).toHaveLength(1);
    const tested = await clube.events.test({ participant: "qa_tester_01", type: "deposit.confirmed", id: "teste-deposito-001", amount: 50, currency: "BRL" });
    expect(tested.effects).toContainEqual({ type: "xp_granted", amount: 100, rule_id: "deposit-xp" });
  });

  it("renames the player: the new id answers, the old one is 404", async () => {
    const before = await clube.participants.get(PLAYER);
    const report = await clube.participants.rename(PLAYER, { new_external_id: "br:8412" });
    expect(report).toMatchObject({
      env: "test",
      from: PLAYER,
      to: "br:8412",
      dry_run: false,
      merged: null,
      after: { id: before.id, external_id: "br:8412", xp: before.xp },
    });
    expect(await clube.participants.get("br:8412")).toMatchObject({ id: before.id, xp: before.xp });
    expectClubeError(await failureOf(clube.participants.get(PLAYER)), 404, "not_found", PLAYER);
  });

  it("surfaces the server's 404, 409 and 422 through the proxy as ClubeError with the documented code and the request id", async () => {
    expectClubeError(await failureOf(clube.participants.get("jogador-inexistente")), 404, "not_found", "jogador-inexistente");

    const deposit = await clube.events.send({ participant: "user_7731", type: "deposit.confirmed", id: "dep-7731-1", amount: 100 });
    const deliveryId = deposit.effects.flatMap((effect) => (effect.type === "reward_granted" && effect.delivery_id ? [effect.delivery_id] : []))[0];
    await clube.deliveries.confirm(deliveryId);
    expectClubeError(await failureOf(clube.deliveries.fail(deliveryId, { reason: "Duplicado" })), 409, "already_closed", deliveryId);

    // coins-50 has no price: only the server knows, so Prism passes the request on and the server answers 422.
    expectClubeError(await failureOf(clube.redemptions.create({ participant: "user_7731", reward: "coins-50" })), 422, "reward_has_no_price", "coins-50");
  });
});
