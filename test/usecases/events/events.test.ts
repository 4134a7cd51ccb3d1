import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { schemaValidators } from "../../../generated/validators.js";
import {
  CurrencyLot,
  Delivery,
  Event,
  Job,
  MissionProgress,
  Notification,
  OutboxMessage,
  RuleDedupeKey,
  RuleRunDay,
} from "../../../server/src/db/entities/index.js";
import { embeddedQueueOf, openEmbeddedQueue } from "../../../server/src/jobs/embedded.js";
import { ingestBatch, ingestEvent, processQueuedEvent, queuedEventIds, queueEvents, type EventResult } from "../../../server/src/usecases/events/ingest.js";
import { EVENT_QUEUE, handEventsToEmbeddedQueue } from "../../../server/src/workers.js";
import { describeEachDatabase } from "../../support/databases.js";
import { balancesOf, eventInput, ledgerSums, participantRow, PUBLIC_URL, recordedWebhooks } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { demoConfig } from "../../support/club-config.js";

/** A Wednesday, 09:00 in São Paulo: club day 2026-11-18, ISO week 2026-W47, month 2026-11. */
const WEDNESDAY = new Date("2026-11-18T12:00:00Z");
const later = (seconds: number, from = WEDNESDAY) => new Date(from.getTime() + seconds * 1000);

