import { describe, expect, it } from "vitest";
import { compileExpression, ExpressionError, resolveAmount, type ExpressionVariables } from "../../server/src/engine/expressions.js";

const variables: ExpressionVariables = {
  event: {
    type: "bet.placed",
    id: "bet-1",
    amount: 250,
    currency: "BRL",
    occurred_at: "2026-11-21T15:00:00.000Z",
    meta: { game_type: "crash", multiplier: 2.5, round: { id: "r-9" } },
  },
  participant: { xp: 1200, level: 3, tier: "prata", tags: ["vip", "br"] },
};

const run = (source: string) => compileExpression(source)(variables);

describe("compileExpression", () => {
  it.each([
    ["event.amount * 0.1", 25],
    ["event.amount * 2", 500],
    ["2 * event.amount", 500],
    ["event.amount / 3", 83.3333333333],
    ["event.amount + 1", 251],
    ["event.amount - 1", 249],
    ["event.meta.multiplier * 10", 25],
    ['event.meta.game_type == "crash" ? 50 : 10', 50],
    ["participant.level * 100", 300],
    ['"vip" in participant.tags ? 2.0 : 1.0', 2],
    ["size(participant.tags)", 2],
    ["has(event.meta.bonus) ? 1 : 0", 0],
    ["0.57 * 100", 57],
    ["-5", -5],
  ])("%s = %d", (source, value) => {
    expect(run(source)).toEqual({ ok: true, value });
  });

  it("parses each expression once", () => {
    expect(compileExpression("event.amount * 0.25")).toBe(compileExpression("event.amount * 0.25"));
  });

  it("reports a non-number result instead of a value", () => {
    expect(run("event.currency")).toMatchObject({ ok: false, reason: "not_a_number", detail: expect.stringContaining('"BRL"') });
    expect(run("participant.tags")).toMatchObject({ ok: false, reason: "not_a_number" });
    expect(run("1.0 / 0.0")).toMatchObject({ ok: false, reason: "not_a_number" });
  });

  it("reports a failing evaluation", () => {
    expect(run("event.meta.missing * 2")).toMatchObject({ ok: false, reason: "expression_error", detail: expect.stringContaining("missing") });
    expect(run("10 / 0")).toMatchObject({ ok: false, reason: "expression_error" });
  });

  it.each([["process.exit(1)"], ["globalThis.x"], ["amount * 2"], ["config.secret"]])("has no access to anything but event and participant: %s", (source) => {
    expect(() => compileExpression(source)).toThrow(ExpressionError);
    expect(() => compileExpression(source)).toThrow(/Unknown variable/);
  });

  it("refuses syntax errors and results that can never be numbers", () => {
    expect(() => compileExpression("event.amount *")).toThrow(ExpressionError);
    expect(() => compileExpression('"ten"')).toThrow(/gives a string, not a number/);
    expect(() => compileExpression("event.amount > 10")).toThrow(/gives a bool/);
  });
});

describe("resolveAmount", () => {
  it("passes numbers through", () => {
    expect(resolveAmount(15, variables)).toEqual({ ok: true, value: 15 });
  });

  it("evaluates strings as expressions", () => {
    expect(resolveAmount("event.amount * 0.1", variables)).toEqual({ ok: true, value: 25 });
  });

  it("turns a compile error into a failed result", () => {
    expect(resolveAmount("foo + 1", variables)).toMatchObject({ ok: false, reason: "expression_error", detail: expect.stringContaining("foo") });
  });
});
