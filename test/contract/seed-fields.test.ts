// The seed contract: a client written only from the seed documents' field
// tables (seed-fields.ts) must find every field it names, with the seed's type,
// nullability and unit, (1) in the published OpenAPI document and (2) in real
// responses of the running service on SQLite and PostgreSQL. Any rename,
// re-typing or re-scaling of a seed-defined field fails here.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoConfig, type ApiResponse, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";
import { CONFIG_RESOURCES, CORE_RESOURCES, SEED_LIMITS, type SeedField, type SeedResource } from "./seed-fields.js";

type Json = any;
const doc = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as Json;
const SCHEMA_REF = "#/components/schemas/";

/** A schema with its references, `allOf` parts and `anyOf`/`oneOf` branches merged: what a value at that place may be. */
interface Flat {
  types: Set<string>;
  nullable: boolean;
  properties: Record<string, Json>;
  required: Set<string>;
  items: Json[];
  values: Json[];
  keywords: Record<string, unknown>;
}

function flatten(
  node: Json,
  out: Flat = { types: new Set(), nullable: false, properties: {}, required: new Set(), items: [], values: [], keywords: {} },
): Flat {
  if (node === undefined || node === true) return out;
  if (typeof node.$ref === "string") flatten(doc.components.schemas[node.$ref.slice(SCHEMA_REF.length)], out);
  for (const part of node.allOf ?? []) flatten(part, out);
  for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? [])]) {
    if (branch.type === "null") out.nullable = true;
    else flatten(branch, out);
  }
  for (const type of Array.isArray(node.type) ? node.type : node.type === undefined ? [] : [node.type]) {
    if (type === "null") out.nullable = true;
    else out.types.add(type);
  }
  if (node.const === null || (Array.isArray(node.enum) && node.enum.includes(null))) out.nullable = true;
  if (node.enum || node.const !== undefined) out.types.add(typeof (node.enum?.find((v: unknown) => v !== null) ?? node.const));
  Object.assign(out.properties, node.properties ?? {});
  for (const name of node.required ?? []) out.required.add(name);
  if (node.items) out.items.push(node.items);
  for (const key of ["additionalProperties", "unevaluatedProperties"]) if (typeof node[key] === "object") out.values.push(node[key]);
  for (const [key, value] of Object.entries(node)) if (typeof value === "number" || key === "default") out.keywords[key] ??= value;
  // Request-side defaults are published as `x-clube-default` (so generators keep the property optional) and applied by the server all the same.
  if ("x-clube-default" in node) out.keywords.default ??= node["x-clube-default"];
  return out;
}

function merged(nodes: Json[]): Flat {
  const out = flatten(undefined);
  for (const node of nodes) flatten(node, out);
  return out;
}

