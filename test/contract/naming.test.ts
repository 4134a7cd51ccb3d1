// The API naming rule (spec/common.tsp, "Naming and amounts"), checked on the
// published document: every JSON property of a request body, a response or a
// webhook payload is snake_case, and integers that count money say so with a
// `_minor` suffix. The club configuration document (the ClubConfig tree that
// the config routes carry) keeps the seed's camelCase and is the only
// exception.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

type Json = unknown;
type Doc = { paths: Record<string, Record<string, Json>>; webhooks?: Record<string, Json>; components: { schemas: Record<string, Json> } };

const doc = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as Doc;

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const SCHEMA_REF = "#/components/schemas/";
const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);

/**
 * Names that, on an integer, count money without saying the unit: the API
 * writes them `amount_minor`, `balance_minor`, `balance_after_minor`… (XP
 * effects keep their unitless `amount`: XP is not money).
 */
const UNITLESS_MONEY = new Set(["amount", "balance", "balance_after", "cost", "price", "loss", "min_loss", "available", "claimed", "max", "total_amount"]);

/** Reward payloads defined by the configuration (`rewards[].payload`) keep the configuration's names on the way out too. */
const CONFIG_PAYLOAD_FIELDS = new Set(["RewardDeliveryPayload.amount_cents"]);

function isObject(node: Json): node is Record<string, Json> {
  return typeof node === "object" && node !== null && !Array.isArray(node);
}

/** Every schema name referenced anywhere under `node` (not following the references). */
function refsIn(node: Json, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) refsIn(item, out);
  else if (isObject(node)) {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith(SCHEMA_REF)) out.add(value.slice(SCHEMA_REF.length));
      else if (key !== "example" && key !== "examples") refsIn(value, out);
    }
  }
  return out;
}

/** The schemas reachable from `roots`, not entering `stop`. */
function closure(d: Doc, roots: Iterable<string>, stop: Set<string> = new Set()): Set<string> {
  const seen = new Set<string>();
  const todo = [...roots];
  while (todo.length > 0) {
    const name = todo.pop()!;
    if (seen.has(name) || stop.has(name)) continue;
    seen.add(name);
    todo.push(...refsIn(d.components.schemas[name]));
  }
  return seen;
}

/** Request bodies, responses and webhook payloads: what the API sends and accepts as JSON (parameters are not JSON bodies). */
function bodies(d: Doc): { where: string; node: Json }[] {
  const out: { where: string; node: Json }[] = [];
  for (const [path, item] of Object.entries(d.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method) || !isObject(op)) continue;
      out.push({ where: `${method.toUpperCase()} ${path} request`, node: op.requestBody }, { where: `${method.toUpperCase()} ${path} responses`, node: op.responses });
    }
  }
  for (const [name, item] of Object.entries(d.webhooks ?? {})) out.push({ where: `webhook ${name}`, node: item });
  return out;
}

/**
 * The configuration document: the schema `PUT /v1/config/draft` accepts (the
 * one `ConfigDraft.config` and `ConfigEnvelope.config` carry) and everything it
 * references.
 */
function configSchemas(d: Doc): Set<string> {
  const put = d.paths["/v1/config/draft"]?.put as Record<string, Json> | undefined;
  const root = [...refsIn((put?.requestBody as Json) ?? null)];
  if (root.length !== 1) throw new Error(`PUT /v1/config/draft should accept one schema, found ${root.join(", ") || "none"}`);
  return closure(d, root);
}

/** `integer`, or `integer | null`. */
function isInteger(schema: Json): boolean {
  if (!isObject(schema)) return false;
  if (schema.type === "integer" || (Array.isArray(schema.type) && schema.type.includes("integer"))) return true;
  return Array.isArray(schema.anyOf) && schema.anyOf.some(isInteger);
}

/** An XP effect (`type` is `xp_granted`/`xp_debited`): its `amount` is XP, not money. */
function isXpEffect(schema: Record<string, Json>): boolean {
  const type = isObject(schema.properties) ? schema.properties.type : undefined;
  if (!isObject(type)) return false;
  const tags = [type.const, ...(Array.isArray(type.enum) ? type.enum : [])];
  return tags.some((tag) => typeof tag === "string" && tag.startsWith("xp_"));
}

