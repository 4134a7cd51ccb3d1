// The demo casino's flows through the HTTP API, on both databases: events in,
// XP/coins/levels/tiers/missions/rewards/deliveries out, checked after every
// step against what a reader of server/src/demo/casino.json expects (the
// expected numbers are computed from that configuration, not copied from the
// server's answers); idempotency and concurrency; the delivery state table;
// redemptions racing for one balance; the batch bound.
import { afterAll, beforeAll, expect, it } from "vitest";
import { demoConfig, expectError, manualClock, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

/** A Wednesday, 09:00 in São Paulo (the club's time zone): club day 2026-11-18, ISO week 2026-W47, month 2026-11. */
const WEDNESDAY = new Date("2026-11-18T12:00:00Z");
const minutesAfter = (minutes: number, from = WEDNESDAY) => new Date(from.getTime() + minutes * 60_000);
/** 00:30 on Thursday in São Paulo: the next club day. */
const THURSDAY = new Date("2026-11-19T03:30:00Z");

const REWARD_ID = expect.stringMatching(/^rwd_/);
const DELIVERY_ID = expect.stringMatching(/^dlv_/);

type Config = Record<string, any>;
type Effect = Record<string, any>;
interface EventResult {
  event_id: string;
  duplicate: boolean;
  effects: Effect[];
}

/**
 * The demo club as its reader sees it: the level curve (the formula documented
 * with `progression.curve` in spec/config/progression.tsp: XP from level L to
 * L+1 is round(base × L^e)), the tiers, and the rules, missions and rewards by id.
 */
function readCasino(config: Config) {
  const { curve, tiers } = config.progression;
  const exponent = ({ suave: 1.2, media: 1.5, dificil: 1.8 } as Record<string, number>)[curve.preset];
  const levelStarts = [0];
  for (let level = 1; level < curve.maxLevel; level++) levelStarts.push(levelStarts[level - 1] + Math.round(curve.base * level ** exponent));
  const levelOf = (xp: number) => levelStarts.filter((start) => start <= xp).length;
  const tierOf = (level: number): string =>
    tiers.find((tier: { levels: [number, number | null] }) => level >= tier.levels[0] && (tier.levels[1] === null || level <= tier.levels[1])).code;
  const find = <T extends { id?: string; code?: string }>(list: T[], key: string, what: string): T => {
    const found = list.find((item) => (item.id ?? item.code) === key);
    if (!found) throw new Error(`casino.json has no ${what} ${key}`);
    return found;
  };
  const rule = (id: string) => find<Config>(config.rules, id, "rule");
  return {
    config,
    levelStarts,
    levelOf,
    tierOf,
    rule,
    /** The first effect of `type` in rule `id`. */
    effect: (id: string, type: string) => rule(id).effects.find((effect: Effect) => effect.type === type),
    mission: (id: string) => find<Config>(config.missions, id, "mission"),
    reward: (code: string) => find<Config>(config.rewards, code, "reward"),
  };
}
type Casino = ReturnType<typeof readCasino>;

describeEachDatabase("API casino flows", (kind) => {
  const clock = manualClock(WEDNESDAY);
  let api: TestApi;
  let casino: Casino;

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
    casino = readCasino(await demoConfig());
  });
  afterAll(() => api?.close());

  // The rules whose amounts are expressions: the arithmetic below is the expression's.
  const depositXp = (amount: number) => Math.trunc(amount * 2); // deposit-xp: "event.amount * 2", whole XP
  const depositCoins = (amount: number) => Math.trunc(amount / 10); // deposit-coins: "event.amount / 10", coins have 0 decimals

  /** A `reward_granted` effect as the server fills it: ids for the record and, for a client-delivered reward, the delivery. */
  const rewardGranted = (rewardCode: string, ruleId: string) => ({
    type: "reward_granted",
    reward_code: rewardCode,
    rule_id: ruleId,
    reward_id: REWARD_ID,
    ...(casino.reward(rewardCode).type === "client_delivered" ? { delivery_id: DELIVERY_ID } : {}),
  });

  /** What an `internal` reward whose payload names a currency pays at grant (coins have 0 decimals: main units are minor units). */
  const rewardCredit = (rewardCode: string): { currency: string; amount: number } | null => {
    const reward = casino.reward(rewardCode);
    return reward.type === "internal" && typeof reward.payload?.currency === "string"
      ? { currency: reward.payload.currency, amount: reward.payload.amount }
      : null;
  };

  /** The effects of granting a reward: `reward_granted`, then the credit of an internal currency reward. */
  const rewardEffects = (rewardCode: string, ruleId: string): Effect[] => {
    const credit = rewardCredit(rewardCode);
    return [rewardGranted(rewardCode, ruleId), ...(credit ? [{ type: "currency_granted", ...credit, rule_id: ruleId }] : [])];
  };

  /** The daily deposit mission's reward, in coins: every first deposit of a club day earns it. */
  const dailyMissionCoins = () => rewardCredit(casino.mission("deposito-diario").reward)?.amount ?? 0;

  async function sendEvent(event: Record<string, unknown>, headers?: Record<string, string>): Promise<EventResult> {
    const response = await api.request("POST", "/v1/events", { body: event, headers });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  }

  /** The participant's profile: XP, its level and tier as the curve and tiers place it, and balances. */
  async function expectStanding(externalId: string, expected: { xp: number; coins: number; gems?: number }): Promise<void> {
    const response = await api.request("GET", `/v1/participants/${externalId}`);
    expect(response.status).toBe(200);
    const level = casino.levelOf(expected.xp);
    expect(response.body).toMatchObject({
      external_id: externalId,
      xp: expected.xp,
      level,
      level_start_xp: casino.levelStarts[level - 1],
      next_level_xp: casino.levelStarts[level] ?? null,
      tier: { code: casino.tierOf(level) },
      currencies: [
        { code: "coins", balance: expected.coins },
        { code: "gems", balance: expected.gems ?? 0 },
      ],
    });
  }

  async function participantId(externalId: string): Promise<string> {
    const response = await api.request("GET", `/v1/participants/${externalId}`);
    expect(response.status).toBe(200);
    return response.body.id;
  }

  /** The participant's deliveries with `status`, newest first, as `reward_code`s with their ids. */
  async function deliveriesOf(externalId: string, status: "pending" | "delivered" | "failed") {
    const id = await participantId(externalId);
    const response = await api.request("GET", `/v1/deliveries?status=${status}&limit=100`);
    expect(response.status).toBe(200);
    return (response.body.deliveries as { id: string; participant_id: string; reward_code: string }[])
      .filter((delivery) => delivery.participant_id === id)
      .map((delivery) => ({ id: delivery.id, reward_code: delivery.reward_code }));
  }

  /** The participant's missions (headless `/v1/me/missions`), by id. */
  async function missionsOf(externalId: string) {
    const response = await api.request("GET", "/v1/me/missions", { participant: externalId });
    expect(response.status).toBe(200);
    return Object.fromEntries(
      (response.body.data as Record<string, any>[]).map((m) => [
        m.id,
        { progress: m.progress, completed: m.completed, claimable: m.claimable, claimed: m.claimed, period_key: m.period_key },
      ]),
    );
  }

  it("computes from the demo configuration the rules these flows rely on", () => {
    // If casino.json changes, this says which reading of it the flows below assume.
    expect(casino.effect("deposit-xp", "grant_xp").amount).toBe("event.amount * 2");
    expect(casino.effect("deposit-coins", "grant_currency")).toEqual({ type: "grant_currency", currency: "coins", amount: "event.amount / 10" });
    expect(casino.rule("deposit-coins").conditions).toEqual([{ field: "amount", op: ">=", value: 50 }]);
    expect(casino.rule("deposit-coins").limits).toEqual({ per_participant_per_day: { runs: 3 } });
    expect(casino.effect("bet-xp", "grant_xp").amount).toBe("event.amount");
    expect(casino.levelStarts.slice(0, 4)).toEqual([0, 1000, 3828, 9024]); // the example in the curve's documentation
  });

  it("plays a player's first two days: every step's XP, coins, levels, tier, missions, rewards and deliveries; every repeat a duplicate", async () => {
    const sent: { event: Record<string, unknown>; result: EventResult }[] = [];
    const play = async (at: Date, event: Record<string, unknown>) => {
      clock.set(at);
      const result = await sendEvent(event);
      expect(result).toMatchObject({ event_id: expect.stringMatching(/^evt_/), duplicate: false });
      sent.push({ event, result });
      return result.effects;
    };
    let xp = 0;
    let coins = 0;
    /** The rewards the casino still has to credit to ana, newest first. */
    const pending: string[] = [];
    /** After every step: ana's XP, level, tier and balances, and her pending deliveries. */
    const expectAna = async () => {
      await expectStanding("ana", { xp, coins });
      expect((await deliveriesOf("ana", "pending")).map((delivery) => delivery.reward_code)).toEqual(pending);
    };

    // Signing up: the welcome bonus.
    const signupCoins = casino.effect("signup-bonus", "grant_currency").amount;
    const signupXp = casino.effect("signup-bonus", "grant_xp").amount;
    expect(await play(minutesAfter(0), { participant: "ana", type: "user.signed_up", id: "ana-signup" })).toEqual([
      { type: "currency_granted", currency: "coins", amount: signupCoins, rule_id: "signup-bonus" },
      { type: "xp_granted", amount: signupXp, rule_id: "signup-bonus" },
    ]);
    xp += signupXp;
    coins += signupCoins;
    await expectAna();

    // Verifying the account: XP, the `verificado` tag and the one-time mission, paid at once (claim auto).
    const verifyXp = casino.effect("verified", "grant_xp").amount;
    const verifyMission = casino.mission("verificar-conta");
    expect(await play(minutesAfter(1), { participant: "ana", type: "user.verified", id: "ana-verify" })).toEqual([
      { type: "xp_granted", amount: verifyXp, rule_id: "verified" },
      { type: "tagged", tag: "verificado", rule_id: "verified" },
      { type: "mission_progressed", mission_id: "verificar-conta", progress: 1, target: verifyMission.goal.target },
      { type: "mission_completed", mission_id: "verificar-conta", period: "once" },
      ...rewardEffects(verifyMission.reward, "mission:verificar-conta"),
    ]);
    xp += verifyXp;
    // coins-200 is an `internal` reward whose payload names coins: granting it pays them.
    expect(rewardCredit(verifyMission.reward)).toEqual({ currency: "coins", amount: 200 });
    coins += 200;
    await expectAna();
    expect((await missionsOf("ana"))["verificar-conta"]).toEqual({ progress: 1, completed: true, claimable: false, claimed: true, period_key: "once" });

    // The first deposit (R$ 100): the first-deposit bonus to be credited by the casino, a badge,
    // XP and coins, the daily deposit mission, and the monthly one (verified players only).
    const firstDeposit = await play(minutesAfter(2), { participant: "ana", type: "deposit.confirmed", id: "ana-dep-1", amount: 100, meta: { method: "pix" } });
    expect(firstDeposit).toEqual([
      rewardGranted("bonus-first-deposit", "first-deposit"),
      { type: "badge_granted", badge_code: "primeiro-deposito", rule_id: "first-deposit" },
      { type: "xp_granted", amount: depositXp(100), rule_id: "deposit-xp" },
      { type: "currency_granted", currency: "coins", amount: depositCoins(100), rule_id: "deposit-coins" },
      { type: "mission_progressed", mission_id: "deposito-diario", progress: 1, target: 1 },
      { type: "mission_completed", mission_id: "deposito-diario", period: "2026-11-18" },
      ...rewardEffects(casino.mission("deposito-diario").reward, "mission:deposito-diario"),
      { type: "mission_progressed", mission_id: "deposito-mensal", progress: 100, target: casino.mission("deposito-mensal").goal.target },
    ]);
    xp += depositXp(100);
    coins += depositCoins(100) + dailyMissionCoins();
    pending.unshift("bonus-first-deposit");
    await expectAna();
    const firstDepositBonus = firstDeposit[0].delivery_id;
    expect(await deliveriesOf("ana", "pending")).toEqual([{ id: firstDepositBonus, reward_code: "bonus-first-deposit" }]);
    const rewards = await api.request("GET", "/v1/me/rewards", { participant: "ana" });
    expect(rewards.body.data.map((r: Record<string, unknown>) => [r.reward_code, r.status, r.source])).toEqual(
      expect.arrayContaining([
        ["bonus-first-deposit", "pending_delivery", "rule:first-deposit"],
        ["coins-50", "granted", "mission:deposito-diario"],
        ["coins-200", "granted", "mission:verificar-conta"],
      ]),
    );

    // A second deposit, its amount a decimal string, crosses into level 2.
    expect(await play(minutesAfter(3), { participant: "ana", type: "deposit.confirmed", id: "ana-dep-2", amount: "400.00" })).toEqual([
      { type: "xp_granted", amount: depositXp(400), rule_id: "deposit-xp" },
      { type: "currency_granted", currency: "coins", amount: depositCoins(400), rule_id: "deposit-coins" },
      { type: "mission_progressed", mission_id: "deposito-mensal", progress: 500, target: 1000 },
      { type: "level_up", from: 1, to: casino.levelOf(xp + depositXp(400)) },
    ]);
    xp += depositXp(400);
    coins += depositCoins(400);
    expect(casino.levelOf(xp)).toBe(2);
    await expectAna();

    // A R$ 500 slots bet: XP, tournament points, and the weekly betting mission completes (claimed by hand).
    const weekly = casino.mission("apostar-500");
    expect(
      await play(minutesAfter(4), {
        participant: "ana",
        type: "bet.placed",
        id: "ana-bet-1",
        amount: 500,
        meta: { game_type: "video-slots", game_id: "pgsoft-fortune-tiger" },
      }),
    ).toEqual([
      { type: "xp_granted", amount: 500, rule_id: "bet-xp" },
      { type: "leaderboard_points", campaign_id: "slots-semanal", points: 500, rule_id: "slots-points" },
      { type: "mission_progressed", mission_id: "apostar-500", progress: weekly.goal.target, target: weekly.goal.target },
      { type: "mission_completed", mission_id: "apostar-500", period: "2026-W47" },
      { type: "mission_progressed", mission_id: "slots-50", progress: 1, target: casino.mission("slots-50").goal.target },
    ]);
    xp += 500;
    await expectAna();
    expect((await missionsOf("ana"))["apostar-500"]).toEqual({ progress: 500, completed: true, claimable: true, claimed: false, period_key: "2026-W47" });

    // Claiming it grants free spins the casino must credit; a second claim is refused.
    clock.set(minutesAfter(5));
    const claim = await api.request("POST", "/v1/me/missions/apostar-500/claim", { participant: "ana" });
    expect(claim.status).toBe(200);
    expect(claim.body).toMatchObject({
      mission_id: "apostar-500",
      period_key: "2026-W47",
      reward_granted: { reward_code: weekly.reward, reward_id: REWARD_ID, delivery_id: DELIVERY_ID },
      effects: [rewardGranted(weekly.reward, "mission:apostar-500")],
    });
    expectError(await api.request("POST", "/v1/me/missions/apostar-500/claim", { participant: "ana" }), 409, "already_claimed");
    pending.unshift(weekly.reward);
    await expectAna();
    expect((await deliveriesOf("ana", "pending"))[0].id).toBe(claim.body.reward_granted.delivery_id);
    expect((await missionsOf("ana"))["apostar-500"]).toMatchObject({ claimable: false, claimed: true });

    // bet-xp grants at most 5000 XP a club day: 500 were granted, so a R$ 4600 bet gets 4500, and a level.
    const dailyXp = casino.rule("bet-xp").limits.per_participant_per_day.xp;
    const before = casino.levelOf(xp);
    expect(await play(minutesAfter(6), { participant: "ana", type: "bet.placed", id: "ana-bet-2", amount: 4600, meta: { game_type: "video-slots" } })).toEqual([
      { type: "xp_granted", amount: dailyXp - 500, rule_id: "bet-xp" },
      { type: "leaderboard_points", campaign_id: "slots-semanal", points: 4600, rule_id: "slots-points" },
      // apostar-500 is complete for the week and does not move.
      { type: "mission_progressed", mission_id: "slots-50", progress: 2, target: 50 },
      { type: "level_up", from: before, to: casino.levelOf(xp + dailyXp - 500) },
    ]);
    xp += dailyXp - 500;
    expect(casino.levelOf(xp)).toBe(3);
    // …and the next bet that day gets none.
    expect(await play(minutesAfter(7), { participant: "ana", type: "bet.placed", id: "ana-bet-3", amount: 10, meta: { game_type: "video-slots" } })).toEqual([
      { type: "leaderboard_points", campaign_id: "slots-semanal", points: 10, rule_id: "slots-points" },
      { type: "mission_progressed", mission_id: "slots-50", progress: 3, target: 50 },
    ]);
    await expectAna();
    const boards = await api.request("GET", "/v1/me/leaderboards", { participant: "ana" });
    expect(boards.body.data).toEqual([expect.objectContaining({ campaign_id: "slots-semanal", points: 500 + 4600 + 10, rank: 1 })]);

    // A R$ 60,000 deposit: the third deposit-coins run today, the monthly mission completes,
    // and seven levels at once carry ana from Bronze into Prata.
    const bigXp = depositXp(60000);
    const levelBefore = casino.levelOf(xp);
    expect(await play(minutesAfter(8), { participant: "ana", type: "deposit.confirmed", id: "ana-dep-3", amount: 60000 })).toEqual([
      { type: "xp_granted", amount: bigXp, rule_id: "deposit-xp" },
      { type: "currency_granted", currency: "coins", amount: depositCoins(60000), rule_id: "deposit-coins" },
      { type: "mission_progressed", mission_id: "deposito-mensal", progress: 1000, target: 1000 },
      { type: "mission_completed", mission_id: "deposito-mensal", period: "2026-11" },
      { type: "level_up", from: levelBefore, to: casino.levelOf(xp + bigXp) },
      { type: "tier_changed", from: "bronze", to: casino.tierOf(casino.levelOf(xp + bigXp)) },
    ]);
    xp += bigXp;
    coins += depositCoins(60000);
    expect([casino.levelOf(xp), casino.tierOf(casino.levelOf(xp))]).toEqual([10, "prata"]);
    await expectAna();

    // The fourth deposit of the club day: deposit-coins has run its 3 times today.
    expect(await play(minutesAfter(9), { participant: "ana", type: "deposit.confirmed", id: "ana-dep-4", amount: 50 })).toEqual([
      { type: "xp_granted", amount: depositXp(50), rule_id: "deposit-xp" },
    ]);
    xp += depositXp(50);
    await expectAna();

    // The next club day: the daily limit and the daily mission start over; the monthly one stays done.
    const nextDay = await play(THURSDAY, { participant: "ana", type: "deposit.confirmed", id: "ana-dep-5", amount: 50 });
    expect(nextDay).toEqual([
      { type: "xp_granted", amount: depositXp(50), rule_id: "deposit-xp" },
      { type: "currency_granted", currency: "coins", amount: depositCoins(50), rule_id: "deposit-coins" },
      { type: "mission_progressed", mission_id: "deposito-diario", progress: 1, target: 1 },
      { type: "mission_completed", mission_id: "deposito-diario", period: "2026-11-19" },
      ...rewardEffects("coins-50", "mission:deposito-diario"),
    ]);
    xp += depositXp(50);
    coins += depositCoins(50) + dailyMissionCoins();
    await expectAna();

    // Claiming the monthly mission: a R$ 20 bonus the casino credits.
    const monthly = await api.request("POST", "/v1/me/missions/deposito-mensal/claim", { participant: "ana" });
    expect(monthly.status).toBe(200);
    expect(monthly.body.effects).toEqual([rewardGranted(casino.mission("deposito-mensal").reward, "mission:deposito-mensal")]);
    pending.unshift("bonus-20");
    await expectAna();

    // Every event sent again, a day later: a duplicate with the first answer's effects (ids included), and nothing changes.
    const profileBefore = (await api.request("GET", "/v1/participants/ana")).body;
    const pendingBefore = await deliveriesOf("ana", "pending");
    clock.set(minutesAfter(24 * 60, THURSDAY));
    for (const { event, result } of sent) {
      expect(await sendEvent(event)).toEqual({ ...result, duplicate: true });
    }
    // The same with the Idempotency-Key header naming the event instead of its `id`.
    const { event: lastEvent, result: lastResult } = sent.at(-1)!;
    expect(await sendEvent({ ...lastEvent, id: undefined }, { "Idempotency-Key": lastEvent.id as string })).toEqual({ ...lastResult, duplicate: true });
    expect((await api.request("GET", "/v1/participants/ana")).body).toEqual(profileBefore);
    expect(await deliveriesOf("ana", "pending")).toEqual(pendingBefore);
  });

  it("applies one event sent 20 times at once exactly once", async () => {
    clock.set(WEDNESDAY);
    const event = { participant: "bruno", type: "deposit.confirmed", id: "bruno-dep-1", amount: 100 };
    // bruno does not exist yet: the concurrent requests also race to create him.
    const responses = await Promise.all(Array.from({ length: 20 }, () => api.request("POST", "/v1/events", { body: event })));
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    const results = responses.map((response) => response.body as EventResult);
    const first = results.filter((result) => !result.duplicate);
    expect(first).toHaveLength(1);
    for (const result of results) expect(result).toEqual({ ...first[0], duplicate: result.duplicate });
    await expectStanding("bruno", { xp: depositXp(100), coins: depositCoins(100) + dailyMissionCoins() });
    expect(await deliveriesOf("bruno", "pending")).toEqual([{ id: first[0].effects[0].delivery_id, reward_code: "bonus-first-deposit" }]);
  });

  it("adds up 30 different events sent at once for one participant, daily limits holding", async () => {
    clock.set(WEDNESDAY);
    expect((await api.request("POST", "/v1/participants", { body: { external_id: "carla" } })).status).toBe(200);
    const amounts = Array.from({ length: 30 }, (_, i) => 50 + i);
    const responses = await Promise.all(
      amounts.map((amount, i) =>
        api.request("POST", "/v1/events", { body: { participant: "carla", type: "deposit.confirmed", id: `carla-dep-${i}`, amount } }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(30).fill(200));
    const effects = responses.flatMap((response) => (response.body as EventResult).effects);
    const total = (type: string, ruleId?: string) =>
      effects
        .filter((effect) => effect.type === type && (ruleId === undefined || effect.rule_id === ruleId))
        .reduce((sum, effect) => sum + ("amount" in effect ? effect.amount : 0), 0);
    const count = (predicate: (effect: Effect) => boolean) => effects.filter(predicate).length;

    expect(total("xp_granted")).toBe(amounts.reduce((sum, amount) => sum + depositXp(amount), 0));
    // Whichever three ran first got deposit-coins: never a fourth, however the requests interleaved.
    expect(count((effect) => effect.rule_id === "deposit-coins")).toBe(3);
    expect(count((effect) => effect.type === "reward_granted" && effect.rule_id === "first-deposit")).toBe(1);
    expect(count((effect) => effect.type === "mission_completed" && effect.mission_id === "deposito-diario")).toBe(1);
    await expectStanding("carla", { xp: total("xp_granted"), coins: total("currency_granted") });
  });

  it("lets only one of two concurrent redemptions spend a balance too small for both", async () => {
    clock.set(WEDNESDAY);
    const price = casino.reward("store-bonus-10").cost;
    expect(price).toEqual({ currency: "coins", amount: 1000 });
    // R$ 15,000 → 1500 coins, plus the daily deposit mission's 50: one reward's price, not two.
    await sendEvent({ participant: "davi", type: "deposit.confirmed", id: "davi-dep-1", amount: 15000 });
    const coins = depositCoins(15000) + dailyMissionCoins();
    await expectStanding("davi", { xp: depositXp(15000), coins });

    const redeem = (key: string) =>
      api.request("POST", "/v1/redemptions", { body: { participant: "davi", reward: "store-bonus-10" }, headers: { "Idempotency-Key": key } });
    const [a, b] = await Promise.all([redeem("davi-loja-0001"), redeem("davi-loja-0002")]);
    const [won, lost] = a.status === 200 ? [a, b] : [b, a];
    expect(won.status).toBe(200);
    expect(won.body).toMatchObject({
      reward_code: "store-bonus-10",
      cost: { currency: price.currency, amount: price.amount },
      balance_after: coins - price.amount,
      delivery_status: "pending",
      duplicate: false,
    });
    expectError(lost, 409, "insufficient_balance");
    await expectStanding("davi", { xp: depositXp(15000), coins: coins - price.amount });
    const redeemed = won.body.effects.find((effect: Effect) => effect.type === "reward_granted");
    expect((await deliveriesOf("davi", "pending")).filter((delivery) => delivery.reward_code === "store-bonus-10")).toEqual([
      { id: redeemed.delivery_id, reward_code: "store-bonus-10" },
    ]);

    // The winner's key again: its stored answer, nothing spent.
    const winnerKey = a.status === 200 ? "davi-loja-0001" : "davi-loja-0002";
    const repeat = await redeem(winnerKey);
    expect(repeat.status).toBe(200);
    expect(repeat.body).toEqual({ ...won.body, duplicate: true });
    await expectStanding("davi", { xp: depositXp(15000), coins: coins - price.amount });
  });

  it("takes a redemption Idempotency-Key of 8 to 120 characters", async () => {
    clock.set(WEDNESDAY);
    await sendEvent({ participant: "elis", type: "deposit.confirmed", id: "elis-dep-1", amount: 30000 });
    const redeem = (key: string) =>
      api.request("POST", "/v1/redemptions", { body: { participant: "elis", reward: "store-bonus-10" }, headers: { "Idempotency-Key": key } });
    expectError(await redeem("k".repeat(7)), 422, "validation_failed", "idempotency-key");
    expectError(await redeem("k".repeat(121)), 422, "validation_failed", "idempotency-key");
    for (const key of ["k".repeat(8), "k".repeat(120)]) {
      const response = await redeem(key);
      expect(response.status).toBe(200);
      expect(response.body.duplicate).toBe(false);
    }
    // Two redemptions of 1000 coins each from 3000.
    await expectStanding("elis", { xp: depositXp(30000), coins: depositCoins(30000) + dailyMissionCoins() - 2000 });
  });

  it("follows the delivery state table", async () => {
    clock.set(WEDNESDAY);
    // A first deposit and two store purchases: three pending deliveries.
    const deposit = await sendEvent({ participant: "fabi", type: "deposit.confirmed", id: "fabi-dep-1", amount: 20000 });
    const bonus = deposit.effects[0].delivery_id as string;
    const purchase = async (key: string) => {
      const response = await api.request("POST", "/v1/redemptions", {
        body: { participant: "fabi", reward: "store-bonus-10" },
        headers: { "Idempotency-Key": key },
      });
      expect(response.status).toBe(200);
      return response.body.effects.find((effect: Effect) => effect.type === "reward_granted").delivery_id as string;
    };
    const second = await purchase("fabi-compra-1");
    const third = await purchase("fabi-compra-2");
    expect((await deliveriesOf("fabi", "pending")).map((delivery) => delivery.id).sort()).toEqual([bonus, second, third].sort());
    const confirm = (id: string, body?: unknown) => api.request("POST", `/v1/deliveries/${id}/confirm`, { body });
    const fail = (id: string, body: unknown) => api.request("POST", `/v1/deliveries/${id}/fail`, { body });

    // pending → confirm → delivered, with the longest external_ref and the most spins the contract allows.
    const confirmedAt = minutesAfter(10);
    clock.set(confirmedAt);
    const details = { spins: 10000, game: "Fortune Tiger", game_code: "fortune-tiger", play_url: "https://cassino.example.com/jogar/fortune-tiger" };
    const delivered = await confirm(bonus, { external_ref: "r".repeat(200), details });
    expect(delivered.status).toBe(200);
    expect(delivered.body).toMatchObject({
      id: bonus,
      status: "delivered",
      reward_code: "bonus-first-deposit",
      external_ref: "r".repeat(200),
      fail_reason: null,
      confirmed_at: confirmedAt.toISOString(),
    });
    // delivered → confirm again → 200, unchanged (the client may repeat it safely).
    clock.set(minutesAfter(11));
    const again = await confirm(bonus, { external_ref: "outro-ref" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(delivered.body);
    expect((await confirm(bonus)).body).toEqual(delivered.body);
    // delivered → fail → 409 already_closed.
    expectError(await fail(bonus, { reason: "Conta bloqueada" }), 409, "already_closed");

    // pending → fail → failed, with the longest reason allowed.
    const failed = await fail(second, { reason: "m".repeat(500) });
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({ id: second, status: "failed", fail_reason: "m".repeat(500), confirmed_at: null, external_ref: null });
    // failed → confirm or fail → 409 already_closed.
    expectError(await confirm(second), 409, "already_closed");
    expectError(await fail(second, { reason: "De novo" }), 409, "already_closed");

    // The bounds, refused before anything changes: the third delivery stays pending.
    expectError(await confirm(third, { external_ref: "r".repeat(201) }), 422, "validation_failed", "external_ref");
    expectError(await confirm(third, { details: { spins: 10001 } }), 422, "validation_failed", "spins");
    expectError(await confirm(third, { details: { spins: 0 } }), 422, "validation_failed", "spins");
    expectError(await fail(third, { reason: "" }), 422, "validation_failed", "reason");
    expectError(await fail(third, { reason: "m".repeat(501) }), 422, "validation_failed", "reason");
    expectError(await confirm("dlv_inexistente"), 404, "not_found");
    expectError(await fail("dlv_inexistente", { reason: "Duplicado" }), 404, "not_found");
    const spinsOne = await confirm(third, { details: { spins: 1 } });
    expect(spinsOne.body).toMatchObject({ id: third, status: "delivered", external_ref: null });

    // What the participant and club staff see.
    expect(await deliveriesOf("fabi", "pending")).toEqual([]);
    expect((await deliveriesOf("fabi", "failed")).map((delivery) => delivery.id)).toEqual([second]);
    const rewards = await api.request("GET", "/v1/me/rewards", { participant: "fabi" });
    const byDelivery = new Map(rewards.body.data.map((reward: Record<string, unknown>) => [reward.delivery_id, reward.status]));
    expect([byDelivery.get(bonus), byDelivery.get(second), byDelivery.get(third)]).toEqual(["delivered", "delivery_failed", "delivered"]);
    const warnings = await api.request("GET", "/v1/warnings?kind=delivery_failed");
    expect(warnings.body.data.filter((warning: Record<string, unknown>) => warning.subject_id === second)).toHaveLength(1);
  });

  it("qualifies a referral once the referred player deposits minAmount, paying both sides", async () => {
    clock.set(WEDNESDAY);
    const program = casino.config.referral;
    expect(program).toMatchObject({ referrerReward: "coins:500", referredReward: "coins:200", qualifyEvent: "deposit.confirmed", minAmount: 30 });
    expect((await api.request("POST", "/v1/participants", { body: { external_id: "gabi", display_name: "Gabriela Lima" } })).status).toBe(200);
    const code = (await api.request("GET", "/v1/me/referral", { participant: "gabi" })).body.code;
    const registered = await api.request("POST", "/v1/referrals", { body: { referred_external_id: "hugo", code } });
    expect(registered.status).toBe(201);
    expect(registered.body).toEqual({ id: expect.any(String), status: "pending" });
    const referralRule = `referral:${registered.body.id}`;

    // One cent under minAmount: nothing qualifies.
    const under = await sendEvent({ participant: "hugo", type: "deposit.confirmed", id: "hugo-dep-1", amount: "29.99" });
    expect(under.effects.filter((effect) => effect.rule_id === referralRule)).toEqual([]);
    expect((await api.request("GET", "/v1/me/referral", { participant: "gabi" })).body.stats).toMatchObject({ invited: 1, qualified: 0 });

    // At minAmount: the referred player's reward comes with the event's effects, the referrer's to the referrer.
    const at = await sendEvent({ participant: "hugo", type: "deposit.confirmed", id: "hugo-dep-2", amount: 30 });
    expect(at.effects).toContainEqual({ type: "currency_granted", currency: "coins", amount: 200, rule_id: referralRule });
    await expectStanding("gabi", { xp: 0, coins: 500 });
    const state = (await api.request("GET", "/v1/me/referral", { participant: "gabi" })).body;
    expect(state.stats).toMatchObject({ invited: 1, qualified: 1 });
    expect(state.friends).toEqual([expect.objectContaining({ status: "qualified" })]);
  });

  it("answers a batch of 500 events in order, and refuses 0 or 501", { timeout: 120_000 }, async () => {
    clock.set(WEDNESDAY);
    // Slots bets of 1..10: each one's XP is its amount (500 bets stay under bet-xp's daily 5000), and
    // slots-50 counts them one by one, so each result shows which event it answers.
    const events = Array.from({ length: 500 }, (_, i) => ({
      participant: "igor",
      type: "bet.placed",
      id: `igor-bet-${String(i).padStart(3, "0")}`,
      amount: (i % 10) + 1,
      meta: { game_type: "video-slots" },
    }));
    const response = await api.request("POST", "/v1/events/batch", { body: { events } });
    expect(response.status).toBe(200);
    const results = response.body.results as EventResult[];
    expect(results).toHaveLength(500);
    results.forEach((result, i) => {
      expect(result.duplicate).toBe(false);
      expect(result.effects[0]).toEqual({ type: "xp_granted", amount: events[i].amount, rule_id: "bet-xp" });
      if (i < 50) expect(result.effects).toContainEqual({ type: "mission_progressed", mission_id: "slots-50", progress: i + 1, target: 50 });
    });
    expect(new Set(results.map((result) => result.event_id)).size).toBe(500);
    // The 50th slots bet completes slots-50, whose internal reward pays coins.
    await expectStanding("igor", { xp: events.reduce((sum, event) => sum + event.amount, 0), coins: rewardCredit(casino.mission("slots-50").reward)!.amount });

    const oneMore = [...events, { participant: "igor", type: "bet.placed", id: "igor-bet-500", amount: 1, meta: {} }];
    expectError(await api.request("POST", "/v1/events/batch", { body: { events: oneMore } }), 422, "validation_failed", "body.events");
    expectError(await api.request("POST", "/v1/events/batch", { body: { events: [] } }), 422, "validation_failed", "body.events");
  });
});
