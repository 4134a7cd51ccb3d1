import { describe, expect, it } from "vitest";
import type { MissionConfig } from "../../server/src/engine/config.js";
import { claimMission, evaluate } from "../../server/src/engine/evaluate.js";
import type { EngineEvent, Evaluation, ParticipantState } from "../../server/src/engine/types.js";
import { bet, blankState, casinoEngineConfig, gameScope, mission, SAO_PAULO } from "./fixtures.js";
import { persist } from "./persist.js";

/** Sends bets for one mission at the given instants, persisting each delta. */
function play(theMission: MissionConfig, bets: { at: string; event?: Partial<EngineEvent> }[], initial: Partial<ParticipantState> = {}) {
  const config = casinoEngineConfig({ missions: [theMission] });
  let state = blankState(initial);
  const evaluations: Evaluation[] = bets.map(({ at, event }, index) => {
    const evaluation = evaluate({ config, state, event: bet({ id: `bet-${index}`, ...event }), now: new Date(at), timeZone: SAO_PAULO });
    state = persist(state, evaluation);
    return evaluation;
  });
  return { config, state, evaluations };
}

const missionEffects = (evaluation: Evaluation) => evaluation.effects.filter((effect) => effect.type.startsWith("mission_"));

describe("count goals", () => {
  it("counts matching events and completes once at the target", () => {
    const { evaluations, state } = play(mission("tres-apostas", { goal: { kind: "count", field: "amount", target: 2 } }), [
      { at: "2026-11-21T12:00:00Z" },
      { at: "2026-11-21T13:00:00Z" },
      { at: "2026-11-21T14:00:00Z" },
    ]);
    expect(missionEffects(evaluations[0])).toEqual([{ type: "mission_progressed", mission_id: "tres-apostas", progress: 1, target: 2 }]);
    expect(missionEffects(evaluations[1])).toEqual([
      { type: "mission_progressed", mission_id: "tres-apostas", progress: 2, target: 2 },
      { type: "mission_completed", mission_id: "tres-apostas", period: "once" },
    ]);
    expect(evaluations[2].effects).toEqual([]);
    expect(state.missions["tres-apostas"]).toEqual({ periodKey: "once", progress: 2, completed: true, claimed: false });
  });

  it("ignores events of other types", () => {
    const { evaluations } = play(mission("deposito", { event: "deposit.confirmed" }), [{ at: "2026-11-21T12:00:00Z" }]);
    expect(evaluations[0].effects).toEqual([]);
    expect(evaluations[0].delta.missions).toEqual({});
  });
});

describe("sum goals", () => {
  it("adds the field exactly and caps the progress at the target", () => {
    const goal = { kind: "sum", field: "amount", target: 0.6 } as const;
    const { evaluations } = play(mission("soma", { goal }), [
      { at: "2026-11-21T12:00:00Z", event: { amount: 0.1 } },
      { at: "2026-11-21T12:01:00Z", event: { amount: "0.2" } },
      { at: "2026-11-21T12:02:00Z", event: { amount: 0.5 } },
    ]);
    expect(evaluations.map((evaluation) => missionEffects(evaluation)[0])).toEqual([
      { type: "mission_progressed", mission_id: "soma", progress: 0.1, target: 0.6 },
      { type: "mission_progressed", mission_id: "soma", progress: 0.3, target: 0.6 },
      { type: "mission_progressed", mission_id: "soma", progress: 0.6, target: 0.6 },
    ]);
    expect(missionEffects(evaluations[2])[1]).toEqual({ type: "mission_completed", mission_id: "soma", period: "once" });
  });

  it("sums a meta field and skips events without a positive value", () => {
    const goal = { kind: "sum", field: "meta.multiplier", target: 10 } as const;
    const { evaluations } = play(mission("multiplicador", { goal }), [
      { at: "2026-11-21T12:00:00Z", event: { meta: { multiplier: 2.5 } } },
      { at: "2026-11-21T12:01:00Z", event: { meta: {} } },
      { at: "2026-11-21T12:02:00Z", event: { meta: { multiplier: 0 } } },
      { at: "2026-11-21T12:03:00Z", event: { meta: { multiplier: "x" } } },
    ]);
    expect(evaluations.map((evaluation) => missionEffects(evaluation).length)).toEqual([1, 0, 0, 0]);
  });
});

