import { describe, expect, it } from "vitest";
import { evaluate } from "../../server/src/engine/evaluate.js";
import { unknownTypeWarning } from "../../server/src/engine/trace.js";
import type { RuleRunState } from "../../server/src/engine/types.js";
import { bet, blankState, casinoEngineConfig, gameScope, mission, NOON, rule, SAO_PAULO } from "./fixtures.js";

const traced = (config = casinoEngineConfig(), state = blankState(), event = bet()) =>
  evaluate({ config, state, event, now: NOON, timeZone: SAO_PAULO, trace: true });

const ranToday = (overrides: Partial<RuleRunState> = {}): RuleRunState => ({
  total: 1,
  lastRunAt: "2026-11-21T14:59:00.000Z",
  today: { dayKey: "2026-11-21", runs: 1, granted: {} },
  dedupeKeys: [],
  ...overrides,
});

describe("why trace", () => {
  it("is absent unless asked for, and does not change the evaluation", () => {
    const config = casinoEngineConfig({ rules: [rule("xp", [{ type: "grant_xp", amount: 10 }])] });
    const plain = evaluate({ config, state: blankState(), event: bet(), now: NOON, timeZone: SAO_PAULO });
    expect(plain.explanation).toBeUndefined();
    const withTrace = traced(config);
    expect({ ...withTrace, explanation: undefined }).toEqual({ ...plain, explanation: undefined });
    expect(withTrace.explanation).toEqual({ entries: [{ kind: "rule", id: "xp", matched: true }], warnings: [] });
  });

  it("names the failing condition with its actual value", () => {
    const config = casinoEngineConfig({
      rules: [
        rule("grande", [{ type: "grant_xp", amount: 10 }], {
          conditions: [
            { field: "meta.game_type", op: "==", value: "video-slots" },
            { field: "amount", op: ">=", value: 100 },
          ],
        }),
      ],
    });
    const [entry] = traced(config, blankState(), bet({ amount: "42.50" })).explanation!.entries;
    expect(entry).toMatchObject({ kind: "rule", id: "grande", matched: false, reason: { code: "condition", condition: "amount >= 100", actual: "42.50" } });
    expect(entry.reason!.message).toContain("42.50");
  });

  it("names a limit with its counter, a cooldown with its end and a dedupe key seen", () => {
    const config = casinoEngineConfig({
      rules: [
        rule("uma-vez", [{ type: "grant_xp", amount: 1 }], { limits: { max_runs_per_participant: 1 } }),
        rule("diaria", [{ type: "grant_xp", amount: 1 }], { limits: { per_participant_per_day: { runs: 1 } } }),
        rule("calma", [{ type: "grant_xp", amount: 1 }], { limits: { cooldown_seconds: 3600 } }),
        rule("unica", [{ type: "grant_xp", amount: 1 }]),
      ],
    });
    const state = blankState({
      ruleRuns: { "uma-vez": ranToday(), diaria: ranToday({ total: 7 }), calma: ranToday(), unica: ranToday({ dedupeKeys: ["bet-1"] }) },
    });
    const reasons = traced(config, state).explanation!.entries.map((entry) => entry.reason);
    expect(reasons).toEqual([
      expect.objectContaining({ code: "limit_reached", limit: "max_runs_per_participant", counter: 1, maximum: 1 }),
      expect.objectContaining({ code: "limit_reached", limit: "per_participant_per_day.runs", counter: 1, maximum: 1 }),
      expect.objectContaining({ code: "cooldown", until: "2026-11-21T15:59:00.000Z" }),
      expect.objectContaining({ code: "duplicate", dedupe_key: "bet-1" }),
    ]);
  });

  it("reports an expression error of a matched rule, a game filter and a disabled rule", () => {
    const config = casinoEngineConfig({
      rules: [
        rule("quebrada", [{ type: "grant_xp", amount: "event.meta.nope * 2" }]),
        rule("ao-vivo", [{ type: "grant_xp", amount: 1 }], { games: gameScope({ only: { categories: ["live-casino"] } }) }),
        rule("desligada", [{ type: "grant_xp", amount: 1 }], { enabled: false }),
      ],
    });
    const entries = traced(config).explanation!.entries;
    expect(entries[0]).toMatchObject({ id: "quebrada", matched: true, skipped_effects: [{ effect: "grant_xp", reason: "expression_error" }] });
    expect(entries[1]).toMatchObject({ id: "ao-vivo", matched: false, reason: { code: "game_filter" } });
    expect(entries[2]).toMatchObject({ id: "desligada", matched: false, reason: { code: "disabled" } });
  });

  it("traces missions: condition, already completed, matched", () => {
    const config = casinoEngineConfig({
      missions: [mission("grandes", { conditions: [{ field: "amount", op: ">", value: 100 }] }), mission("feita", {}), mission("conta", {})],
    });
    const state = blankState({ missions: { feita: { periodKey: "once", progress: 3, completed: true, claimed: false } } });
    expect(traced(config, state).explanation!.entries).toEqual([
      expect.objectContaining({ kind: "mission", id: "grandes", matched: false, reason: expect.objectContaining({ code: "condition", actual: 50 }) }),
      expect.objectContaining({ kind: "mission", id: "feita", matched: false, reason: expect.objectContaining({ code: "already_completed" }) }),
      { kind: "mission", id: "conta", matched: true },
    ]);
  });

  it("warns about a misspelled type naming the closest configured one, and traces the near miss", () => {
    const config = casinoEngineConfig({
      rules: [
        rule("deposito", [{ type: "grant_xp", amount: 1 }], { trigger: { event: "deposit.confirmed" } }),
        rule("aposta", [{ type: "grant_xp", amount: 1 }]),
      ],
    });
    const explanation = traced(config, blankState(), bet({ type: "deposit.confrimed" })).explanation!;
    expect(explanation.warnings).toEqual([expect.objectContaining({ code: "unknown_event_type", closest_type: "deposit.confirmed" })]);
    expect(explanation.entries).toEqual([
      { kind: "rule", id: "deposito", matched: false, reason: expect.objectContaining({ code: "trigger_type", expected_type: "deposit.confirmed" }) },
    ]);
    expect(unknownTypeWarning(config, "bet.placed")).toBeNull();
  });
});
