import type { ConditionValue, FieldCondition, RuleCondition } from "./config.js";
import type { ExpressionParticipant } from "./expressions.js";
import type { EngineEvent } from "./types.js";

/**
 * The value at a dotted path of the event ("amount", "meta.game_type"). A
 * leading "event." is accepted so rule `idempotency` paths ("event.meta.round_id")
 * and condition fields share one resolver. Missing steps give undefined.
 */
export function eventField(event: EngineEvent, path: string): unknown {
  return pathValue(event, pathSteps(eventPaths, path, "event."));
}

/**
 * The steps of each dotted path seen, by the path as configured (its prefix
 * stripped once): rule conditions, idempotency paths and mission fields are
 * read on every event, and slicing and splitting the text each time
 * allocates. Paths come from published configs (a small set); the bound only
 * protects a long-running process from configs edited many times.
 */
const STEPS_LIMIT = 1000;
const eventPaths = new Map<string, readonly string[]>();
const participantPaths = new Map<string, readonly string[]>();

/** `path` without `prefix` (when it has it), split at its dots. */
function pathSteps(memo: Map<string, readonly string[]>, path: string, prefix: string): readonly string[] {
  let steps = memo.get(path);
  if (!steps) {
    if (memo.size >= STEPS_LIMIT) memo.clear();
    memo.set(path, (steps = Object.freeze((path.startsWith(prefix) ? path.slice(prefix.length) : path).split("."))));
  }
  return steps;
}

function pathValue(root: object, steps: readonly string[]): unknown {
  let value: unknown = root;
  // An index loop: a for…of over the frozen steps allocated an iterator per read.
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    if (value === null || typeof value !== "object" || Array.isArray(value) || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

/** A number from a JSON number or a decimal string ("10.50"); NaN otherwise. */
export function numericValue(value: unknown): number {
  if (typeof value === "number") return value;
  return typeof value === "string" && isDecimalText(value) ? Number(value) : Number.NaN;
}

/**
 * Whether `text` is an optional minus, digits, and optionally a point and
 * digits (/^-?\d+(\.\d+)?$/), read character by character: event amounts
 * are read this way for conditions, expressions and missions of every event,
 * and the regular expression cost more than the number.
 */
export function isDecimalText(text: string): boolean {
  const length = text.length;
  let i = length > 0 && text.charCodeAt(0) === 45 ? 1 : 0;
  const wholeStart = i;
  while (i < length && isDigit(text.charCodeAt(i))) i++;
  if (i === wholeStart) return false;
  if (i === length) return true;
  if (text.charCodeAt(i) !== 46) return false;
  const fractionStart = ++i;
  while (i < length && isDigit(text.charCodeAt(i))) i++;
  return i === length && i > fractionStart;
}

function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

type Comparison = "equal" | "less" | "greater" | "incomparable";

/** Text from a string, or from a number as written in JSON (numeric game or round ids). */
export function textValue(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  return typeof value === "number" ? String(value) : undefined;
}

function order<T extends number | string>(left: T, right: T): Comparison {
  if (left === right) return "equal";
  return left < right ? "less" : "greater";
}

/**
 * Compares an event value with a configured scalar: numerically when the
 * configured value is a number (a decimal string in the event counts as a
 * number), as text when it is a string, and for equality only with a boolean.
 */
function compare(actual: unknown, expected: number | string | boolean): Comparison {
  if (typeof expected === "boolean") return actual === expected ? "equal" : "incomparable";
  if (typeof expected === "number") {
    const number = numericValue(actual);
    return Number.isNaN(number) ? "incomparable" : order(number, expected);
  }
  const text = textValue(actual);
  return text === undefined ? "incomparable" : order(text, expected);
}

function asList(value: ConditionValue): (number | string | boolean)[] {
  return Array.isArray(value) ? value : [value];
}

export interface ConditionContext {
  event: EngineEvent;
  /** The participant as it is when the rule runs (after earlier rules' effects). */
  participant: ExpressionParticipant;
  /** Events of this type the participant had before this one. */
  eventCountBefore: number;
}

/** A condition field: "participant.<xp|level|tier|tags>" reads the participant, anything else the event. */
function conditionField(context: ConditionContext, path: string): unknown {
  return path.startsWith("participant.") ? pathValue(context.participant, pathSteps(participantPaths, path, "participant.")) : eventField(context.event, path);
}

/**
 * `{field, op, value}` on the event or the participant. A missing or incomparable field makes
 * every operator false except `!=` and `not_in`, which are true. `in`/`not_in`
 * take a list (a single value counts as a list of one); the ordering operators
 * are false against a list.
 */
export function evaluateFieldCondition(condition: FieldCondition, context: ConditionContext): boolean {
  const actual = conditionField(context, condition.field);
  const { op, value } = condition;
  if (op === "in" || op === "not_in") {
    const found = asList(value).some((candidate) => compare(actual, candidate) === "equal");
    return op === "in" ? found : !found;
  }
  if (Array.isArray(value)) return op === "!=";
  const comparison = compare(actual, value);
  switch (op) {
    case "==":
      return comparison === "equal";
    case "!=":
      return comparison !== "equal";
    case ">":
      return comparison === "greater";
    case ">=":
      return comparison === "greater" || comparison === "equal";
    case "<":
      return comparison === "less";
    case "<=":
      return comparison === "less" || comparison === "equal";
  }
}

/** Any rule condition form, against the event and the participant as it is now. */
export function evaluateCondition(condition: RuleCondition, context: ConditionContext): boolean {
  if ("field" in condition) return evaluateFieldCondition(condition, context);
  const { tags, tier } = context.participant;
  if ("segment" in condition) return tags.includes(condition.segment);
  if ("segment_not" in condition) return !tags.includes(condition.segment_not);
  if ("tier_in" in condition) return condition.tier_in.includes(tier);
  if ("first_time" in condition) return context.eventCountBefore === 0;
  return context.eventCountBefore + 1 === condition.nth;
}