describeEachDatabase("event ingestion", (kind) => {
  let club: DatabaseClub;

  beforeAll(async () => {
    club = await openTestClub(kind);
  });
  afterAll(async () => {
    await club?.close();
  });

  async function send(input: Record<string, unknown>, now: Date, idempotencyKey?: string): Promise<EventResult> {
    const result = await ingestEvent(club.db, club.scope, eventInput(input), { now, publicUrl: PUBLIC_URL, idempotencyKey });
    expect(schemaValidators.EventResult(structuredClone(result)), JSON.stringify(schemaValidators.EventResult.errors)).toBe(true);
    return result;
  }

  /** The participant's stored state, and the invariant that every balance (and XP) is the sum of its ledger. */
  async function stateOf(externalId: string) {
    const participant = await participantRow(club.db, club.scope, externalId);
    const balances = await balancesOf(club.db, participant.id);
    const ledger = await ledgerSums(club.db, participant.id);
    expect(ledger).toEqual({ ...balances, ...(participant.xp === 0 && ledger.xp === undefined ? {} : { xp: participant.xp }) });
    return {
      id: participant.id,
      xp: participant.xp,
      level: participant.level,
      tier: participant.tierCode,
      tags: participant.tags,
      balances,
      eventCounts: participant.eventCounts,
    };
  }

  async function missionOf(participantId: string, missionId: string) {
    const row = await club.db.em().findOne(MissionProgress, { participantId, missionId });
    return row && { period: row.periodKey, progress: row.progress, completed: row.completedAt !== null, claimed: row.claimedAt !== null };
  }

  async function webhooksAbout(externalId: string) {
    return (await recordedWebhooks(club.db, club.scope)).filter((hook) => (hook.data.participant as { external_id: string }).external_id === externalId);
  }

  it("a player's first day at the casino: XP, coins, gems, level-ups, a tier change, missions, rewards and deliveries", async () => {
    // Signing up creates the participant and pays the welcome bonus.
    const signup = await send({ participant: "ana", type: "user.signed_up", id: "signup-ana" }, WEDNESDAY);
    expect(signup).toEqual({
      event_id: expect.stringMatching(/^evt_/),
      duplicate: false,
      effects: [
        { type: "currency_granted", currency: "coins", amount: 100, rule_id: "signup-bonus" },
        { type: "xp_granted", amount: 50, rule_id: "signup-bonus" },
      ],
    });
    const ana = await stateOf("ana");
    expect(ana).toMatchObject({ xp: 50, level: 1, tier: "bronze", balances: { coins: 100 }, eventCounts: { "user.signed_up": 1 } });
    expect((await webhooksAbout("ana")).map((hook) => hook.type)).toEqual(["participant.created"]);

    // Verifying the account: XP, a tag, and the one-time mission paid automatically.
    const verified = await send({ participant: "ana", type: "user.verified", id: "verify-ana" }, later(60));
    expect(verified.effects).toEqual([
      { type: "xp_granted", amount: 200, rule_id: "verified" },
      { type: "tagged", tag: "verificado", rule_id: "verified" },
      { type: "mission_progressed", mission_id: "verificar-conta", progress: 1, target: 1 },
      { type: "mission_completed", mission_id: "verificar-conta", period: "once" },
      { type: "reward_granted", reward_code: "coins-200", rule_id: "mission:verificar-conta", reward_id: expect.stringMatching(/^rwd_/) },
      // coins-200 is an internal reward whose payload names coins: it pays them.
      { type: "currency_granted", currency: "coins", amount: 200, rule_id: "mission:verificar-conta" },
    ]);
    expect(await stateOf("ana")).toMatchObject({ xp: 250, level: 1, tags: ["verificado"], balances: { coins: 300 } });
    expect(await missionOf(ana.id, "verificar-conta")).toEqual({ period: "once", progress: 1, completed: true, claimed: true });

    // The first deposit: the first-deposit bonus must be credited by the casino (a pending delivery).
    const firstDeposit = await send({ participant: "ana", type: "deposit.confirmed", id: "dep-1", amount: 100, meta: { method: "pix" } }, later(120));
    const bonus = firstDeposit.effects[0] as { reward_id: string; delivery_id: string };
    expect(firstDeposit.effects).toEqual([
      {
        type: "reward_granted",
        reward_code: "bonus-first-deposit",
        rule_id: "first-deposit",
        reward_id: expect.stringMatching(/^rwd_/),
        delivery_id: expect.stringMatching(/^dlv_/),
      },
      { type: "badge_granted", badge_code: "primeiro-deposito", rule_id: "first-deposit" },
      { type: "xp_granted", amount: 200, rule_id: "deposit-xp" },
      { type: "currency_granted", currency: "coins", amount: 10, rule_id: "deposit-coins" },
      { type: "mission_progressed", mission_id: "deposito-diario", progress: 1, target: 1 },
      { type: "mission_completed", mission_id: "deposito-diario", period: "2026-11-18" },
      { type: "reward_granted", reward_code: "coins-50", rule_id: "mission:deposito-diario", reward_id: expect.stringMatching(/^rwd_/) },
      { type: "currency_granted", currency: "coins", amount: 50, rule_id: "mission:deposito-diario" },
      // Only for verified players (audienceTag), summing deposits over the month.
      { type: "mission_progressed", mission_id: "deposito-mensal", progress: 100, target: 1000 },
    ]);
    expect(await stateOf("ana")).toMatchObject({ xp: 450, level: 1, balances: { coins: 360 } });
    const delivery = await club.db.em().findOneOrFail(Delivery, { id: bonus.delivery_id });
    expect(delivery).toMatchObject({ participantId: ana.id, participantRewardId: bonus.reward_id, rewardCode: "bonus-first-deposit", status: "pending" });
    const depositHooks = (await webhooksAbout("ana")).slice(-4);
    expect(depositHooks).toEqual([
      {
        type: "reward.granted",
        data: {
          participant: { id: ana.id, external_id: "ana" },
          reward: { id: bonus.reward_id, code: "bonus-first-deposit", title: "Bônus de primeiro depósito", type: "client_delivered" },
          source: "rule:first-deposit",
          delivery_id: bonus.delivery_id,
          expires_at: null,
        },
      },
      {
        type: "reward.delivery_requested",
        data: {
          participant: { id: ana.id, external_id: "ana" },
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
            confirm_url: `${PUBLIC_URL}/v1/deliveries/${bonus.delivery_id}/confirm`,
            fail_url: `${PUBLIC_URL}/v1/deliveries/${bonus.delivery_id}/fail`,
          },
        },
      },
      {
        type: "reward.granted",
        data: {
          participant: { id: ana.id, external_id: "ana" },
          reward: { id: (firstDeposit.effects[6] as { reward_id: string }).reward_id, code: "coins-50", title: "50 moedas", type: "internal" },
          source: "mission:deposito-diario",
          delivery_id: null,
          expires_at: null,
        },
      },
      {
        type: "mission.completed",
        data: { participant: { id: ana.id, external_id: "ana" }, mission_id: "deposito-diario", period_key: "2026-11-18", reward_code: "coins-50" },
      },
    ]);

    // A second deposit (amount as a decimal string) crosses level 2.
    const secondDeposit = await send({ participant: "ana", type: "deposit.confirmed", id: "dep-2", amount: "400.00" }, later(180));
    expect(secondDeposit.effects).toEqual([
      { type: "xp_granted", amount: 800, rule_id: "deposit-xp" },
      { type: "currency_granted", currency: "coins", amount: 40, rule_id: "deposit-coins" },
      { type: "mission_progressed", mission_id: "deposito-mensal", progress: 500, target: 1000 },
      { type: "level_up", from: 1, to: 2 },
    ]);
    expect(await stateOf("ana")).toMatchObject({ xp: 1250, level: 2, tier: "bronze", balances: { coins: 400 } });
    expect((await webhooksAbout("ana")).at(-1)).toEqual({ type: "level.up", data: { participant: { id: ana.id, external_id: "ana" }, level: 2, from: 1 } });

    // Bets in three game categories.
    const slots = await send(
      { participant: "ana", type: "bet.placed", id: "bet-1", amount: 50, meta: { game_id: "pgsoft-fortune-tiger", game_type: "video-slots" } },
      later(240),
    );
    expect(slots.effects).toEqual([
      { type: "xp_granted", amount: 50, rule_id: "bet-xp" },
      { type: "leaderboard_points", campaign_id: "slots-semanal", points: 50, rule_id: "slots-points" },
      { type: "mission_progressed", mission_id: "apostar-500", progress: 50, target: 500 },
      { type: "mission_progressed", mission_id: "slots-50", progress: 1, target: 50 },
    ]);
    const live = await send({ participant: "ana", type: "bet.placed", id: "bet-2", amount: "30.50", meta: { game_type: "live-casino" } }, later(300));
    expect(live.effects).toEqual([
      { type: "xp_granted", amount: 30, rule_id: "bet-xp" },
      { type: "currency_granted", currency: "gems", amount: 1, rule_id: "live-casino-gems" },
      { type: "mission_progressed", mission_id: "apostar-500", progress: 80.5, target: 500 },
    ]);
    // Gems expire: the grant is a lot that expires 90 days later.
    const lots = await club.db.em().find(CurrencyLot, { participantId: ana.id });
    expect(lots.map((lot) => ({ currency: lot.currency, granted: lot.granted, remaining: lot.remaining, expiresAt: lot.expiresAt?.toISOString() }))).toEqual([
      { currency: "gems", granted: 1, remaining: 1, expiresAt: "2027-02-16T12:05:00.000Z" },
    ]);
    // A crash bet advances crash-10 once: the mission's own event match counts it (no rule adds a second count).
    const crash = await send({ participant: "ana", type: "bet.placed", id: "bet-3", amount: 10, meta: { game_type: "crash" } }, later(360));
    expect(crash.effects).toEqual([
      { type: "xp_granted", amount: 10, rule_id: "bet-xp" },
      { type: "mission_progressed", mission_id: "apostar-500", progress: 90.5, target: 500 },
      { type: "mission_progressed", mission_id: "crash-10", progress: 1, target: 10 },
    ]);
    expect(await missionOf(ana.id, "crash-10")).toEqual({ period: "2026-W47", progress: 1, completed: false, claimed: false });

    // A big win settles: badge and tag; a loss settles with nothing.
    const win = await send({ participant: "ana", type: "bet.settled", id: "settle-1", amount: 1500, meta: { game_type: "video-slots" } }, later(420));
    expect(win.effects).toEqual([
      { type: "badge_granted", badge_code: "grande-vitoria", rule_id: "big-win" },
      { type: "tagged", tag: "high-roller", rule_id: "big-win" },
    ]);
    const loss = await send({ participant: "ana", type: "bet.settled", id: "settle-2", amount: 0, meta: { outcome: "lost" } }, later(480));
    expect(loss.effects).toEqual([]);
    expect(await stateOf("ana")).toMatchObject({ xp: 1340, level: 2, tags: ["verificado", "high-roller"], balances: { coins: 400, gems: 1 } });

    // A large deposit: eight levels at once into Prata, and the monthly mission completes (claimed by hand).
    const bigDeposit = await send({ participant: "ana", type: "deposit.confirmed", id: "dep-3", amount: 60000 }, later(540));
    expect(bigDeposit.effects).toEqual([
      { type: "xp_granted", amount: 120000, rule_id: "deposit-xp" },
      { type: "currency_granted", currency: "coins", amount: 6000, rule_id: "deposit-coins" },
      { type: "mission_progressed", mission_id: "deposito-mensal", progress: 1000, target: 1000 },
      { type: "mission_completed", mission_id: "deposito-mensal", period: "2026-11" },
      { type: "level_up", from: 2, to: 10 },
      { type: "tier_changed", from: "bronze", to: "prata" },
    ]);
    expect(await stateOf("ana")).toMatchObject({ xp: 121340, level: 10, tier: "prata", balances: { coins: 6400, gems: 1 } });
    // What the monthly tier review reads: the highest level of the month, and the level held before it.
    expect(await participantRow(club.db, club.scope, "ana")).toMatchObject({ peakMonth: "2026-11", peakLevel: 10, priorMonthPeakLevel: 1 });
    expect((await webhooksAbout("ana")).slice(-3)).toEqual([
      {
        type: "mission.completed",
        data: { participant: { id: ana.id, external_id: "ana" }, mission_id: "deposito-mensal", period_key: "2026-11", reward_code: null },
      },
      { type: "level.up", data: { participant: { id: ana.id, external_id: "ana" }, level: 10, from: 2 } },
      {
        type: "tier.changed",
        data: { participant: { id: ana.id, external_id: "ana" }, from: { code: "bronze", name: "Bronze" }, to: { code: "prata", name: "Prata" } },
      },
    ]);

    // The fourth deposit of the day: deposit-coins runs at most 3 times a club day.
    const fourth = await send({ participant: "ana", type: "deposit.confirmed", id: "dep-4", amount: 50 }, later(600));
    expect(fourth.effects).toEqual([{ type: "xp_granted", amount: 100, rule_id: "deposit-xp" }]);

    // The next club day (after midnight in São Paulo): the daily limit and the daily mission start over.
    const thursday = new Date("2026-11-19T03:30:00Z");
    const nextDay = await send({ participant: "ana", type: "deposit.confirmed", id: "dep-5", amount: 50 }, thursday);
    expect(nextDay.effects).toEqual([
      { type: "xp_granted", amount: 100, rule_id: "deposit-xp" },
      { type: "currency_granted", currency: "coins", amount: 5, rule_id: "deposit-coins" },
      { type: "mission_progressed", mission_id: "deposito-diario", progress: 1, target: 1 },
      { type: "mission_completed", mission_id: "deposito-diario", period: "2026-11-19" },
      { type: "reward_granted", reward_code: "coins-50", rule_id: "mission:deposito-diario", reward_id: expect.stringMatching(/^rwd_/) },
      { type: "currency_granted", currency: "coins", amount: 50, rule_id: "mission:deposito-diario" },
    ]);
    expect(await stateOf("ana")).toMatchObject({ xp: 121540, level: 10, balances: { coins: 6455, gems: 1 } });

    // The inbox got the level-ups, the completed missions and the rewards.
    const inbox = await club.db.em().find(Notification, { participantId: ana.id });
    expect(inbox.filter((notice) => notice.kind === "level_up").map((notice) => notice.title)).toEqual([
      "Você subiu para o Nível 2!",
      "Você subiu para o Nível 10!",
    ]);
    expect(inbox.filter((notice) => notice.kind === "mission_completed")).toHaveLength(4);
    expect(inbox.filter((notice) => notice.kind === "reward_granted")).toHaveLength(4);

    // Every repeat of each event is a duplicate with the first effects, and changes nothing.
    const before = await stateOf("ana");
    const webhookCount = (await recordedWebhooks(club.db, club.scope)).length;
    const sent: [Record<string, unknown>, EventResult][] = [
      [{ participant: "ana", type: "user.signed_up", id: "signup-ana" }, signup],
      [{ participant: "ana", type: "user.verified", id: "verify-ana" }, verified],
      [{ participant: "ana", type: "deposit.confirmed", id: "dep-1", amount: 100, meta: { method: "pix" } }, firstDeposit],
      [{ participant: "ana", type: "deposit.confirmed", id: "dep-2", amount: "400.00" }, secondDeposit],
      [{ participant: "ana", type: "bet.placed", id: "bet-1", amount: 50, meta: { game_type: "video-slots" } }, slots],
      [{ participant: "ana", type: "bet.placed", id: "bet-2", amount: "30.50", meta: { game_type: "live-casino" } }, live],
      [{ participant: "ana", type: "bet.placed", id: "bet-3", amount: 10, meta: { game_type: "crash" } }, crash],
      [{ participant: "ana", type: "bet.settled", id: "settle-1", amount: 1500 }, win],
      [{ participant: "ana", type: "bet.settled", id: "settle-2", amount: 0 }, loss],
      [{ participant: "ana", type: "deposit.confirmed", id: "dep-3", amount: 60000 }, bigDeposit],
      [{ participant: "ana", type: "deposit.confirmed", id: "dep-4", amount: 50 }, fourth],
      [{ participant: "ana", type: "deposit.confirmed", id: "dep-5", amount: 50 }, nextDay],
    ];
    for (const [input, first] of sent) {
      expect(await send(input, later(86400))).toEqual({ ...first, duplicate: true });
    }
    expect(await stateOf("ana")).toEqual(before);
    expect(await recordedWebhooks(club.db, club.scope)).toHaveLength(webhookCount);
    // Each repeat is logged as its own row, pointing at the event it repeats.
    const repeats = await club.db.em().find(Event, { participantId: ana.id, duplicateOf: { $ne: null } });
    expect(repeats).toHaveLength(sent.length);
    expect(repeats.every((row) => row.idempotencyKey === null && row.effectsCount === 0)).toBe(true);
  });

  it("stores the event with its effects, amount as sent and in exact hundredths", async () => {
    const result = await send(
      { participant: "bia", type: "deposit.confirmed", id: "bia-dep-1", amount: "0.30", occurred_at: "2026-11-18T11:58:00Z" },
      WEDNESDAY,
    );
    const row = await club.db.em().findOneOrFail(Event, { id: result.event_id });
    expect(row).toMatchObject({
      externalEventId: "bia-dep-1",
      idempotencyKey: "bia-dep-1",
      type: "deposit.confirmed",
      amount: "0.30",
      amountMinor: 30,
      currency: "BRL",
      status: "processed",
      effects: result.effects,
      effectsCount: result.effects.length,
      duplicateOf: null,
    });
    expect(row.occurredAt.toISOString()).toBe("2026-11-18T11:58:00.000Z");
    expect(row.processedAt?.toISOString()).toBe(WEDNESDAY.toISOString());
  });

  it("uses the Idempotency-Key header over the event id; an event with neither is never deduplicated", async () => {
    const first = await send({ participant: "caio", type: "bet.placed", id: "caio-bet", amount: 5 }, WEDNESDAY, "retry-key-1");
    // Same header, another id: still the first event.
    expect(await send({ participant: "caio", type: "bet.placed", id: "caio-bet-other", amount: 5 }, WEDNESDAY, "retry-key-1")).toEqual({
      ...first,
      duplicate: true,
    });
    // The id alone was not used as a key, so it is a new event; but the rules
    // keyed on `event.id` (their default idempotency) already fired for it.
    const sameId = await send({ participant: "caio", type: "bet.placed", id: "caio-bet", amount: 5 }, WEDNESDAY);
    expect(sameId.duplicate).toBe(false);
    expect(sameId.effects).toEqual([{ type: "mission_progressed", mission_id: "apostar-500", progress: 10, target: 500 }]);
    const anonymous = [
      await send({ participant: "caio", type: "bet.placed", amount: 5 }, WEDNESDAY),
      await send({ participant: "caio", type: "bet.placed", amount: 5 }, WEDNESDAY),
    ];
    expect(anonymous.map((result) => result.duplicate)).toEqual([false, false]);
    expect(anonymous[0].event_id).not.toBe(anonymous[1].event_id);
    expect((await stateOf("caio")).xp).toBe(15);
  });

  it("20 concurrent sends of the same event: exactly one processed, 19 duplicates with identical effects", async () => {
    const input = { participant: "davi", type: "deposit.confirmed", id: "davi-dep-1", amount: 250 };
    const results = await Promise.all(Array.from({ length: 20 }, () => send(input, WEDNESDAY)));
    expect(results.filter((result) => !result.duplicate)).toHaveLength(1);
    const processed = results.find((result) => !result.duplicate)!;
    for (const result of results) expect(result).toEqual({ ...processed, duplicate: result.duplicate });
    const davi = await stateOf("davi");
    // 25 from deposit-coins, 50 from the daily mission's coins-50.
    expect(davi).toMatchObject({ xp: 500, balances: { coins: 75 }, eventCounts: { "deposit.confirmed": 1 } });
    expect(await club.db.em().count(Event, { participantId: davi.id, idempotencyKey: "davi-dep-1" })).toBe(1);
    expect(await club.db.em().count(Delivery, { participantId: davi.id })).toBe(1);
    // The participant was created once.
    expect((await webhooksAbout("davi")).filter((hook) => hook.type === "participant.created")).toHaveLength(1);
  });

  it("50 concurrent different events for one participant lose no update", async () => {
    await send({ participant: "eva", type: "user.signed_up", id: "eva-signup" }, WEDNESDAY);
    const bets = Array.from({ length: 50 }, (_, i) => ({
      participant: "eva",
      type: "bet.placed",
      id: `eva-bet-${i}`,
      amount: 10,
      meta: { game_type: "video-slots" },
    }));
    const results = await Promise.all(bets.map((bet, i) => send(bet, later(i))));
    expect(results.every((result) => !result.duplicate)).toBe(true);
    const eva = await stateOf("eva");
    expect(eva).toMatchObject({ xp: 50 + 500, balances: { coins: 100 + 100 }, eventCounts: { "user.signed_up": 1, "bet.placed": 50 } });
    // Every run's key kept; the 50 runs added up in the rule's one day row (bet-xp caps XP per day), none lost.
    expect(await club.db.em().count(RuleDedupeKey, { participantId: eva.id, ruleId: "bet-xp" })).toBe(50);
    const days = await club.db.em().find(RuleRunDay, { participantId: eva.id, ruleId: "bet-xp" });
    expect(days.map((day) => ({ runs: day.runs, amounts: day.amounts }))).toEqual([{ runs: 50, amounts: { xp: 500 } }]);
    expect(await missionOf(eva.id, "slots-50")).toEqual({ period: "2026-11-18", progress: 50, completed: true, claimed: true });
    expect(await missionOf(eva.id, "apostar-500")).toEqual({ period: "2026-W47", progress: 500, completed: true, claimed: false });
  });

  it("caps a rule's daily XP, and lets a cooldown rule fire again once it is over", async () => {
    // bet-xp grants at most 5000 XP a club day: 4990 + 10 fit, then nothing.
    expect((await send({ participant: "fabi", type: "bet.placed", id: "fabi-1", amount: 4990 }, WEDNESDAY)).effects[0]).toEqual({
      type: "xp_granted",
      amount: 4990,
      rule_id: "bet-xp",
    });
    expect((await send({ participant: "fabi", type: "bet.placed", id: "fabi-2", amount: 30 }, later(1))).effects[0]).toEqual({
      type: "xp_granted",
      amount: 10,
      rule_id: "bet-xp",
    });
    expect(
      (await send({ participant: "fabi", type: "bet.placed", id: "fabi-3", amount: 30 }, later(2))).effects.filter((e) => e.type === "xp_granted"),
    ).toEqual([]);
    // live-casino-gems has a 60-second cooldown: blocked at 59 s, fires at exactly 60 s.
    const gems = (result: EventResult) => result.effects.filter((effect) => effect.type === "currency_granted");
    const live = (id: string, at: Date) => send({ participant: "fabi", type: "bet.placed", id, amount: 25, meta: { game_type: "live-casino" } }, at);
    expect(gems(await live("fabi-live-1", later(100)))).toHaveLength(1);
    expect(gems(await live("fabi-live-2", later(159)))).toHaveLength(0);
    expect(gems(await live("fabi-live-3", later(160)))).toHaveLength(1);
  });

  it("a batch is processed in order, each event on its own; a second copy of an id in it is a duplicate", async () => {
    const { results } = await ingestBatch(
      club.db,
      club.scope,
      [
        eventInput({ participant: "gabi", type: "user.signed_up", id: "gabi-signup" }),
        eventInput({ participant: "gabi", type: "deposit.confirmed", id: "gabi-dep", amount: 20 }),
        eventInput({ participant: "hugo", type: "user.signed_up", id: "hugo-signup" }),
        eventInput({ participant: "gabi", type: "deposit.confirmed", id: "gabi-dep", amount: 20 }),
      ],
      { now: WEDNESDAY, publicUrl: PUBLIC_URL },
    );
    expect(results.map((result) => result.duplicate)).toEqual([false, false, false, true]);
    expect(results[3]).toEqual({ ...results[1], duplicate: true });
    expect(results[1].effects.map((effect) => effect.type)).toContain("reward_granted");
    expect(await stateOf("gabi")).toMatchObject({ xp: 90, balances: { coins: 100 + 50 } });
    expect(await stateOf("hugo")).toMatchObject({ xp: 50, balances: { coins: 100 } });
  });

  it("queued events are stored first and processed once by processQueuedEvent", async () => {
    const inputs = [
      eventInput({ participant: "iris", type: "user.signed_up", id: "iris-signup" }),
      eventInput({ participant: "iris", type: "bet.placed", id: "iris-bet", amount: 12 }),
    ];
    const queued = await queueEvents(club.db, club.scope, inputs, { now: WEDNESDAY });
    expect(queued).toEqual({ queued: true, event_ids: [expect.stringMatching(/^evt_/), expect.stringMatching(/^evt_/)] });
    // A repeated key answers the first event's id and stores nothing new.
    expect(await queueEvents(club.db, club.scope, [inputs[1]], { now: WEDNESDAY })).toEqual({ queued: true, event_ids: [queued.event_ids[1]] });
    const rows = await club.db.em().find(Event, { id: { $in: queued.event_ids } });
    expect(rows.map((row) => row.status)).toEqual(["queued", "queued"]);
    const handOver = await club.db.em().find(OutboxMessage, { ...club.scope, kind: "event" });
    // One message hands over the events accepted together, in order.
    expect(handOver.map((message) => message.payload)).toEqual([{ event_ids: queued.event_ids }]);
    expect(await stateOf("iris")).toMatchObject({ xp: 0, balances: {} });

    const opts = { now: later(5), publicUrl: PUBLIC_URL };
    const signup = await processQueuedEvent(club.db, club.scope, queued.event_ids[0], opts);
    expect(signup).toEqual({
      event_id: queued.event_ids[0],
      duplicate: false,
      effects: [
        { type: "currency_granted", currency: "coins", amount: 100, rule_id: "signup-bonus" },
        { type: "xp_granted", amount: 50, rule_id: "signup-bonus" },
      ],
    });
    const bet = await processQueuedEvent(club.db, club.scope, queued.event_ids[1], opts);
    expect(bet.effects[0]).toEqual({ type: "xp_granted", amount: 12, rule_id: "bet-xp" });
    // Delivered again by the queue: the stored result, nothing applied twice.
    expect(await processQueuedEvent(club.db, club.scope, queued.event_ids[0], { ...opts, now: later(60) })).toEqual(signup);
    expect(await stateOf("iris")).toMatchObject({ xp: 62, balances: { coins: 100 } });
    // A synchronous repeat of a processed queued event is its duplicate.
    expect(await send({ participant: "iris", type: "bet.placed", id: "iris-bet", amount: 12 }, later(90))).toEqual({ ...bet, duplicate: true });
  });

  it("with the embedded queue, an accepted event is stored as its job in the accept's transaction and processed from there", async () => {
    const queue = embeddedQueueOf(openEmbeddedQueue({ db: club.db, pollIntervalMs: 50 }))!;
    const undo = handEventsToEmbeddedQueue(club.db, queue);
    try {
      const eventRowsBefore = await club.db.em().count(OutboxMessage, { ...club.scope, kind: "event" });
      const first = { written: false };
      const queued = await queueEvents(club.db, club.scope, [eventInput({ participant: "ines", type: "bet.placed", id: "ines-bet-1", amount: 3 })], {
        now: WEDNESDAY,
        afterCommit: () => (first.written = true),
      });
      // The new player's participant.created is for the relay; the event is not.
      expect(first.written).toBe(true);
      const again = { written: false };
      queued.event_ids.push(
        ...(
          await queueEvents(club.db, club.scope, [eventInput({ participant: "ines", type: "bet.placed", id: "ines-bet-2", amount: 4 })], {
            now: WEDNESDAY,
            afterCommit: () => (again.written = true),
          })
        ).event_ids,
      );
      expect(again.written).toBe(false);
      expect(await club.db.em().count(OutboxMessage, { ...club.scope, kind: "event" })).toBe(eventRowsBefore);
      const jobs = await club.db.em().find(Job, { queue: EVENT_QUEUE }, { orderBy: { createdAt: "asc" }, disableIdentityMap: true });
      // One job a group, naming its events (one each here: two separate groups).
      expect(jobs.map((job) => [job.status, job.payload])).toEqual(
        queued.event_ids.map((eventId, i) => ["ready", { id: jobs[i].id, ...club.scope, payload: { event_ids: [eventId] } }]),
      );

      const consumer = await queue.consume(EVENT_QUEUE, async (message) => {
        const { clubId, env, payload } = message as { clubId: string; env: "test" | "live"; payload: Record<string, unknown> };
        for (const eventId of queuedEventIds(payload)!) await processQueuedEvent(club.db, { clubId, env }, eventId, { now: later(5), publicUrl: PUBLIC_URL });
      });
      await vi.waitFor(async () => expect(await club.db.em().count(Job, { queue: EVENT_QUEUE, status: "done" })).toBe(2), { timeout: 30_000, interval: 20 });
      await consumer.close();
      const rows = await club.db.em().find(Event, { id: { $in: queued.event_ids } }, { disableIdentityMap: true });
      expect(rows.map((row) => row.status)).toEqual(["processed", "processed"]);
      expect((await stateOf("ines")).xp).toBe(7);
    } finally {
      undo();
      await queue.close();
    }
  });

  it("a key accepted by groups in flight together is stored once: the later group's repeat answers the stored id", async () => {
    const input = eventInput({ participant: "kira", type: "bet.placed", id: "kira-bet", amount: 3 });
    await queueEvents(club.db, club.scope, [eventInput({ participant: "kira", type: "user.signed_up", id: "kira-signup" })], { now: WEDNESDAY });
    // Each submitted a turn after the previous one: separate groups, applied side by side (no participant lock on accept).
    const accepted = await Promise.all(
      [0, 1, 2, 3].map(async (turns) => {
        for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
        return queueEvents(club.db, club.scope, [input], { now: WEDNESDAY });
      }),
    );
    const ids = accepted.map((answer) => answer.event_ids[0]);
    expect(new Set(ids).size).toBe(1);
    expect(await club.db.em().count(Event, { ...club.scope, idempotencyKey: "kira-bet" })).toBe(1);
    const handOver = await club.db.em().find(OutboxMessage, { ...club.scope, kind: "event" }, { disableIdentityMap: true });
    expect(handOver.flatMap((message) => message.payload.event_ids as string[]).filter((id) => id === ids[0])).toHaveLength(1);
  });

  it("concurrent async accepts share commits: a repeated key answers one id, a new player is created once, a group of them is processed once", async () => {
    const bets = Array.from({ length: 12 }, (_, i) => eventInput({ participant: "jade", type: "bet.placed", id: `jade-bet-${i}`, amount: 2 }));
    const repeat = eventInput({ participant: "jade", type: "bet.placed", id: "jade-bet-0", amount: 2 });
    const accepted = await Promise.all([...bets, repeat, repeat].map((input) => queueEvents(club.db, club.scope, [input], { now: WEDNESDAY })));
    const ids = accepted.map((answer) => answer.event_ids[0]);
    expect(new Set(ids).size).toBe(12);
    expect(ids.slice(12)).toEqual([ids[0], ids[0]]);
    expect(await club.db.em().count(Event, { ...club.scope, idempotencyKey: { $like: "jade-bet-%" } })).toBe(12);
    expect((await webhooksAbout("jade")).filter((hook) => hook.type === "participant.created")).toHaveLength(1);

    const opts = { now: later(5), publicUrl: PUBLIC_URL };
    // Every stored event, and one of them twice (a redelivery in the same group).
    const stored = ids.slice(0, 12);
    const processed = await Promise.all([...stored, stored[3]].map((id) => processQueuedEvent(club.db, club.scope, id, opts)));
    expect(processed.slice(0, 12).map((result) => result.event_id)).toEqual(stored);
    expect(processed[12]).toEqual(processed[3]);
    const rows = await club.db.em().find(Event, { id: { $in: stored } }, { disableIdentityMap: true });
    expect(rows.map((row) => row.status)).toEqual(Array(12).fill("processed"));
    expect(rows.every((row) => row.effectsCount === (row.effects as unknown[]).length && row.processedAt !== null)).toBe(true);
    expect((await stateOf("jade")).xp).toBe(24);
  });

  it("tenth deposit: the nth condition grants free spins to be delivered", async () => {
    let tenth: EventResult | undefined;
    for (let i = 1; i <= 10; i++) {
      tenth = await send({ participant: "joao", type: "deposit.confirmed", id: `joao-dep-${i}`, amount: 10 }, later(i * 86400));
    }
    const grant = tenth!.effects.find((effect) => effect.type === "reward_granted" && effect.rule_id === "tenth-deposit");
    expect(grant).toEqual({
      type: "reward_granted",
      reward_code: "free-spins-50",
      rule_id: "tenth-deposit",
      reward_id: expect.any(String),
      delivery_id: expect.any(String),
    });
    // free-spins-50 expires 7 days after it is granted.
    const hooks = (await webhooksAbout("joao")).filter(
      (hook) => hook.type === "reward.granted" && (hook.data.reward as { code: string }).code === "free-spins-50",
    );
    expect(hooks.map((hook) => hook.data.expires_at)).toEqual([later(10 * 86400 + 7 * 86400).toISOString()]);
  });
});

