// The contract's text rule (spec/common.tsp `SafeString`: no NUL, no lone UTF-16
// surrogate) applied by the validator generator to every string and every map key
// of the document, so no field can miss it by being declared as a plain `string`
// in TypeSpec; and the integer rule beside it (no integer past a 32-bit column
// unless its field says so). Pure: a schema document in, a new one out.
import type { JsonSchema } from "./document.js";

/** The pattern of `SafeString` in spec/common.tsp; one pattern, so every refusal reads the same. */
export const SAFE_STRING_PATTERN = "^[^\\u0000\\uD800-\\uDFFF]*$";

/**
 * Bounds of an integer field that declares none: what the narrowest integer
 * column that stores such a field holds, so a huge integer is refused at the
 * edge (422 naming the field) instead of by the database.
 */
export const INTEGER_MAXIMUM = 2_147_483_647;
export const INTEGER_MINIMUM = -2_147_483_648;

/** Keys whose values are data, not schemas (examples, defaults, enumerations). */
const DATA_KEYS = new Set(["example", "examples", "default", "const", "enum"]);

/** Keys whose values are maps of name → schema. */
const SCHEMA_MAP_KEYS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "schemas"]);

/**
 * Every string schema without its own `enum`/`const` gets the SafeString pattern
 * (next to any pattern it already has), and every object schema gets
 * `propertyNames` with it, so map keys (`meta`, `details`) follow the same rule.
 * Walks the whole document, including the schemas inside paths and parameters.
 */
export function guardStrings<T>(node: T): T {
  return guard(node) as T;
}

function guard(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(guard);
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYS.has(key)) out[key] = value;
    else if (SCHEMA_MAP_KEYS.has(key) && isPlainObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, guard(schema)]));
    else out[key] = guard(value);
  }
  return guardSchema(out);
}

function guardSchema(schema: JsonSchema): JsonSchema {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("string") && schema.enum === undefined && schema.const === undefined && schema.pattern !== SAFE_STRING_PATTERN) {
    if (schema.pattern === undefined) schema.pattern = SAFE_STRING_PATTERN;
    // A pattern of its own may still allow NUL or a lone surrogate: the rule is added beside it.
    else schema.allOf = [...((schema.allOf as JsonSchema[] | undefined) ?? []), { pattern: SAFE_STRING_PATTERN }];
  }
  if (types.includes("object") && schema.propertyNames === undefined) schema.propertyNames = { pattern: SAFE_STRING_PATTERN };
  if (types.includes("integer")) {
    if (schema.maximum === undefined && schema.exclusiveMaximum === undefined) schema.maximum = INTEGER_MAXIMUM;
    if (schema.minimum === undefined && schema.exclusiveMinimum === undefined) schema.minimum = INTEGER_MINIMUM;
  }
  return schema;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