describe("periods roll over in the club time zone", () => {
  const rollovers = [
    ["daily", "2026-11-22T02:59:59Z", "2026-11-22T03:00:00Z", "2026-11-21", "2026-11-22"],
    ["weekly", "2026-11-23T02:59:59Z", "2026-11-23T03:00:00Z", "2026-W47", "2026-W48"],
    ["monthly", "2026-12-01T02:59:59Z", "2026-12-01T03:00:00Z", "2026-11", "2026-12"],
  ] as const;
  const goals = [
    ["count", { kind: "count", field: "amount", target: 2 }, 1],
    ["sum", { kind: "sum", field: "amount", target: 100 }, 50],
  ] as const;
  const cases = rollovers.flatMap((rollover) => goals.map((goal) => [...rollover, ...goal] as const));

  it.each(cases)(
    "%s %s: the last second counts in the old period, midnight starts a new one",
    (period, lastSecond, nextStart, oldKey, newKey, _kind, goal, afterOne) => {
      const theMission = mission("periodica", { period, goal });
      const { evaluations } = play(theMission, [{ at: "2026-11-21T12:00:00Z" }, { at: lastSecond }, { at: nextStart }]);
      expect(missionEffects(evaluations[1])).toEqual([
        { type: "mission_progressed", mission_id: "periodica", progress: goal.target, target: goal.target },
        { type: "mission_completed", mission_id: "periodica", period: oldKey },
      ]);
      expect(evaluations[2].delta.missions.periodica).toEqual({ periodKey: newKey, progress: afterOne, completed: false, claimed: false });
    },
  );

  it("once never starts over", () => {
    const theMission = mission("unica", { goal: { kind: "count", field: "amount", target: 1 } });
    const { evaluations } = play(theMission, [{ at: "2026-11-21T12:00:00Z" }, { at: "2027-06-01T12:00:00Z" }]);
    expect(missionEffects(evaluations[0])).toHaveLength(2);
    expect(evaluations[1].effects).toEqual([]);
  });
});

describe("claims", () => {
  it("auto grants the reward at completion, attributed to mission:<id>", () => {
    const theMission = mission("auto", { claim: "auto", reward: "giros-10", goal: { kind: "count", field: "amount", target: 1 } });
    const { evaluations, state } = play(theMission, [{ at: "2026-11-21T12:00:00Z" }]);
    expect(evaluations[0].effects).toEqual([
      { type: "mission_progressed", mission_id: "auto", progress: 1, target: 1 },
      { type: "mission_completed", mission_id: "auto", period: "once" },
      { type: "reward_granted", reward_code: "giros-10", rule_id: "mission:auto" },
    ]);
    expect(evaluations[0].delta.rewards).toMatchObject([{ effectIndex: 2, rewardCode: "giros-10", ruleId: "mission:auto", delivery: true }]);
    expect(state.missions.auto.claimed).toBe(true);
  });

  it.each([
    ["xp:150", { type: "xp_granted", amount: 150, rule_id: "mission:spec" }],
    ["coins:25.9", { type: "currency_granted", currency: "coins", amount: 25, rule_id: "mission:spec" }],
    ["cashback:2.5", { type: "currency_granted", currency: "cashback", amount: 2.5, rule_id: "mission:spec" }],
    ["reward:avatar-ouro", { type: "reward_granted", reward_code: "avatar-ouro", rule_id: "mission:spec" }],
  ])("grants the reward spec %s", (reward, effect) => {
    const theMission = mission("spec", { claim: "auto", reward, goal: { kind: "count", field: "amount", target: 1 } });
    expect(play(theMission, [{ at: "2026-11-21T12:00:00Z" }]).evaluations[0].effects[2]).toEqual(effect);
  });

  it("levels up from XP a mission grants", () => {
    const theMission = mission("xp", { claim: "auto", reward: "xp:300", goal: { kind: "count", field: "amount", target: 1 } });
    const effects = play(theMission, [{ at: "2026-11-21T12:00:00Z" }]).evaluations[0].effects;
    expect(effects.slice(3)).toEqual([
      { type: "level_up", from: 1, to: 3 },
      { type: "tier_changed", from: "bronze", to: "prata" },
    ]);
  });

  it("manual leaves the reward claimable; the claim grants it once", () => {
    const theMission = mission("manual", { claim: "manual", reward: "coins:50", period: "daily", goal: { kind: "count", field: "amount", target: 1 } });
    const { config, state, evaluations } = play(theMission, [{ at: "2026-11-21T12:00:00Z" }]);
    expect(evaluations[0].effects.map((effect) => effect.type)).toEqual(["mission_progressed", "mission_completed"]);
    const now = new Date("2026-11-21T20:00:00Z");
    const claimed = claimMission({ config, state, missionId: "manual", now, timeZone: SAO_PAULO });
    if (!claimed.ok) throw new Error(claimed.reason);
    expect(claimed.evaluation.effects).toEqual([{ type: "currency_granted", currency: "coins", amount: 50, rule_id: "mission:manual" }]);
    expect(claimed.evaluation.delta.missions.manual).toEqual({ periodKey: "2026-11-21", progress: 1, completed: true, claimed: true });
    expect(claimed.evaluation.delta.eventCounts).toEqual({});
    const again = claimMission({ config, state: persist(state, claimed.evaluation), missionId: "manual", now, timeZone: SAO_PAULO });
    expect(again).toEqual({ ok: false, reason: "already_claimed" });
  });

  it("refuses a claim before completion, after the period, or of an unknown mission", () => {
    const theMission = mission("manual", { period: "daily", goal: { kind: "count", field: "amount", target: 2 } });
    const { config, state } = play(theMission, [{ at: "2026-11-21T12:00:00Z" }]);
    const claim = (missionId: string, at: string, claimState = state) =>
      claimMission({ config, state: claimState, missionId, now: new Date(at), timeZone: SAO_PAULO });
    expect(claim("manual", "2026-11-21T20:00:00Z")).toEqual({ ok: false, reason: "not_completed" });
    expect(claim("nope", "2026-11-21T20:00:00Z")).toEqual({ ok: false, reason: "unknown_mission" });
    const completed = play(theMission, [{ at: "2026-11-21T12:00:00Z" }, { at: "2026-11-21T13:00:00Z" }]).state;
    expect(claim("manual", "2026-11-22T02:59:59Z", completed).ok).toBe(true);
    expect(claim("manual", "2026-11-22T03:00:00Z", completed)).toEqual({ ok: false, reason: "not_completed" });
  });
});