describeEachDatabase("event ingestion with custom rules", (kind) => {
  let club: DatabaseClub;

  beforeAll(async () => {
    const config = demoConfig() as { rules: unknown[] };
    config.rules.push({
      id: "vip-deposit-alert",
      trigger: { event: "deposit.confirmed" },
      conditions: [{ field: "amount", op: ">=", value: 5000 }],
      effects: [
        { type: "notify", template: "Depósito VIP recebido" },
        { type: "webhook", event: "custom.vip_deposit" },
      ],
    });
    config.rules.push({
      id: "round-bonus",
      trigger: { event: "game.round_played" },
      idempotency: "event.meta.round_id",
      effects: [{ type: "grant_xp", amount: 1 }],
    });
    club = await openTestClub(kind, { config: config as Record<string, unknown> });
  });
  afterAll(async () => {
    await club?.close();
  });

  it("a rule's notify fills the inbox and its webhook effect records the named event", async () => {
    const result = await ingestEvent(club.db, club.scope, eventInput({ participant: "lia", type: "deposit.confirmed", id: "lia-vip", amount: 5000 }), {
      now: WEDNESDAY,
      publicUrl: PUBLIC_URL,
    });
    const lia = await participantRow(club.db, club.scope, "lia");
    const messages = await club.db.em().find(Notification, { participantId: lia.id, kind: "message" });
    expect(messages.map((message) => message.title)).toEqual(["Depósito VIP recebido"]);
    const custom = (await recordedWebhooks(club.db, club.scope)).filter((hook) => hook.type === "custom.vip_deposit");
    expect(custom).toEqual([
      {
        type: "custom.vip_deposit",
        data: { participant: { id: lia.id, external_id: "lia" }, rule_id: "vip-deposit-alert", event: { id: result.event_id, type: "deposit.confirmed" } },
      },
    ]);
  });

  it("a rule keyed on an event field fires once per value, however long the value", async () => {
    const round = (id: string, roundId: string) =>
      ingestEvent(club.db, club.scope, eventInput({ participant: "mia", type: "game.round_played", id, meta: { round_id: roundId } }), {
        now: WEDNESDAY,
        publicUrl: PUBLIC_URL,
      });
    const long = "r".repeat(300);
    expect((await round("mia-1", long)).effects).toEqual([{ type: "xp_granted", amount: 1, rule_id: "round-bonus" }]);
    // Another event (another id) of the same round: the rule does not fire again.
    expect((await round("mia-2", long)).effects).toEqual([]);
    expect((await round("mia-3", `${long}x`)).effects).toEqual([{ type: "xp_granted", amount: 1, rule_id: "round-bonus" }]);
    expect((await round("mia-4", "short-round")).effects).toEqual([{ type: "xp_granted", amount: 1, rule_id: "round-bonus" }]);
    expect((await round("mia-5", "short-round")).effects).toEqual([]);
  });
});