/** The schema at `path` in `schema`, and whether its parent requires it; undefined when the path leads nowhere. */
function schemaAt(schema: string, path: string): { flat: Flat; required: boolean } | undefined {
  let flat = flatten({ $ref: SCHEMA_REF + schema });
  let required = true;
  if (path === "") return { flat, required };
  for (const segment of path.split(".")) {
    const [, name, walks] = /^([^[{]*)((?:\[\]|\{\})*)$/.exec(segment)!;
    if (name !== "") {
      const property = flat.properties[name];
      if (property === undefined) return undefined;
      required = flat.required.has(name);
      flat = flatten(property);
    }
    for (const walk of walks.match(/\[\]|\{\}/g) ?? []) {
      const inner = walk === "[]" ? flat.items : flat.values;
      if (inner.length === 0) return undefined;
      flat = merged(inner);
      required = true;
    }
  }
  return { flat, required };
}

function typeMatches(field: SeedField, types: Set<string>): boolean {
  if (field.unit === "main") return types.has("number");
  if (field.type === "number") return [...types].every((type) => type === "number" || type === "integer") && types.size > 0;
  if (field.type === "integer") return types.size === 1 && types.has("integer");
  return types.has(field.type);
}

const ALL = [...CORE_RESOURCES, ...CONFIG_RESOURCES];

describe("seed fields in the published document", () => {
  describe.each(ALL.map((resource) => [`${resource.seed} ${resource.name}`, resource] as const))("%s", (_, resource) => {
    it.each(resource.fields.map((field) => [field.path, field] as const))("%s", (_path, field) => {
      const found = schemaAt(resource.schema, field.path);
      expect(found, `${resource.schema}.${field.path} is missing`).toBeDefined();
      const { flat, required } = found!;
      expect(typeMatches(field, flat.types), `${resource.schema}.${field.path}: seed type ${field.type} (${field.unit}), published ${[...flat.types]}`).toBe(
        true,
      );
      expect(flat.nullable, `${resource.schema}.${field.path} nullable`).toBe(field.nullable === true);
      if (!field.path.endsWith("[]") && !field.path.endsWith("{}")) expect(required, `${resource.schema}.${field.path} required`).toBe(field.optional !== true);
    });
  });
});

describe("seed limits in the published document", () => {
  it.each(SEED_LIMITS.map((limit) => [limit.limit, limit] as const))("%s", (_, limit) => {
    let flat: Flat | undefined;
    if ("schema" in limit.at) flat = schemaAt(limit.at.schema, limit.at.path)?.flat;
    else {
      const { operation, parameter } = limit.at;
      const op = Object.values(doc.paths)
        .flatMap((item: Json) => Object.values(item))
        .find((candidate: Json) => candidate?.operationId === operation) as Json;
      const param = (op?.parameters ?? [])
        .map((p: Json) => (p.$ref ? doc.components.parameters[p.$ref.split("/").pop()] : p))
        .find((p: Json) => p.name.toLowerCase() === parameter.toLowerCase());
      flat = param && flatten(param.schema);
    }
    expect(flat, `${JSON.stringify(limit.at)} not found`).toBeDefined();
    for (const [keyword, value] of Object.entries(limit.bounds)) expect(flat!.keywords[keyword], keyword).toBe(value);
  });
});

// ───────────────────────────── Real responses ─────────────────────────────

/** Every value at `path` in `value` (arrays and maps expand); a missing key is `undefined`, a null parent ends the walk. */
function valuesAt(value: Json, path: string): { where: string; value: Json }[] {
  let current: { where: string; value: Json }[] = [{ where: "", value }];
  for (const segment of path.split(".")) {
    const [, name, walks] = /^([^[{]*)((?:\[\]|\{\})*)$/.exec(segment)!;
    const next: { where: string; value: Json }[] = [];
    for (const item of current) {
      if (item.value === null || item.value === undefined) continue;
      let found = [{ where: name === "" ? item.where : `${item.where}.${name}`, value: name === "" ? item.value : item.value[name] }];
      for (const walk of walks.match(/\[\]|\{\}/g) ?? []) {
        found = found.flatMap((entry) =>
          entry.value === null || entry.value === undefined
            ? []
            : Object.entries(entry.value).map(([key, v]) => ({ where: `${entry.where}${walk === "[]" ? `[${key}]` : `{${key}}`}`, value: v })),
        );
      }
      next.push(...found);
    }
    current = next;
  }
  return current;
}

function jsonType(value: Json): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** Checks a real response against the seed's fields of `resourceName`: presence, type, nullability and unit. */
function expectSeedShape(resourceName: string, body: Json): void {
  const resource = ALL.find((candidate) => candidate.name === resourceName) as SeedResource;
  expect(resource, resourceName).toBeDefined();
  for (const field of resource.fields) {
    for (const { where, value } of valuesAt(body, field.path)) {
      const at = `${resourceName}${where}`;
      if (value === undefined) {
        expect(field.optional, `${at} is missing`).toBe(true);
        continue;
      }
      if (value === null) {
        expect(field.nullable, `${at} is null`).toBe(true);
        continue;
      }
      const type = jsonType(value);
      if (field.type === "number") expect(["number", "integer"], `${at}: ${type}`).toContain(type);
      else expect(type, at).toBe(field.type === "object" && type === "object" ? "object" : field.type);
      if (field.unit === "main" || field.unit === "cents") expect(typeof value, at).toBe("number");
      if (field.unit === "cents") expect(Number.isInteger(value), `${at} is integer cents`).toBe(true);
    }
  }
}

function ok(response: ApiResponse, status = 200): Json {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  return response.body;
}

/** The demo casino plus a currency with cents and a reward priced in it. */
async function seedConfig(): Promise<Record<string, any>> {
  const config = await demoConfig();
  config.currencies.push({ code: "saldo", name: "Saldo", icon: "wallet", decimals: 2 });
  config.rules.push({
    id: "saldo-credit",
    name: "Saldo",
    trigger: { event: "custom.saldo" },
    effects: [{ type: "grant_currency", currency: "saldo", amount: "event.amount" }],
  });
  config.rewards.push({
    code: "premio-saldo",
    title: "Prêmio de saldo",
    type: "client_delivered",
    payload: { kind: "bonus", amount_cents: 500, rollover: 1 },
    cost: { currency: "saldo", amount: 4.25 },
  });
  return config;
}

describeEachDatabase("seed fields in real responses", (kind) => {
  let api: TestApi;
  const who = "seed_ana";
  const me = (method: string, path: string, body?: unknown) => api.request(method, path, { participant: who, body });

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true });
    ok(await api.request("PUT", "/v1/config/draft", { body: await seedConfig() }));
    ok(await api.request("POST", "/v1/config/publish", { body: {} }));
  });
  afterAll(() => api?.close());

  it("profile, progress, token, effects, redemption, deliveries and rename report: money in main units, exact", async () => {
    expectSeedShape("ParticipantProfile", ok(await api.request("POST", "/v1/participants", { body: { external_id: who, display_name: "Ana" } })));

    // A lower-case currency is read as BRL; 10.50 main units credit 1050 minor units and read back as 10.5.
    const credit = ok(
      await api.request("POST", "/v1/events", { body: { participant: who, type: "custom.saldo", id: "saldo-1", amount: "10.50", currency: "brl" } }),
    );
    expectSeedShape("Event result", credit);
    const granted = credit.effects.find((effect: Json) => effect.type === "currency_granted" && effect.currency === "saldo");
    expectSeedShape("Effect currency_granted", granted);
    expect(granted.amount).toBe(10.5);
    const profile = ok(await api.request("GET", `/v1/participants/${who}`));
    expectSeedShape("ParticipantProfile", profile);
    expect(profile.currencies.find((currency: Json) => currency.code === "saldo").balance).toBe(10.5);

    // 10.50 + 150.49 is 160.99 exactly, as JSON text too (no 160.98999999).
    ok(await api.request("POST", "/v1/events", { body: { participant: who, type: "custom.saldo", id: "saldo-2", amount: 150.49 } }));
    const progressResponse = await fetch(`${api.url}/v1/participants/${who}/progress`, { headers: { Authorization: `Bearer ${api.keys.test}` } });
    const progressText = await progressResponse.text();
    expect(progressText).toContain('"code":"saldo","name":"Saldo","icon":"wallet","balance":160.99}');
    const progress = JSON.parse(progressText);
    expectSeedShape("ParticipantProgress", progress);
    expectSeedShape("Token response", ok(await api.request("POST", `/v1/participants/${who}/token`, { body: {} })));

    const redemption = ok(
      await api.request("POST", "/v1/redemptions", { body: { participant: who, reward: "premio-saldo" }, headers: { "Idempotency-Key": "seed-redeem-0001" } }),
    );
    expectSeedShape("Redemption", redemption);
    expect(redemption.cost).toEqual({ currency: "saldo", amount: 4.25 });
    expect(redemption.balance_after).toBe(156.74);
    const debit = redemption.effects.find((effect: Json) => effect.type === "currency_debited");
    expectSeedShape("Effect currency_debited", debit);
    expect(debit.amount).toBe(4.25);

    // The seed's list, by participant, with what a client needs to credit it.
    const list = ok(await api.request("GET", `/v1/deliveries?participant=${who}`));
    expectSeedShape("GET /v1/deliveries", list);
    const delivery = list.deliveries.find((candidate: Json) => candidate.reward_code === "premio-saldo");
    expectSeedShape("Delivery", delivery);
    expect(delivery.participant).toEqual({ id: delivery.participant_id, external_id: who });
    expect(delivery.reward).toMatchObject({
      code: "premio-saldo",
      title: "Prêmio de saldo",
      type: "client_delivered",
      payload: { kind: "bonus", amount_cents: 500 },
    });
    expectSeedShape("Delivery", ok(await api.request("POST", `/v1/deliveries/${delivery.id}/confirm`, { body: { external_ref: "seed-credit-1" } })));

    const report = ok(await api.request("POST", `/v1/participants/${who}/rename`, { body: { new_external_id: "seed_ana_2", dry_run: true } }));
    expectSeedShape("ParticipantRenameReport", report);
    expect(report.after.balances.saldo).toBe(156.74);
  });

  it("check-in, notifications, wheel and referral state under the seed's camelCase names", async () => {
    const checkin = ok(await me("GET", "/v1/me/checkin"));
    expectSeedShape("CheckinState", checkin);
    expect(typeof checkin.todayKey).toBe("string");
    expect(checkin.canClaim).toBe(true);

    const notifications = ok(await me("GET", "/v1/me/notifications"));
    expect(notifications.data.length).toBeGreaterThan(0);
    for (const notification of notifications.data) expectSeedShape("Notification", notification);
    expect(notifications.data.some((notification: Json) => notification.readAt === null && typeof notification.createdAt === "string")).toBe(true);

    const wheel = ok(await me("GET", "/v1/me/wheel"));
    expectSeedShape("WheelState", wheel);
    expect(wheel).toMatchObject({ titleLeft: "ROLETA", titleRight: "GRATUITA", spinsLeft: 1 });
    const spin = ok(await me("POST", "/v1/me/wheel/spin"));
    expectSeedShape("WheelSpinResult", spin);
    expect(spin).toMatchObject({ spinsLeft: 0, probabilityVersion: 1, sliceId: expect.any(String), spinId: expect.any(String) });

    const referral = ok(await me("GET", "/v1/me/referral"));
    expectSeedShape("ReferralState", referral);
    expect(referral).toMatchObject({
      referrerReward: "coins:500",
      referredReward: "coins:200",
      qualifyEvent: "deposit.confirmed",
      minAmount: 30,
      availableCents: 0,
    });
  });

  it("cashback program and state: losses, caps and cashback in main units", async () => {
    ok(
      await api.request("PUT", "/v1/cashback", {
        body: {
          enabled: true,
          mode: "claim",
          min_loss_minor: 1050,
          min_pct: 5,
          max_pct: 25,
          tiers: [{ name: "Bronze", min_loss_minor: 1050, pct: 10 }],
          welcome: { enabled: true, pct: 20, max_minor: 12345 },
        },
      }),
    );
    const program = ok(await api.request("GET", "/v1/cashback"));
    expectSeedShape("Cashback program", program);
    expect(program).toMatchObject({ min_loss: 10.5, tiers: [{ name: "Bronze", min_loss: 10.5, pct: 10 }], welcome: { enabled: true, pct: 20, max: 123.45 } });

    // The participant's first day: 20% of a 100.25 loss is 20.05.
    ok(await api.request("POST", "/v1/events", { body: { participant: who, type: "bet.placed", id: "seed-bet-1", amount: "100.25", currency: "BRL" } }));
    const state = ok(await me("GET", "/v1/me/cashback"));
    expectSeedShape("CashbackState", state);
    expect(state).toMatchObject({
      available: 0,
      availableDays: [],
      today: { loss: 100.25, amount: 20.05, pct: 20 },
      pctRange: { min: 5, max: 25 },
      monthReceived: 0,
    });
  });
});
