import { describe, expect, it } from "vitest";
import { evaluate, grantRewards } from "../../server/src/engine/evaluate.js";
import { parseRewardSpec } from "../../server/src/engine/rewards.js";
import { bet, blankState, casinoEngineConfig, gameScope, mission, NOON, rule, SAO_PAULO } from "./fixtures.js";

const at = (config = casinoEngineConfig(), state = blankState(), event = bet()) => evaluate({ config, state, event, now: NOON, timeZone: SAO_PAULO });

describe("evaluate", () => {
  it("runs triggered rules in order, effects in order, then missions, then level and tier", () => {
    const config = casinoEngineConfig({
      rules: [
        rule("moedas", [
          { type: "grant_currency", currency: "coins", amount: 5 },
          { type: "grant_xp", amount: 250 },
        ]),
        rule("deposito", [{ type: "grant_xp", amount: 999 }], { trigger: { event: "deposit.confirmed" } }),
        rule("desligada", [{ type: "grant_xp", amount: 999 }], { enabled: false }),
        rule("badge", [
          { type: "grant_badge", badge: "apostador" },
          { type: "grant_xp", amount: 100 },
        ]),
      ],
      missions: [mission("uma-aposta", { goal: { kind: "count", field: "amount", target: 1 } })],
    });
    const result = at(config);
    expect(result.effects).toEqual([
      { type: "currency_granted", currency: "coins", amount: 5, rule_id: "moedas" },
      { type: "xp_granted", amount: 250, rule_id: "moedas" },
      { type: "badge_granted", badge_code: "apostador", rule_id: "badge" },
      { type: "xp_granted", amount: 100, rule_id: "badge" },
      { type: "mission_progressed", mission_id: "uma-aposta", progress: 1, target: 1 },
      { type: "mission_completed", mission_id: "uma-aposta", period: "once" },
      { type: "level_up", from: 1, to: 3 },
      { type: "tier_changed", from: "bronze", to: "prata" },
    ]);
    expect(result.trace).toEqual([
      { rule_id: "moedas", fired: true },
      { rule_id: "badge", fired: true },
    ]);
    expect(result.delta).toMatchObject({ xp: 350, level: 3, tierCode: "prata", eventCounts: { "bet.placed": 1 } });
  });

  it("emits one level_up when several levels are crossed", () => {
    const config = casinoEngineConfig({
      rules: [
        rule("xp", [
          { type: "grant_xp", amount: 100 },
          { type: "grant_xp", amount: 200 },
          { type: "grant_xp", amount: 400 },
        ]),
      ],
    });
    const levelUps = at(config).effects.filter((effect) => effect.type === "level_up");
    expect(levelUps).toEqual([{ type: "level_up", from: 1, to: 4 }]);
  });

  it("reaches a level exactly at its threshold and not one XP before", () => {
    const config = casinoEngineConfig({ rules: [rule("xp", [{ type: "grant_xp", amount: "event.amount" }])] });
    expect(at(config, blankState(), bet({ amount: 99 })).delta.level).toBe(1);
    expect(at(config, blankState(), bet({ amount: 100 })).delta.level).toBe(2);
  });

  it("lets later rules see what earlier rules did", () => {
    const config = casinoEngineConfig({
      rules: [
        rule("marca", [
          { type: "tag_participant", tag: "apostador" },
          { type: "grant_xp", amount: 100 },
        ]),
        rule("so-marcados", [{ type: "grant_xp", amount: "participant.level * 10" }], { conditions: [{ segment: "apostador" }, { tier_in: ["prata"] }] }),
      ],
    });
    expect(at(config).effects.filter((effect) => effect.type === "xp_granted")).toEqual([
      { type: "xp_granted", amount: 100, rule_id: "marca" },
      { type: "xp_granted", amount: 20, rule_id: "so-marcados" },
    ]);
  });

  it("reports the gate that stopped each rule", () => {
    const config = casinoEngineConfig({
      rules: [
        rule("grande", [{ type: "grant_xp", amount: 1 }], { conditions: [{ field: "amount", op: ">=", value: 100 }] }),
        rule("crash", [{ type: "grant_xp", amount: 1 }], { games: gameScope({ only: { categories: ["crash"] } }) }),
        rule("sem-slots", [{ type: "grant_xp", amount: 1 }], { games: gameScope({ exclude: { categories: ["video-slots"] } }) }),
        rule("primeira", [{ type: "grant_xp", amount: 1 }], { conditions: [{ first_time: true }] }),
      ],
    });
    const result = at(config, blankState({ eventCountsBefore: { "bet.placed": 4 } }));
    expect(result.trace).toEqual([
      { rule_id: "grande", fired: false, stoppedBy: "conditions" },
      { rule_id: "crash", fired: false, stoppedBy: "games" },
      { rule_id: "sem-slots", fired: false, stoppedBy: "games" },
      { rule_id: "primeira", fired: false, stoppedBy: "conditions" },
    ]);
    expect(result.effects).toEqual([]);
    expect(result.delta.ruleRuns).toEqual({});
  });

  it("fires the nth-event rule on the participant's 5th bet", () => {
    const config = casinoEngineConfig({ rules: [rule("quinta", [{ type: "grant_reward", reward: "giros-10" }], { conditions: [{ nth: 5 }] })] });
    expect(at(config, blankState({ eventCountsBefore: { "bet.placed": 3 } })).effects).toEqual([]);
    expect(at(config, blankState({ eventCountsBefore: { "bet.placed": 4 } })).effects).toHaveLength(1);
    expect(at(config, blankState({ eventCountsBefore: { "bet.placed": 5 } })).effects).toEqual([]);
  });

  it("applies the club-wide game exclude to every rule", () => {
    const config = casinoEngineConfig({
      rules: [rule("xp", [{ type: "grant_xp", amount: 1 }])],
      games: { exclude: { categories: [], providers: [], games: [{ id: "gates-of-olympus" }] } },
    });
    expect(at(config).trace).toEqual([{ rule_id: "xp", fired: false, stoppedBy: "games" }]);
  });

  it("is deterministic: the same input gives the same output", () => {
    const config = casinoEngineConfig({
      rules: [
        rule("tudo", [
          { type: "grant_xp", amount: "event.amount * 3" },
          { type: "grant_currency", currency: "gems", amount: 4 },
          { type: "grant_reward", reward: "giros-10" },
          { type: "add_leaderboard_points", campaign: "copa", points: "event.amount" },
          { type: "notify", template: "parabens" },
        ]),
      ],
      missions: [mission("m", { period: "weekly", claim: "auto", reward: "coins:5", goal: { kind: "sum", field: "amount", target: 10 } })],
    });
    const state = blankState({ balances: { coins: 10 }, tags: ["vip"] });
    const input = () => ({ config, state, event: bet(), now: new Date(NOON), timeZone: SAO_PAULO });
    const first = evaluate(input());
    expect(evaluate(input())).toEqual(first);
    expect(JSON.stringify(evaluate(input()))).toBe(JSON.stringify(first));
  });

  it("does not modify its input", () => {
    const config = casinoEngineConfig({
      rules: [
        rule("r", [
          { type: "grant_currency", currency: "gems", amount: 5 },
          { type: "debit_currency", currency: "gems", amount: 3 },
          { type: "tag_participant", tag: "x" },
        ]),
      ],
    });
    const state = blankState({
      balances: { gems: 10 },
      lots: [{ id: "l1", currency: "gems", remaining: 10, grantedAt: "2026-11-01T00:00:00Z", expiresAt: "2026-12-01T00:00:00Z" }],
    });
    const before = structuredClone({ config, state });
    at(config, state);
    expect({ config, state }).toEqual(before);
  });
});

