// The mutation space of the fuzz suite's every-field pass: for every operation,
// a valid base request (the contract's example, completed with each optional
// field the example leaves out) and every place in it a client controls — each
// string at any depth (array items included), each map key, each number, each
// path and query parameter — with the values that once reached the database.
import { readFileSync } from "node:fs";
import { operations } from "../../generated/operations.js";
import { operationValidators } from "../../generated/validators.js";

const openapi = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));
type Schema = Record<string, any>;
type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const STORED_TEXT_REFUSED = ["\u0000", "a\u0000b", "\uD800", "x\uDFFF", "\uDC00\uD800"];
/** Text that is valid and must be handled (stored, compared, echoed) without a 5xx. */
export const AWKWARD_TEXT = [
  "\u202Eevil\u202C",
  "\u200F\u0627\u0644\u0639\u0631\u0628\u064A\u0629\u200E",
  "e\u0301\u0301\u0301",
  "Z\u0351\u0364\u036B\u0310",
  "\u0661\u0662\u0663",
  "\uFF11\uFF12\uFF13",
  "\uD835\uDFD9\uD835\uDFDA",
  "𝕏🎰",
  "'; DROP TABLE participants; --",
  "%00",
  "",
  " ",
];
// eslint-disable-next-line no-loss-of-precision -- 2^53 + 1 on purpose: a value a double cannot hold
export const NASTY_NUMBERS = [-0, 1e308, -1e308, 2 ** 64, -(2 ** 63), 9007199254740993, 5e-324, 0.1 + 0.2];
export const MEGABYTE = "x".repeat(1024 * 1024);

function resolve(schema: Schema | undefined, depth = 0): Schema {
  if (!schema || depth > 12) return {};
  if (schema.$ref) return resolve(openapi.components.schemas[schema.$ref.split("/").pop()], depth + 1);
  if (schema.allOf) return schema.allOf.reduce((merged: Schema, part: Schema) => ({ ...merged, ...resolve(part, depth + 1) }), { ...schema, allOf: undefined });
  return schema;
}

/** A plausible value for a schema (first branch of a union, first enum value, a format's example). */
function synthesize(raw: Schema | undefined, depth = 0): Json | undefined {
  const schema = resolve(raw);
  if (depth > 6) return undefined;
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    for (const branch of branches) {
      const value = synthesize(branch, depth + 1);
      if (value !== undefined && value !== null) return value;
    }
    return undefined;
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  switch (type) {
    case "string":
      if (schema.format === "date-time") return "2026-01-01T00:00:00Z";
      if (schema.format === "uri") return "https://example.com/fuzz";
      if (schema.format === "email") return "fuzz@example.com";
      return "fuzz".padEnd(schema.minLength ?? 0, "z");
    case "integer":
    case "number":
      return Math.max(1, schema.minimum ?? 1);
    case "boolean":
      return true;
    case "array": {
      const item = synthesize(schema.items, depth + 1);
      return item === undefined ? [] : [item];
    }
    case "object":
    default: {
      if (!schema.properties && !schema.additionalProperties && type !== "object") return undefined;
      const out: Record<string, Json> = {};
      for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) {
        const value = synthesize(property, depth + 1);
        if (value !== undefined) out[name] = value;
      }
      if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
        const value = synthesize(schema.additionalProperties, depth + 1);
        if (value !== undefined) out.fuzz_key = value;
      }
      return out;
    }
  }
}

/** A place in a body: `path` of keys to a value; `key` when the place is the last key itself (a map key). */
export interface Slot {
  path: (string | number)[];
  kind: "string" | "key" | "number";
}

function slotsOf(value: Json, path: (string | number)[] = []): Slot[] {
  if (typeof value === "string") return [{ path, kind: "string" }];
  if (typeof value === "number") return [{ path, kind: "number" }];
  if (Array.isArray(value)) return value.flatMap((item, i) => slotsOf(item, [...path, i]));
  if (value && typeof value === "object") {
    return Object.entries(value).flatMap(([key, inner]) => [{ path: [...path, key], kind: "key" as const }, ...slotsOf(inner, [...path, key])]);
  }
  return [];
}

/** `base` with the value (or, for a key slot, the key) at `slot` replaced. */
export function mutate(base: Json, slot: Slot, replacement: Json): Json {
  const copy = structuredClone(base);
  if (slot.path.length === 0) return replacement;
  let parent: any = copy;
  for (const step of slot.path.slice(0, -1)) parent = parent[step];
  const last = slot.path[slot.path.length - 1];
  if (slot.kind === "key") {
    const entries = Object.entries(parent).map(([k, v]) => (k === last ? [String(replacement), v] : [k, v]));
    for (const k of Object.keys(parent)) delete parent[k];
    Object.assign(parent, Object.fromEntries(entries));
  } else parent[last] = replacement;
  return copy;
}

export interface FuzzOperation {
  operationId: string;
  method: string;
  /** The path with `{name}` placeholders. */
  path: string;
  pathParams: string[];
  queryParams: { name: string; schema: Schema }[];
  participant: boolean;
  /** Accepts only a staff session (the console's own-account operations): sent with an owner's session. */
  session: boolean;
  /** Valid bodies (the example, and the example plus each field it leaves out), each with its slots. */
  bases: { body: Json; slots: Slot[] }[];
  validateBody?: (body: unknown) => boolean;
}

const accepts = (validate: ((body: unknown) => boolean) | undefined, body: Json) => !validate || validate(structuredClone(body));

const sessionOnly = (security: readonly (readonly string[])[]) =>
  security.length > 0 && security.every((alt) => alt.length === 1 && alt[0] === "StaffSessionAuth");

export const fuzzOperations: FuzzOperation[] = operations.map((op) => {
  const spec = openapi.paths[op.path][op.method];
  const media = spec.requestBody?.content?.["application/json"];
  const validators = operationValidators[op.operationId as keyof typeof operationValidators] as { body?: (body: unknown) => boolean };
  const validateBody = validators.body ? (body: unknown) => validators.body!(body) : undefined;
  const bases: { body: Json; slots: Slot[] }[] = [];
  if (media) {
    const schema = resolve(media.schema);
    const named = Object.values<{ value?: Json }>(media.examples ?? {})[0]?.value;
    const example: Json = media.example ?? named ?? synthesize(schema) ?? {};
    if (accepts(validateBody, example)) bases.push({ body: example, slots: slotsOf(example) });
    // Each field the example leaves out, added alone, so its own slots are tested on an otherwise valid body.
    if (example && typeof example === "object" && !Array.isArray(example)) {
      for (const [name, property] of Object.entries<Schema>(schema.properties ?? {})) {
        if (name in example) continue;
        const value = synthesize(property);
        if (value === undefined) continue;
        const body = { ...example, [name]: value };
        if (accepts(validateBody, body)) bases.push({ body, slots: slotsOf(value, [name]).concat([{ path: [name], kind: "key" }]) });
      }
    }
  }
  const security = op.security as readonly (readonly string[])[];
  return {
    operationId: op.operationId,
    method: op.method.toUpperCase(),
    path: op.path,
    pathParams: [...op.params.path],
    queryParams: (spec.parameters ?? []).filter((p: any) => p.in === "query").map((p: any) => ({ name: p.name, schema: resolve(p.schema) })),
    participant:
      security.length > 0 && security.every((alt) => !alt.includes("SecretKeyAuth") || alt.includes("ParticipantHeaderAuth")) && !sessionOnly(security),
    session: sessionOnly(security),
    bases,
    validateBody,
  };
});