/** The naming problems of one schema, its inline sub-schemas included (references are checked where they point). */
function problemsIn(node: Json, where: string, out: string[]): void {
  if (Array.isArray(node)) {
    for (const item of node) problemsIn(item, where, out);
    return;
  }
  if (!isObject(node)) return;
  if (isObject(node.properties)) {
    for (const [name, schema] of Object.entries(node.properties)) {
      const at = `${where}.${name}`;
      if (!SNAKE.test(name)) out.push(`${at}: not snake_case`);
      if (UNITLESS_MONEY.has(name) && isInteger(schema) && !isXpEffect(node)) out.push(`${at}: a money integer must end in _minor`);
      if (name.endsWith("_cents") && !CONFIG_PAYLOAD_FIELDS.has(at)) out.push(`${at}: money integers end in _minor, not _cents`);
      problemsIn(schema, at, out);
    }
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties" || key === "example" || key === "examples") continue;
    problemsIn(value, key === "items" || key === "anyOf" || key === "oneOf" || key === "allOf" ? where : `${where}/${key}`, out);
  }
}

/** Every violation of the naming rule in `d`, outside the configuration document. */
function namingProblems(d: Doc): string[] {
  const config = configSchemas(d);
  const roots = new Set<string>();
  const problems: string[] = [];
  for (const { where, node } of bodies(d)) {
    refsIn(node, roots);
    // Inline schemas of the operation itself (rare, but they are API too).
    if (node !== undefined) problemsIn(node, where, problems);
  }
  for (const name of closure(d, roots, config)) problemsIn(d.components.schemas[name], name, problems);
  return problems;
}

describe("API naming rule", () => {
  it("excludes exactly the configuration document's tree", () => {
    const config = configSchemas(doc);
    expect(config.has("ClubConfig")).toBe(true);
    expect(config.size).toBeGreaterThan(20);
    // API views built from config sections are not part of the document.
    for (const view of ["CheckinState", "WheelState", "CashbackState", "ReferralState", "Notification", "Redemption", "ConfigDraft", "ConfigEnvelope"]) {
      expect(config.has(view), view).toBe(false);
    }
  });

  it("finds every request, response and webhook schema", () => {
    const roots = new Set<string>();
    for (const { node } of bodies(doc)) refsIn(node, roots);
    const api = closure(doc, roots, configSchemas(doc));
    for (const name of ["ErrorBody", "CurrencyBalance", "RedemptionCost", "CashbackCreditedWebhookData", "CurrencyGrantedEffect"]) expect(api.has(name), name).toBe(true);
  });

  it("has only snake_case properties and _minor money integers outside the configuration", () => {
    expect(namingProblems(doc)).toEqual([]);
  });

  it("catches camelCase and unit-less money fields (self-check on a small document)", () => {
    const sample: Doc = {
      paths: {
        "/v1/config/draft": { put: { requestBody: { content: { "application/json": { schema: { $ref: `${SCHEMA_REF}ClubConfig` } } } } } },
        "/v1/things": {
          get: { responses: { 200: { content: { "application/json": { schema: { $ref: `${SCHEMA_REF}Thing` } } } } } },
          post: { requestBody: { content: { "application/json": { schema: { type: "object", properties: { dayKey: { type: "string" } } } } } } },
        },
      },
      webhooks: { "thing.paid": { post: { requestBody: { content: { "application/json": { schema: { $ref: `${SCHEMA_REF}Paid` } } } } } } },
      components: {
        schemas: {
          ClubConfig: { type: "object", properties: { expiresInDays: { type: "integer" }, shared: { $ref: `${SCHEMA_REF}Shared` } } },
          Shared: { type: "object", properties: { titleLeft: { type: "string" } } },
          Thing: {
            type: "object",
            properties: {
              created_at: { type: "string" },
              nested: { type: "array", items: { type: "object", properties: { readAt: { type: "string" } } } },
              cost: { $ref: `${SCHEMA_REF}Cost` },
              effect: { $ref: `${SCHEMA_REF}XpEffect` },
            },
          },
          Cost: { type: "object", properties: { currency: { type: "string" }, amount: { type: "integer" } } },
          XpEffect: { type: "object", properties: { type: { type: "string", enum: ["xp_granted"] }, amount: { type: "integer" } } },
          Paid: { type: "object", properties: { balance: { anyOf: [{ type: "integer" }, { type: "null" }] }, amount_cents: { type: "integer" } } },
        },
      },
    };
    expect(namingProblems(sample).sort()).toEqual([
      "Cost.amount: a money integer must end in _minor",
      "POST /v1/things request/content/application/json/schema.dayKey: not snake_case",
      "Paid.amount_cents: money integers end in _minor, not _cents",
      "Paid.balance: a money integer must end in _minor",
      "Thing.nested.readAt: not snake_case",
    ]);
  });
});
