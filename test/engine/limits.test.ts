import { describe, expect, it } from "vitest";
import type { RuleConfig, RuleLimits } from "../../server/src/engine/config.js";
import { evaluate } from "../../server/src/engine/evaluate.js";
import type { EngineEvent, Evaluation, ParticipantState } from "../../server/src/engine/types.js";
import { bet, blankState, casinoEngineConfig, rule, SAO_PAULO } from "./fixtures.js";
import { persist } from "./persist.js";

/** Sends bets at the given instants (unique ids), persisting each delta; returns every evaluation. */
function sendBets(theRule: RuleConfig, instants: string[], events: Partial<EngineEvent>[] = []): Evaluation[] {
  const config = casinoEngineConfig({ rules: [theRule] });
  let state: ParticipantState = blankState();
  return instants.map((iso, index) => {
    const evaluation = evaluate({ config, state, event: bet({ id: `bet-${index}`, ...events[index] }), now: new Date(iso), timeZone: SAO_PAULO });
    state = persist(state, evaluation);
    return evaluation;
  });
}

const xpRule = (limits: RuleLimits, overrides: Partial<RuleConfig> = {}) => rule("xp-aposta", [{ type: "grant_xp", amount: 10 }], { limits, ...overrides });
const fired = (evaluations: Evaluation[]) => evaluations.map((evaluation) => evaluation.trace[0]?.fired);
const stoppedBy = (evaluation: Evaluation) => evaluation.trace[0]?.stoppedBy;

describe("per_participant_per_day.runs", () => {
  it("fires the 3rd run of the day and not the 4th", () => {
    const runs = sendBets(xpRule({ per_participant_per_day: { runs: 3 } }), [
      "2026-11-21T12:00:00Z",
      "2026-11-21T13:00:00Z",
      "2026-11-21T14:00:00Z",
      "2026-11-21T15:00:00Z",
    ]);
    expect(fired(runs)).toEqual([true, true, true, false]);
    expect(stoppedBy(runs[3])).toBe("daily_runs");
    expect(runs[3].effects).toEqual([]);
  });

  it("resets at midnight São Paulo time: 02:59:59Z is still the same club day, 03:00:00Z is the next", () => {
    const runs = sendBets(xpRule({ per_participant_per_day: { runs: 1 } }), ["2026-11-21T12:00:00Z", "2026-11-22T02:59:59Z", "2026-11-22T03:00:00Z"]);
    expect(fired(runs)).toEqual([true, false, true]);
    expect(runs[2].delta.ruleRuns["xp-aposta"].today).toEqual({ dayKey: "2026-11-22", runs: 1, granted: { xp: 10 } });
  });
});

describe("max_runs_per_participant", () => {
  it("fires the 2nd run ever and not the 3rd, across days", () => {
    const runs = sendBets(xpRule({ max_runs_per_participant: 2 }), ["2026-11-21T12:00:00Z", "2026-11-25T12:00:00Z", "2026-12-30T12:00:00Z"]);
    expect(fired(runs)).toEqual([true, true, false]);
    expect(stoppedBy(runs[2])).toBe("max_runs");
  });
});

describe("cooldown_seconds", () => {
  it("fires again exactly when the cooldown is over, not a millisecond before", () => {
    const runs = sendBets(xpRule({ cooldown_seconds: 60 }), ["2026-11-21T12:00:00.000Z", "2026-11-21T12:00:59.999Z", "2026-11-21T12:01:00.000Z"]);
    expect(fired(runs)).toEqual([true, false, true]);
    expect(stoppedBy(runs[1])).toBe("cooldown");
  });

  it("allows back-to-back runs with a cooldown of 0", () => {
    const runs = sendBets(xpRule({ cooldown_seconds: 0 }), ["2026-11-21T12:00:00Z", "2026-11-21T12:00:00Z"]);
    expect(fired(runs)).toEqual([true, true]);
  });
});

