/*
 * JSON text of response parts that do not change between requests (a level
 * table, a participant view of the published configuration): serialised once
 * per object, then spliced into each answer that holds the object, instead of
 * re-serialising the same data on every request. Keyed by the object itself,
 * so the text lives exactly as long as the cached object it was made from.
 * The objects marked must not be changed afterwards.
 */

const texts = new WeakMap<object, string>();

/** Marks `value` as never changing again: its JSON text is made now and reused by `jsonText`. */
export function frozenJson<T extends object>(value: T): T {
  if (!texts.has(value)) texts.set(value, JSON.stringify(value));
  return value;
}

/**
 * The text of a per-request value, on the value itself: in the WeakMap, an
 * entry would keep its text alive through the next young-generation
 * collection (V8's scavenger holds a WeakMap's values strongly), a copy per
 * answer. Not enumerable and a symbol, so JSON.stringify, Object.keys and
 * spreads never see it.
 */
const TEXT = Symbol("jsonText");
type Marked = { [TEXT]?: string };

/**
 * Marks `value` with `text`, its JSON.stringify made by the caller (from
 * parts serialised once): `jsonText` takes it as made. The caller vouches
 * for the text, and `value` must not change afterwards. For values made per
 * request (not frozen); `frozenJson` for those that are cached.
 */
export function withJsonText<T extends object>(value: T, text: string): T {
  Object.defineProperty(value, TEXT, { value: text });
  return value;
}

const markedText = (value: object): string | undefined => texts.get(value) ?? (value as Marked)[TEXT];

/**
 * `JSON.stringify(body)`, with the JSON text of each object marked by
 * `frozenJson` or `withJsonText` (the body itself, or a value of one of its own properties)
 * taken as made. The same text as JSON.stringify: properties in their order,
 * those whose value has no JSON form (undefined, functions) left out.
 */
export function jsonText(body: unknown): string {
  if (typeof body !== "object" || body === null) return JSON.stringify(body);
  const whole = markedText(body);
  if (whole !== undefined) return whole;
  if (Array.isArray(body) || typeof (body as { toJSON?: unknown }).toJSON === "function") return JSON.stringify(body);
  let out = "{";
  for (const key of Object.keys(body)) {
    const value = (body as Record<string, unknown>)[key];
    const text = (typeof value === "object" && value !== null && markedText(value)) || (JSON.stringify(value) as string | undefined);
    if (text === undefined) continue;
    out += `${out.length > 1 ? "," : ""}${JSON.stringify(key)}:${text}`;
  }
  return `${out}}`;
}
