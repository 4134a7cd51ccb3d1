import { describe, expect, it } from "vitest";
import type { EngineConfig, RuleConfig, RuleEffect } from "../../server/src/engine/config.js";
import { evaluate } from "../../server/src/engine/evaluate.js";
import type { EngineEvent, ParticipantState } from "../../server/src/engine/types.js";
import { bet, blankState, casinoEngineConfig, mission, NOON, rule, SAO_PAULO } from "./fixtures.js";

function run(
  effects: RuleEffect[],
  options: { state?: Partial<ParticipantState>; event?: Partial<EngineEvent>; config?: Partial<EngineConfig>; rules?: RuleConfig[] } = {},
) {
  const config = casinoEngineConfig({ rules: options.rules ?? [rule("r1", effects)], ...options.config });
  return evaluate({ config, state: blankState(options.state), event: bet(options.event), now: NOON, timeZone: SAO_PAULO });
}

describe("grant_xp", () => {
  it("grants XP rounded toward zero and writes a ledger line", () => {
    const result = run([{ type: "grant_xp", amount: "event.amount * 0.99" }], { event: { amount: 50 } });
    expect(result.effects).toEqual([{ type: "xp_granted", amount: 49, rule_id: "r1" }]);
    expect(result.delta).toMatchObject({ xp: 49, ledger: [{ unit: "xp", delta: 49, reason: "grant_xp", ruleId: "r1" }] });
  });

  it.each([
    ["zero", 0],
    ["negative", "0 - event.amount"],
    ["below one XP", 0.9],
  ])("produces nothing for a %s result and says so", (_what, amount) => {
    const result = run([{ type: "grant_xp", amount }]);
    expect(result.effects).toEqual([]);
    expect(result.skipped).toEqual([{ rule_id: "r1", effect: "grant_xp", reason: "non_positive", detail: expect.any(String) }]);
  });

  it("skips a non-number expression result with the reason", () => {
    const result = run([{ type: "grant_xp", amount: "event.meta.game_type" }]);
    expect(result.effects).toEqual([]);
    expect(result.skipped).toEqual([{ rule_id: "r1", effect: "grant_xp", reason: "not_a_number", detail: expect.stringContaining("video-slots") }]);
  });

  it("skips an expression that fails and keeps going", () => {
    const result = run([
      { type: "grant_xp", amount: "event.meta.multiplier * 10" },
      { type: "grant_xp", amount: 5 },
    ]);
    expect(result.skipped).toMatchObject([{ reason: "expression_error" }]);
    expect(result.effects).toEqual([{ type: "xp_granted", amount: 5, rule_id: "r1" }]);
  });

  it("uses 0 for event.amount when the event has none", () => {
    const result = run([{ type: "grant_xp", amount: "event.amount + 10" }], { event: { amount: undefined } });
    expect(result.effects).toEqual([{ type: "xp_granted", amount: 10, rule_id: "r1" }]);
  });

  it("reads a decimal-string amount as a number", () => {
    const result = run([{ type: "grant_xp", amount: "event.amount * 10" }], { event: { amount: "2.55" } });
    expect(result.effects).toEqual([{ type: "xp_granted", amount: 25, rule_id: "r1" }]);
  });
});

describe("grant_currency", () => {
  it("converts main units to minor units by the currency's decimals, toward zero", () => {
    const result = run(
      [
        { type: "grant_currency", currency: "cashback", amount: "event.amount * 0.1" },
        { type: "grant_currency", currency: "coins", amount: 12.9 },
      ],
      { event: { amount: "100.05" } },
    );
    expect(result.effects).toEqual([
      { type: "currency_granted", currency: "cashback", amount: 10, rule_id: "r1" },
      { type: "currency_granted", currency: "coins", amount: 12, rule_id: "r1" },
    ]);
    expect(result.delta.balances).toEqual({ cashback: 1000, coins: 12 });
    expect(result.delta.lotsCreated).toEqual([]);
  });

  it("does not lose a centavo to binary noise", () => {
    const result = run([{ type: "grant_currency", currency: "cashback", amount: "event.amount * 100" }], { event: { amount: 0.57 } });
    expect(result.effects).toEqual([{ type: "currency_granted", currency: "cashback", amount: 57, rule_id: "r1" }]);
  });

  it("creates an expiring lot for a currency with expiresInDays", () => {
    const result = run([{ type: "grant_currency", currency: "gems", amount: 5 }]);
    expect(result.delta.lotsCreated).toEqual([
      { currency: "gems", amount: 5, grantedAt: "2026-11-21T15:00:00.000Z", expiresAt: "2026-12-21T15:00:00.000Z", ruleId: "r1" },
    ]);
  });

  it("skips an unknown currency", () => {
    const result = run([{ type: "grant_currency", currency: "diamonds", amount: 5 }]);
    expect(result.effects).toEqual([]);
    expect(result.skipped).toMatchObject([{ effect: "grant_currency", reason: "unknown_currency" }]);
  });

  it("skips an amount below one minor unit", () => {
    const result = run([{ type: "grant_currency", currency: "cashback", amount: 0.004 }]);
    expect(result.skipped).toMatchObject([{ reason: "non_positive" }]);
  });

  it("skips an amount too large to count", () => {
    const result = run([{ type: "grant_currency", currency: "cashback", amount: 1e20 }]);
    expect(result.skipped).toMatchObject([{ reason: "out_of_range" }]);
  });
});

