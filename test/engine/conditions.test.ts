import { describe, expect, it } from "vitest";
import type { ConditionOperator, ConditionValue, RuleCondition } from "../../server/src/engine/config.js";
import fc from "fast-check";
import { evaluateCondition, eventField, isDecimalText, type ConditionContext } from "../../server/src/engine/conditions.js";
import { bet } from "./fixtures.js";

function context(overrides: Partial<ConditionContext> = {}): ConditionContext {
  return {
    event: bet({ amount: 50, meta: { game_type: "crash", outcome: "lost", round_id: 77, live: true } }),
    participant: { xp: 1200, level: 3, tier: "prata", tags: ["vip", "br"] },
    eventCountBefore: 0,
    ...overrides,
  };
}

const field = (path: string, op: ConditionOperator, value: ConditionValue): RuleCondition => ({ field: path, op, value });
const holds = (condition: RuleCondition, ctx = context()) => evaluateCondition(condition, ctx);

describe("field conditions", () => {
  it.each([
    // amount 50: each operator just below, at and above the value
    [">", 49, true],
    [">", 50, false],
    [">=", 50, true],
    [">=", 51, false],
    ["<", 51, true],
    ["<", 50, false],
    ["<=", 50, true],
    ["<=", 49, false],
    ["==", 50, true],
    ["==", 50.01, false],
    ["!=", 49, true],
    ["!=", 50, false],
    ["in", [10, 50], true],
    ["in", [10, 20], false],
    ["not_in", [10, 20], true],
    ["not_in", [10, 50], false],
  ] as const)("amount %s %j is %s", (op, value, expected) => {
    expect(holds(field("amount", op, value as ConditionValue))).toBe(expected);
  });

  it("compares a decimal-string amount numerically", () => {
    const ctx = context({ event: bet({ amount: "100.50" }) });
    expect(holds(field("amount", ">", 100.4), ctx)).toBe(true);
    expect(holds(field("amount", "==", 100.5), ctx)).toBe(true);
    expect(holds(field("amount", "<", 99), ctx)).toBe(false);
  });

  it.each([
    ["==", "crash", true],
    ["==", "Crash", false],
    ["!=", "video-slots", true],
    ["in", ["crash", "fast-games"], true],
    ["not_in", ["crash", "fast-games"], false],
    [">", "bingo", true],
  ] as const)("meta.game_type %s %j is %s", (op, value, expected) => {
    expect(holds(field("meta.game_type", op, value as ConditionValue))).toBe(expected);
  });

  it("reads a number in the event as text against a string value", () => {
    expect(holds(field("meta.round_id", "==", "77"))).toBe(true);
    expect(holds(field("meta.round_id", "in", ["76", "77"]))).toBe(true);
  });

  it("compares booleans only for equality", () => {
    expect(holds(field("meta.live", "==", true))).toBe(true);
    expect(holds(field("meta.live", "!=", false))).toBe(true);
    expect(holds(field("meta.live", ">", false))).toBe(false);
  });

  it.each([
    [">", 0, false],
    [">=", 0, false],
    ["<", 0, false],
    ["<=", 0, false],
    ["==", "x", false],
    ["!=", "x", true],
    ["in", ["x"], false],
    ["not_in", ["x"], true],
  ] as const)("a missing field makes %s false except != and not_in (%s %j → %s)", (op, value, expected) => {
    expect(holds(field("meta.bonus_code", op, value as ConditionValue))).toBe(expected);
  });

  it("treats a field of the wrong type like a missing one", () => {
    expect(holds(field("meta.game_type", ">", 10))).toBe(false);
    expect(holds(field("meta.game_type", "!=", 10))).toBe(true);
  });

  it("takes a single value for in/not_in as a list of one", () => {
    expect(holds(field("currency", "in", "BRL"))).toBe(true);
    expect(holds(field("currency", "not_in", "BRL"))).toBe(false);
  });

  it("never orders against a list", () => {
    expect(holds(field("amount", ">", [1, 2]))).toBe(false);
    expect(holds(field("amount", "==", [50]))).toBe(false);
    expect(holds(field("amount", "!=", [50]))).toBe(true);
  });

  it("reads the top-level event fields and the participant", () => {
    expect(holds(field("type", "==", "bet.placed"))).toBe(true);
    expect(holds(field("currency", "==", "BRL"))).toBe(true);
    expect(holds(field("participant.level", ">=", 3))).toBe(true);
    expect(holds(field("participant.xp", "<", 1200))).toBe(false);
    expect(holds(field("participant.tier", "in", ["prata", "ouro"]))).toBe(true);
  });
});

describe("participant conditions", () => {
  it("segment and segment_not look at the tags", () => {
    expect(holds({ segment: "vip" })).toBe(true);
    expect(holds({ segment: "novo" })).toBe(false);
    expect(holds({ segment_not: "vip" })).toBe(false);
    expect(holds({ segment_not: "novo" })).toBe(true);
  });

  it("tier_in looks at the current tier", () => {
    expect(holds({ tier_in: ["prata", "ouro"] })).toBe(true);
    expect(holds({ tier_in: ["bronze"] })).toBe(false);
  });

  it("first_time holds only when no earlier event of the type exists", () => {
    expect(holds({ first_time: true }, context({ eventCountBefore: 0 }))).toBe(true);
    expect(holds({ first_time: true }, context({ eventCountBefore: 1 }))).toBe(false);
  });

  it("nth counts this event", () => {
    expect(holds({ nth: 3 }, context({ eventCountBefore: 1 }))).toBe(false);
    expect(holds({ nth: 3 }, context({ eventCountBefore: 2 }))).toBe(true);
    expect(holds({ nth: 3 }, context({ eventCountBefore: 3 }))).toBe(false);
    expect(holds({ nth: 1 }, context({ eventCountBefore: 0 }))).toBe(true);
  });
});

describe("eventField", () => {
  const event = bet({ meta: { round: { id: "r-1" }, list: [1] } });
  it.each([
    ["amount", 50],
    ["event.amount", 50],
    ["meta.round.id", "r-1"],
    ["event.meta.round.id", "r-1"],
    ["meta.round.missing", undefined],
    ["meta.list.0", undefined],
    ["meta.nothing.deeper", undefined],
    ["meta.constructor", undefined],
  ])("%s → %j", (path, value) => {
    expect(eventField(event, path)).toEqual(value);
  });
});

describe("isDecimalText", () => {
  it("accepts exactly what /^-?\\d+(\\.\\d+)?$/ accepts", () => {
    const decimalish = fc.stringMatching(/^-?[0-9.]{0,6}$/);
    const anything = fc.oneof(
      decimalish,
      fc.string({ maxLength: 8 }),
      fc.constantFrom("", "-", ".", "1.", ".5", "-.5", "1.5", "-0", "10.50", "1e3", " 1", "1 ", "+1", "١٢"),
    );
    fc.assert(
      fc.property(anything, (text) => {
        expect(isDecimalText(text)).toBe(/^-?\d+(\.\d+)?$/.test(text));
      }),
      { numRuns: 5000 },
    );
  });
});