describe("grantRewards", () => {
  it("grants reward specs outside rules with the same effects and delta", () => {
    const result = grantRewards({
      config: casinoEngineConfig(),
      state: blankState(),
      specs: ["xp:150", "coins:10", "giros-10"],
      ruleId: "checkin:2026-11-21",
      now: NOON,
      timeZone: SAO_PAULO,
    });
    expect(result.effects).toEqual([
      { type: "xp_granted", amount: 150, rule_id: "checkin:2026-11-21" },
      { type: "currency_granted", currency: "coins", amount: 10, rule_id: "checkin:2026-11-21" },
      { type: "reward_granted", reward_code: "giros-10", rule_id: "checkin:2026-11-21" },
      { type: "level_up", from: 1, to: 2 },
      { type: "tier_changed", from: "bronze", to: "prata" },
    ]);
    expect(result.delta.eventCounts).toEqual({});
  });

  it("skips malformed specs and unknown currencies or rewards", () => {
    const result = grantRewards({
      config: casinoEngineConfig(),
      state: blankState(),
      specs: ["Bad Spec", "diamonds:5", "reward:nope", "xp:0.5"],
      ruleId: "wheel:spin-1",
      now: NOON,
      timeZone: SAO_PAULO,
    });
    expect(result.effects).toEqual([]);
    expect(result.skipped.map((skip) => [skip.effect, skip.reason])).toEqual([
      ["grant_reward", "invalid_reward_spec"],
      ["grant_currency", "unknown_currency"],
      ["grant_reward", "unknown_reward"],
      ["grant_xp", "non_positive"],
    ]);
  });
});

describe("parseRewardSpec", () => {
  it.each([
    ["xp:50", { kind: "xp", amount: "50" }],
    ["xp:1.5", { kind: "xp", amount: "1.5" }],
    ["coins:200", { kind: "currency", currency: "coins", amount: "200" }],
    ["cashback:2.5", { kind: "currency", currency: "cashback", amount: "2.5" }],
    ["reward:vip-box", { kind: "reward", code: "vip-box" }],
    ["giros-10", { kind: "reward", code: "giros-10" }],
    ["coins", { kind: "reward", code: "coins" }],
    [":200", null],
    ["reward:Bad_Code", null],
    ["coins:-5", null],
    ["coins:1e3", null],
    ["", null],
  ])("%j → %j", (spec, parsed) => {
    expect(parseRewardSpec(spec)).toEqual(parsed);
  });
});