describe("debit_currency", () => {
  it("debits when the balance covers it exactly", () => {
    const result = run([{ type: "debit_currency", currency: "coins", amount: 100 }], { state: { balances: { coins: 100 } } });
    expect(result.effects).toEqual([{ type: "currency_debited", currency: "coins", amount: 100, rule_id: "r1" }]);
    expect(result.delta.ledger).toEqual([{ unit: "coins", delta: -100, reason: "debit_currency", ruleId: "r1" }]);
    expect(result.delta.balances).toEqual({ coins: -100 });
  });

  it("refuses one unit more than the balance and still applies the remaining effects", () => {
    const result = run(
      [
        { type: "debit_currency", currency: "coins", amount: 101 },
        { type: "grant_xp", amount: 10 },
      ],
      { state: { balances: { coins: 100 } } },
    );
    expect(result.refused).toEqual([{ rule_id: "r1", effect: "debit_currency", reason: "insufficient_balance" }]);
    expect(result.effects).toEqual([{ type: "xp_granted", amount: 10, rule_id: "r1" }]);
    expect(result.delta.balances).toEqual({});
  });

  it("sees a grant made earlier in the same evaluation", () => {
    const result = run([
      { type: "grant_currency", currency: "coins", amount: 30 },
      { type: "debit_currency", currency: "coins", amount: 30 },
    ]);
    expect(result.refused).toEqual([]);
    expect(result.delta.balances).toEqual({ coins: 0 });
  });
});

describe("grant_reward", () => {
  it("asks for a delivery of a client_delivered reward, with its expiry", () => {
    const result = run([{ type: "grant_reward", reward: "giros-10" }]);
    expect(result.effects).toEqual([{ type: "reward_granted", reward_code: "giros-10", rule_id: "r1" }]);
    expect(result.delta.rewards).toEqual([
      {
        effectIndex: 0,
        rewardCode: "giros-10",
        ruleId: "r1",
        type: "client_delivered",
        payload: { kind: "free_spins", spins: 10, game: "Gates of Olympus" },
        expiresAt: "2026-11-28T15:00:00.000Z",
        delivery: true,
      },
    ]);
  });

  it("grants an internal reward without a delivery", () => {
    const result = run([
      { type: "grant_xp", amount: 1 },
      { type: "grant_reward", reward: "avatar-ouro" },
    ]);
    expect(result.delta.rewards).toMatchObject([{ effectIndex: 1, rewardCode: "avatar-ouro", delivery: false, expiresAt: null }]);
  });

  it("skips an unknown reward", () => {
    expect(run([{ type: "grant_reward", reward: "nope" }]).skipped).toMatchObject([{ effect: "grant_reward", reason: "unknown_reward" }]);
  });
});

