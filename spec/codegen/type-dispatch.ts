// An equivalent of the document that Ajv validates faster: every `anyOf` whose
// branches accept pairwise disjoint JSON types (`MetaValue2` = leaf | array |
// object, `T | null`, `EventAmount` = number | decimal string) becomes an
// if/then/else chain on the value's type. Only the branch of the value's type
// can match, so the answer is the same; but Ajv runs an `anyOf` branch by
// branch, allocating an error object for each failed one (and, where
// `unevaluatedProperties` needs their annotations, running every branch even
// after one matched), while a failed `if` allocates nothing. Used by the
// validators only: openapi.json, the SDK types and the contract keep `anyOf`.
import type { JsonSchema } from "./document.js";

type JsonType = "string" | "number" | "integer" | "boolean" | "null" | "array" | "object";

const COMPONENT_PREFIX = "#/components/schemas/";

/**
 * The document with its type-disjoint `anyOf`s rewritten. A value of no
 * branch's type is checked against the first branch, so the first error
 * (the one a 422 reports) is the one the `anyOf` reported first; a value of
 * a later branch's type now reports that branch's own error, which names the
 * failing field more precisely. Left alone: a union whose branch types cannot
 * be read off, overlap (integer is a number), or that carries a `default`
 * inline (Ajv applies no defaults inside `anyOf`, but would inside `then`).
 */
export function dispatchByType(document: JsonSchema): JsonSchema {
  const schemas = ((document.components as { schemas?: Record<string, JsonSchema> } | undefined)?.schemas ?? {}) as Record<string, JsonSchema>;
  const typesOf = branchTypes(schemas);
  const rewrite = (node: unknown, key: string | undefined): unknown => {
    if (Array.isArray(node)) return node.map((item) => rewrite(item, undefined));
    if (typeof node !== "object" || node === null) return node;
    const out: JsonSchema = {};
    for (const [k, value] of Object.entries(node)) out[k] = DATA_KEYS.has(k) ? value : rewrite(value, k);
    // `properties` maps names to schemas: a property named "anyOf" is not the keyword.
    if (key === "properties" || key === "patternProperties" || key === "$defs") return out;
    return dispatched(out, typesOf) ?? out;
  };
  return rewrite(document, undefined) as JsonSchema;
}

/** Values under these keys are data, not schemas. */
const DATA_KEYS = new Set(["example", "examples", "default", "const", "enum"]);

/** The if/then/else chain equivalent to `schema`'s `anyOf`, or undefined when it does not qualify. */
function dispatched(schema: JsonSchema, typesOf: (schema: JsonSchema) => Set<JsonType> | undefined): JsonSchema | undefined {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length < 2) return undefined;
  if ("if" in schema || "then" in schema || "else" in schema) return undefined;
  const types = (branches as JsonSchema[]).map((branch) => (hasInlineDefault(branch) ? undefined : typesOf(branch)));
  if (!types.every((set): set is Set<JsonType> => set !== undefined && set.size > 0)) return undefined;
  if (!pairwiseDisjoint(types)) return undefined;
  const { anyOf: _anyOf, ...rest } = schema;
  let chain: JsonSchema = branches[0] as JsonSchema;
  for (let i = branches.length - 1; i >= 0; i--) {
    chain = { if: { type: typeList(types[i]) }, then: branches[i] as JsonSchema, else: chain };
  }
  return { ...rest, ...chain };
}

function typeList(types: Set<JsonType>): JsonType | JsonType[] {
  const list = [...types].sort();
  return list.length === 1 ? list[0] : list;
}

/** Disjoint as sets of JSON values: every integer is also a number. */
function pairwiseDisjoint(types: Set<JsonType>[]): boolean {
  const seen = new Set<JsonType>();
  for (const set of types) {
    const normalized = new Set([...set].map((t) => (t === "integer" ? "number" : t)));
    for (const t of normalized) if (seen.has(t)) return false;
    for (const t of normalized) seen.add(t);
  }
  return true;
}

/**
 * The JSON types a schema can accept, when its keywords say so: `type`,
 * `const`/`enum` values, a component `$ref`, `allOf` (intersection), or an
 * `anyOf`/`oneOf` (union). Undefined when unknown (e.g. `{}` or `not`).
 */
function branchTypes(schemas: Record<string, JsonSchema>): (schema: JsonSchema) => Set<JsonType> | undefined {
  const resolving = new Set<string>();
  const cache = new Map<string, Set<JsonType> | undefined>();
  const typesOf = (schema: JsonSchema): Set<JsonType> | undefined => {
    const constraints: Set<JsonType>[] = [];
    if (typeof schema.type === "string") constraints.push(new Set([schema.type as JsonType]));
    else if (Array.isArray(schema.type)) constraints.push(new Set(schema.type as JsonType[]));
    if ("const" in schema) constraints.push(new Set([jsonTypeOf(schema.const)]));
    if (Array.isArray(schema.enum)) constraints.push(new Set(schema.enum.map(jsonTypeOf)));
    if (typeof schema.$ref === "string") {
      const referenced = componentTypes(schema.$ref);
      if (referenced) constraints.push(referenced);
    }
    if (Array.isArray(schema.allOf)) {
      for (const part of schema.allOf as JsonSchema[]) {
        const types = typesOf(part);
        if (types) constraints.push(types);
      }
    }
    for (const keyword of ["anyOf", "oneOf"] as const) {
      const parts = schema[keyword];
      if (!Array.isArray(parts)) continue;
      const each = (parts as JsonSchema[]).map(typesOf);
      if (each.every((set) => set !== undefined)) constraints.push(new Set(each.flatMap((set) => [...set!])));
    }
    if (constraints.length === 0) return undefined;
    return constraints.reduce(intersect);
  };
  const componentTypes = (ref: string): Set<JsonType> | undefined => {
    if (!ref.startsWith(COMPONENT_PREFIX)) return undefined;
    const name = ref.slice(COMPONENT_PREFIX.length).replace(/~1/g, "/").replace(/~0/g, "~");
    if (cache.has(name)) return cache.get(name);
    const schema = schemas[name];
    // A component that refers back to itself before saying its type: unknown.
    if (!schema || resolving.has(name)) return undefined;
    resolving.add(name);
    const types = typesOf(schema);
    resolving.delete(name);
    cache.set(name, types);
    return types;
  };
  return typesOf;
}

/** The types both sets accept; an integer is a number, so {integer} ∩ {number} = {integer}. */
function intersect(a: Set<JsonType>, b: Set<JsonType>): Set<JsonType> {
  const accepts = (set: Set<JsonType>, t: JsonType) => set.has(t) || (t === "integer" && set.has("number"));
  return new Set([...a, ...b].filter((t) => accepts(a, t) && accepts(b, t)));
}

function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value as JsonType;
}

/** A `default` written inside the branch itself (not behind a `$ref`, which Ajv compiles as its own function either way). */
function hasInlineDefault(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasInlineDefault);
  if (typeof node !== "object" || node === null) return false;
  for (const [key, value] of Object.entries(node)) {
    if (key === "default") return true;
    if (key !== "example" && key !== "examples" && key !== "const" && key !== "enum" && hasInlineDefault(value)) return true;
  }
  return false;
}