describe("who and when", () => {
  it("counts only for participants with the audience tag", () => {
    const theMission = mission("vip", { audienceTag: "vip" });
    expect(play(theMission, [{ at: "2026-11-21T12:00:00Z" }]).evaluations[0].effects).toEqual([]);
    expect(play(theMission, [{ at: "2026-11-21T12:00:00Z" }], { tags: ["vip"] }).evaluations[0].effects).toHaveLength(1);
  });

  it("counts from startsAt (included) until endsAt (excluded)", () => {
    const theMission = mission("black-friday", {
      startsAt: "2026-11-27T03:00:00Z",
      endsAt: "2026-11-28T03:00:00Z",
      goal: { kind: "count", field: "amount", target: 10 },
    });
    const { evaluations } = play(theMission, [
      { at: "2026-11-27T02:59:59.999Z" },
      { at: "2026-11-27T03:00:00Z" },
      { at: "2026-11-28T02:59:59.999Z" },
      { at: "2026-11-28T03:00:00Z" },
    ]);
    expect(evaluations.map((evaluation) => evaluation.effects.length)).toEqual([0, 1, 1, 0]);
  });

  it("skips disabled missions", () => {
    expect(play(mission("off", { enabled: false }), [{ at: "2026-11-21T12:00:00Z" }]).evaluations[0].effects).toEqual([]);
  });

  it("applies conditions and game filters, including the club-wide exclude", () => {
    const theMission = mission("slots", {
      conditions: [{ field: "amount", op: ">=", value: 20 }],
      games: gameScope({ only: { categories: ["video-slots"] } }),
    });
    const { evaluations } = play(theMission, [
      { at: "2026-11-21T12:00:00Z", event: { amount: 19.99 } },
      { at: "2026-11-21T12:01:00Z", event: { amount: 20 } },
      { at: "2026-11-21T12:02:00Z", event: { meta: { game_type: "crash" } } },
    ]);
    expect(evaluations.map((evaluation) => evaluation.effects.length)).toEqual([0, 1, 0]);
    const config = casinoEngineConfig({ missions: [theMission], games: { exclude: { categories: [], providers: ["pragmatic"], games: [] } } });
    expect(evaluate({ config, state: blankState(), event: bet(), now: new Date("2026-11-21T12:00:00Z"), timeZone: SAO_PAULO }).effects).toEqual([]);
  });
});