describe("progress_mission", () => {
  const missions = [mission("apostador", { goal: { kind: "count", field: "amount", target: 5 }, event: "deposit.confirmed" })];

  it("moves a mission by the increment, even on another event type", () => {
    const result = run([{ type: "progress_mission", mission: "apostador", increment: 2 }], { config: { missions } });
    expect(result.effects).toEqual([{ type: "mission_progressed", mission_id: "apostador", progress: 2, target: 5 }]);
    expect(result.delta.missions).toEqual({ apostador: { periodKey: "once", progress: 2, completed: false, claimed: false } });
  });

  it("takes an expression increment", () => {
    const result = run([{ type: "progress_mission", mission: "apostador", increment: "event.amount / 25" }], { config: { missions } });
    expect(result.effects).toEqual([{ type: "mission_progressed", mission_id: "apostador", progress: 2, target: 5 }]);
  });

  it("skips an unknown, unavailable or non-positive progress", () => {
    const disabled = [mission("pausada", { enabled: false })];
    const result = run(
      [
        { type: "progress_mission", mission: "nope", increment: 1 },
        { type: "progress_mission", mission: "pausada", increment: 1 },
        { type: "progress_mission", mission: "apostador", increment: 0 },
      ],
      { config: { missions: [...missions, ...disabled] } },
    );
    expect(result.skipped.map((skip) => skip.reason)).toEqual(["unknown_mission", "mission_unavailable", "non_positive"]);
    expect(result.effects).toEqual([]);
  });
});

describe("add_leaderboard_points", () => {
  it("adds the points as computed", () => {
    const result = run([{ type: "add_leaderboard_points", campaign: "copa-slots", points: "event.amount * 1.5" }], { event: { amount: "10.30" } });
    expect(result.effects).toEqual([{ type: "leaderboard_points", campaign_id: "copa-slots", points: 15.45, rule_id: "r1" }]);
    expect(result.delta.leaderboard).toEqual([{ campaignId: "copa-slots", points: 15.45, ruleId: "r1" }]);
  });

  it("skips non-positive points", () => {
    expect(run([{ type: "add_leaderboard_points", campaign: "copa", points: 0 }]).skipped).toMatchObject([{ reason: "non_positive" }]);
  });
});

describe("grant_badge", () => {
  it("grants a badge once", () => {
    const result = run([
      { type: "grant_badge", badge: "primeira-aposta" },
      { type: "grant_badge", badge: "primeira-aposta" },
    ]);
    expect(result.effects).toEqual([{ type: "badge_granted", badge_code: "primeira-aposta", rule_id: "r1" }]);
    expect(result.delta.badges).toEqual([{ badgeCode: "primeira-aposta", ruleId: "r1" }]);
  });

  it("does nothing for a badge already held", () => {
    const result = run([{ type: "grant_badge", badge: "primeira-aposta" }], { state: { badges: ["primeira-aposta"] } });
    expect(result.effects).toEqual([]);
    expect(result.delta.badges).toEqual([]);
  });
});

describe("notify and webhook", () => {
  it("request a notification and a webhook without an API effect", () => {
    const result = run([
      { type: "notify", template: "bem-vindo" },
      { type: "webhook", event: "custom.vip_bet" },
    ]);
    expect(result.effects).toEqual([]);
    expect(result.delta.notifications).toEqual([{ template: "bem-vindo", ruleId: "r1" }]);
    expect(result.delta.webhooks).toEqual([{ event: "custom.vip_bet", ruleId: "r1" }]);
  });
});

describe("tag_participant", () => {
  const nineteen = Array.from({ length: 19 }, (_, index) => `tag-${index}`);

  it("tags the participant", () => {
    const result = run([{ type: "tag_participant", tag: "apostador" }]);
    expect(result.effects).toEqual([{ type: "tagged", tag: "apostador", rule_id: "r1" }]);
    expect(result.delta.tagsAdded).toEqual([{ tag: "apostador", ruleId: "r1" }]);
  });

  it("does nothing when already tagged", () => {
    const result = run([{ type: "tag_participant", tag: "vip" }], { state: { tags: ["vip"] } });
    expect(result.effects).toEqual([]);
    expect(result.refused).toEqual([]);
  });

  it("adds the 20th tag and refuses a 21st", () => {
    const result = run(
      [
        { type: "tag_participant", tag: "vigesima" },
        { type: "tag_participant", tag: "vigesima-primeira" },
      ],
      { state: { tags: nineteen } },
    );
    expect(result.effects).toEqual([{ type: "tagged", tag: "vigesima", rule_id: "r1" }]);
    expect(result.refused).toEqual([{ rule_id: "r1", effect: "tag_participant", reason: "tag_limit" }]);
  });

  it("accepts a 32-character tag and refuses 33", () => {
    const result = run([
      { type: "tag_participant", tag: "a".repeat(32) },
      { type: "tag_participant", tag: "b".repeat(33) },
    ]);
    expect(result.effects).toEqual([{ type: "tagged", tag: "a".repeat(32), rule_id: "r1" }]);
    expect(result.refused).toEqual([{ rule_id: "r1", effect: "tag_participant", reason: "tag_too_long" }]);
  });
});
