import { Environment } from "@marcbachmann/cel-js";
import { withoutFloatNoise } from "./money.js";

/**
 * Rule amounts written as CEL expressions (`"event.amount * 0.1"`). Only the
 * two declared variables exist: an expression naming anything else fails to
 * compile, and CEL itself has no I/O, loops or host access.
 */

export interface ExpressionEvent {
  type: string;
  id: string | null;
  /** Main units; 0 when the event carries no amount. */
  amount: number;
  currency: string;
  occurred_at: string;
  meta: Record<string, unknown>;
}

export interface ExpressionParticipant {
  xp: number;
  level: number;
  tier: string;
  tags: string[];
}

export interface ExpressionVariables {
  event: ExpressionEvent;
  participant: ExpressionParticipant;
}

export type ExpressionResult = { ok: true; value: number } | { ok: false; reason: "expression_error" | "not_a_number"; detail: string };

export type CompiledExpression = (variables: ExpressionVariables) => ExpressionResult;

export class ExpressionError extends Error {
  override name = "ExpressionError";
}

// JSON numbers reach CEL as doubles while literals like `2` are ints, and CEL
// has no mixed arithmetic: without these, `event.amount * 2` would fail.
const mixedArithmetic: Record<string, (a: number, b: number) => number> = {
  "+": (a, b) => a + b,
  "-": (a, b) => a - b,
  "*": (a, b) => a * b,
  "/": (a, b) => a / b,
};

const environment = (() => {
  const env = new Environment().registerVariable("event", "map").registerVariable("participant", "map");
  for (const [operator, apply] of Object.entries(mixedArithmetic)) {
    env.registerOperator(`double ${operator} int`, (a: number, b: bigint) => apply(a, Number(b)));
    env.registerOperator(`int ${operator} double`, (a: bigint, b: number) => apply(Number(a), b));
  }
  return env;
})();

const NUMERIC_TYPES = new Set(["int", "uint", "double", "dyn"]);

// Expressions come from published configs, so the set is small; the bound only
// protects a long-running process from configs edited many times.
const CACHE_LIMIT = 1000;
const cache = new Map<string, CompiledExpression>();

/**
 * Parses and type-checks `source` once (cached by source text). Throws
 * ExpressionError for a syntax error or a name other than `event`/`participant`.
 */
export function compileExpression(source: string): CompiledExpression {
  const cached = cache.get(source);
  if (cached) return cached;
  const compiled = build(source);
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  cache.set(source, compiled);
  return compiled;
}

function build(source: string): CompiledExpression {
  let program: ReturnType<Environment["parse"]>;
  try {
    program = environment.parse(source);
  } catch (error) {
    throw new ExpressionError(`invalid expression ${JSON.stringify(source)}: ${firstLine(error)}`);
  }
  const checked = program.check();
  if (!checked.valid) throw new ExpressionError(`invalid expression ${JSON.stringify(source)}: ${firstLine(checked.error)}`);
  // `dyn` (anything read from event or participant) is checked when it runs.
  if (!NUMERIC_TYPES.has(checked.type ?? "dyn")) {
    throw new ExpressionError(`expression ${JSON.stringify(source)} gives a ${checked.type}, not a number`);
  }
  return (variables) => {
    let value: unknown;
    try {
      value = program(variables);
    } catch (error) {
      return { ok: false, reason: "expression_error", detail: firstLine(error) };
    }
    const number = typeof value === "bigint" ? Number(value) : value;
    if (typeof number !== "number" || !Number.isFinite(number)) {
      return { ok: false, reason: "not_a_number", detail: `the expression gave ${describe(value)}, not a finite number` };
    }
    // The caller truncates to whole units: binary noise must not cost one.
    return { ok: true, value: withoutFloatNoise(number) };
  };
}

/** A rule amount: a number as configured, or the value of its expression. */
export function resolveAmount(amount: number | string, variables: ExpressionVariables): ExpressionResult {
  if (typeof amount === "number") return { ok: true, value: amount };
  try {
    return compileExpression(amount)(variables);
  } catch (error) {
    return { ok: false, reason: "expression_error", detail: firstLine(error) };
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0];
}

function describe(value: unknown): string {
  if (typeof value === "string") return `the string ${JSON.stringify(value)}`;
  if (typeof value === "number") return String(value);
  if (value === null) return "null";
  return `a ${typeof value === "object" ? (Array.isArray(value) ? "list" : "map") : typeof value}`;
}