describe("daily caps per unit", () => {
  it("reduces an XP grant to what fits under the cap and then drops it", () => {
    const theRule = rule("xp-aposta", [{ type: "grant_xp", amount: "event.amount" }], { limits: { per_participant_per_day: { xp: 100 } } });
    const runs = sendBets(
      theRule,
      ["2026-11-21T12:00:00Z", "2026-11-21T13:00:00Z", "2026-11-21T14:00:00Z", "2026-11-22T03:00:00Z"],
      [{ amount: 60 }, { amount: 60 }, { amount: 60 }, { amount: 60 }],
    );
    expect(runs.map((run) => run.effects.find((effect) => effect.type === "xp_granted"))).toEqual([
      { type: "xp_granted", amount: 60, rule_id: "xp-aposta" },
      { type: "xp_granted", amount: 40, rule_id: "xp-aposta" },
      undefined,
      { type: "xp_granted", amount: 60, rule_id: "xp-aposta" },
    ]);
    expect(runs[2].skipped).toEqual([{ rule_id: "xp-aposta", effect: "grant_xp", reason: "daily_limit", detail: expect.any(String) }]);
    // The rule still ran: runs are counted even when a cap swallows the grant.
    expect(runs[2].delta.ruleRuns["xp-aposta"].today.runs).toBe(3);
  });

  it("caps a currency in main units and counts in minor units", () => {
    const theRule = rule("cashback-aposta", [{ type: "grant_currency", currency: "cashback", amount: "event.amount * 0.1" }], {
      limits: { per_participant_per_day: { cashback: 10.5 } },
    });
    const runs = sendBets(theRule, ["2026-11-21T12:00:00Z", "2026-11-21T13:00:00Z"], [{ amount: 100 }, { amount: 100 }]);
    expect(runs[0].effects).toEqual([{ type: "currency_granted", currency: "cashback", amount: 10, rule_id: "cashback-aposta" }]);
    expect(runs[1].effects).toEqual([{ type: "currency_granted", currency: "cashback", amount: 0.5, rule_id: "cashback-aposta" }]);
    expect(runs[1].delta.ruleRuns["cashback-aposta"].today.granted).toEqual({ cashback: 1050 });
  });

  it("grants exactly up to the cap (at the bound passes, one more unit is dropped)", () => {
    const theRule = rule("moedas", [{ type: "grant_currency", currency: "coins", amount: 5 }], { limits: { per_participant_per_day: { coins: 10 } } });
    const runs = sendBets(theRule, ["2026-11-21T12:00:00Z", "2026-11-21T13:00:00Z", "2026-11-21T14:00:00Z"]);
    expect(runs.map((run) => run.effects.length)).toEqual([1, 1, 0]);
  });

  it("caps each unit separately and leaves debits alone", () => {
    const theRule = rule(
      "troca",
      [
        { type: "grant_xp", amount: 10 },
        { type: "grant_currency", currency: "coins", amount: 10 },
        { type: "debit_currency", currency: "coins", amount: 10 },
      ],
      { limits: { per_participant_per_day: { xp: 15 } } },
    );
    const runs = sendBets(theRule, ["2026-11-21T12:00:00Z", "2026-11-21T13:00:00Z"]);
    expect(runs[1].effects.map((effect) => effect.type)).toEqual(["xp_granted", "currency_granted", "currency_debited"]);
    expect(runs[1].effects[0]).toMatchObject({ amount: 5 });
  });
});

describe("idempotency", () => {
  it("never fires a rule twice for the same event id", () => {
    const runs = sendBets(xpRule({}), ["2026-11-21T12:00:00Z", "2026-11-21T13:00:00Z"], [{ id: "bet-77" }, { id: "bet-77" }]);
    expect(fired(runs)).toEqual([true, false]);
    expect(stoppedBy(runs[1])).toBe("duplicate");
    expect(runs[0].delta.ruleRuns["xp-aposta"].dedupeKey).toBe("bet-77");
  });

  it("dedupes on a meta path: one run per round", () => {
    const byRound = xpRule({}, { idempotency: "event.meta.round_id" });
    const runs = sendBets(
      byRound,
      ["2026-11-21T12:00:00Z", "2026-11-21T12:00:01Z", "2026-11-21T12:00:02Z"],
      [{ meta: { round_id: 981 } }, { meta: { round_id: 981 } }, { meta: { round_id: 982 } }],
    );
    expect(fired(runs)).toEqual([true, false, true]);
    expect(runs[0].delta.ruleRuns["xp-aposta"].dedupeKey).toBe("981");
  });

  it("does not dedupe when the path resolves to nothing", () => {
    const byRound = xpRule({}, { idempotency: "event.meta.round_id" });
    const runs = sendBets(byRound, ["2026-11-21T12:00:00Z", "2026-11-21T12:00:01Z"], [{ meta: {} }, { meta: {} }]);
    expect(fired(runs)).toEqual([true, true]);
    expect(runs[0].delta.ruleRuns["xp-aposta"].dedupeKey).toBeNull();
  });

  it("does not dedupe events without an id", () => {
    const runs = sendBets(xpRule({}), ["2026-11-21T12:00:00Z", "2026-11-21T12:00:01Z"], [{ id: null }, { id: undefined }]);
    expect(fired(runs)).toEqual([true, true]);
  });
});
