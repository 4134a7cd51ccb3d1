// The code generator's own behaviour, on a small hand-written document shaped
// like the TypeSpec emitter's output (so every case is visible here and does not
// move when the contract changes), plus a smoke check of the committed
// generated/validators.js.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { ErrorObject, ValidateFunction } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpenApiDocument } from "../../spec/codegen/document.js";
import { firstSentence, postprocess } from "../../spec/codegen/postprocess.js";
import { generateValidators } from "../../spec/codegen/validators.js";
import * as committed from "../../generated/validators.js";
import { operations as committedOperations } from "../../generated/operations.js";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const errorBodyRef = { $ref: "#/components/schemas/ErrorBody" };

/** What @typespec/openapi3 emits for a few models and two operations (before the post-process). */
function emittedDocument(): OpenApiDocument {
  return {
    openapi: "3.1.0",
    info: { title: "Fixture", version: "1.0.0" },
    tags: [{ name: "Events" }, { name: "Health" }],
    paths: {
      "/v1/things/{external_id}": {
        post: {
          operationId: "Things_create",
          tags: ["Events"],
          description: "Creates a thing for the participant.\nSecond line of the first sentence? No: a new one.",
          parameters: [
            { name: "external_id", in: "path", required: true, schema: { $ref: "#/components/schemas/ExternalId" } },
            {
              name: "limit",
              in: "query",
              required: false,
              schema: { type: "integer", format: "int32", minimum: 1, maximum: 100, default: 20 },
              explode: false,
            },
            { name: "status", in: "query", required: false, schema: { type: "string", enum: ["pending", "delivered"] }, explode: false },
            { name: "verbose", in: "query", required: false, schema: { type: "boolean" }, explode: false },
            { name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", minLength: 1, maxLength: 128 } },
          ],
          requestBody: { required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/ThingInput" } } } },
          responses: {
            "200": { description: "Created.", content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" }, example: { id: "thg_1" } } } },
            "202": {
              description: "Queued.",
              headers: { "Retry-After": { required: false, schema: { type: "integer" } } },
              content: { "application/json": { schema: { type: "object", required: ["queued"], properties: { queued: { type: "boolean", enum: [true] } } } } },
            },
            "422": { description: "Invalid.", content: { "application/json": { schema: errorBodyRef } } },
          },
          security: [{ SecretKeyAuth: [] }],
        },
      },
      "/v1/things/{external_id}/items/{index}": {
        get: {
          operationId: "Things_getItem",
          tags: ["Events"],
          summary: "One item",
          parameters: [
            { name: "external_id", in: "path", required: true, schema: { $ref: "#/components/schemas/ExternalId" } },
            { name: "index", in: "path", required: true, schema: { type: "integer", minimum: 0 } },
          ],
          responses: { "200": { description: "The item.", content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } } } },
          security: [{ SecretKeyAuth: [], ParticipantHeaderAuth: [] }, { ParticipantTokenAuth: [] }],
        },
      },
      "/v1/health": {
        get: {
          operationId: "Health_get",
          tags: ["Health"],
          description: "Liveness.",
          responses: { "200": { description: "Up.", content: { "application/json": { schema: { $ref: "#/components/schemas/Thing" } } } } },
          security: [{}],
        },
      },
    },
    components: {
      schemas: {
        ExternalId: { type: "string", minLength: 1, maxLength: 128 },
        EventName: { type: "string", minLength: 3, maxLength: 64, pattern: "^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$" },
        ThingInput: {
          type: "object",
          required: ["external_id", "events", "expires_in_days"],
          properties: {
            // A constrained use of a scalar: allOf without `type` (TOOLCHAIN gotcha 2).
            external_id: { allOf: [{ $ref: "#/components/schemas/ExternalId" }], description: "Who." },
            name: { type: "string", minLength: 1, maxLength: 60, default: "Clube" },
            events: { type: "array", items: { $ref: "#/components/schemas/ThingEvent" } },
            effects: { type: "array", items: { $ref: "#/components/schemas/Effect" }, default: [] },
            expires_in_days: { anyOf: [{ type: "integer", format: "int32", exclusiveMinimum: 0 }, { type: "null" }] },
            meta: { type: "object", unevaluatedProperties: {} },
          },
          unevaluatedProperties: { not: {} },
        },
        ThingEvent: {
          type: "object",
          required: ["type"],
          properties: { type: { $ref: "#/components/schemas/EventName" }, occurred_at: { type: "string", format: "date-time" } },
          unevaluatedProperties: { not: {} },
        },
        Effect: {
          type: "object",
          oneOf: [{ $ref: "#/components/schemas/GrantXpEffect" }, { $ref: "#/components/schemas/GrantCurrencyEffect" }],
          discriminator: {
            propertyName: "type",
            mapping: { grant_xp: "#/components/schemas/GrantXpEffect", grant_currency: "#/components/schemas/GrantCurrencyEffect" },
          },
        },
        GrantXpEffect: {
          type: "object",
          required: ["type", "amount"],
          properties: { type: { type: "string", enum: ["grant_xp"] }, amount: { type: "integer" } },
          unevaluatedProperties: { not: {} },
        },
        GrantCurrencyEffect: {
          type: "object",
          required: ["type", "currency"],
          properties: { type: { type: "string", enum: ["grant_currency"] }, currency: { type: "string" }, amount: { type: "integer", default: 1 } },
          unevaluatedProperties: { not: {} },
        },
        Thing: { type: "object", required: ["id"], properties: { id: { type: "string" } } },
        ErrorBody: {
          type: "object",
          required: ["error"],
          properties: { error: { type: "object", required: ["code", "message"], properties: { code: { type: "string" }, message: { type: "string" } } } },
        },
        LevelUpWebhook: {
          type: "object",
          required: ["type", "data"],
          properties: {
            type: { type: "string", enum: ["level.up"] },
            data: { type: "object", required: ["level"], properties: { level: { type: "integer" } } },
          },
          description: "The participant rose a level. Sent once per level reached.",
          "x-webhook-event": "level.up",
        },
        // The emitter's copies of the auth models.
        SecretKeyAuth: { type: "object", description: "Secret key (schema copy)." },
        ParticipantTokenAuth: { type: "object", description: "Participant token." },
      },
      securitySchemes: {
        SecretKeyAuth: { type: "http", scheme: "Bearer" },
        ParticipantTokenAuth: { type: "http", scheme: "Bearer", description: "Participant token (a JWT)." },
        ParticipantHeaderAuth: { type: "apiKey", in: "header", name: "X-Participant", description: "Headless mode." },
      },
    },
  };
}

describe("postprocess", () => {
  const input = emittedDocument();
  const output = postprocess(input);

  it("turns every x-webhook-event schema into a signed webhooks entry", () => {
    expect(Object.keys(output.webhooks ?? {})).toEqual(["level.up"]);
    const post = output.webhooks!["level.up"].post as Record<string, any>;
    expect(post.operationId).toBe("webhook_level_up");
    expect(post.summary).toBe("The participant rose a level");
    expect(post.description).toBe("The participant rose a level. Sent once per level reached.");
    expect(post.requestBody).toEqual({ required: true, content: { "application/json": { schema: { $ref: "#/components/schemas/LevelUpWebhook" } } } });
    expect(post.responses).toEqual({ "200": { description: "Any 2xx within 10 seconds acknowledges; anything else is retried." } });
    const headers = Object.fromEntries((post.parameters as any[]).map((p) => [p.name, p]));
    expect(Object.keys(headers)).toEqual(["X-Clube-Event", "X-Clube-Delivery", "X-Clube-Signature"]);
    for (const header of Object.values(headers)) expect(header).toMatchObject({ in: "header", required: true });
    expect(headers["X-Clube-Event"].schema).toEqual({ type: "string", const: "level.up" });
    expect(headers["X-Clube-Delivery"].schema).toEqual({ type: "string", pattern: "^whd_" });
    expect(headers["X-Clube-Signature"].schema).toEqual({ type: "string", pattern: "^t=\\d+,v1=[0-9a-f]{64}$" });
    expect(headers["X-Clube-Signature"].description).toMatch(/HMAC-SHA256/);
    expect((output.tags as { name: string }[]).map((t) => t.name)).toContain("Webhooks");
  });

  it("drops the component schemas that copy security schemes and keeps the rest", () => {
    const schemas = Object.keys(output.components!.schemas!);
    expect(schemas).not.toContain("SecretKeyAuth");
    expect(schemas).not.toContain("ParticipantTokenAuth");
    expect(schemas).toEqual(expect.arrayContaining(["ThingInput", "Effect", "LevelUpWebhook", "ErrorBody"]));
  });

  it("adds the X-Request-Id header to every response of every operation", () => {
    expect(output.components!.headers!.RequestId).toMatchObject({ required: true, schema: { type: "string" } });
    let responses = 0;
    for (const item of Object.values(output.paths!)) {
      for (const operation of Object.values(item) as { responses: Record<string, { headers?: Record<string, unknown> }> }[]) {
        for (const response of Object.values(operation.responses)) {
          responses++;
          expect(response.headers?.["X-Request-Id"]).toEqual({ $ref: "#/components/headers/RequestId" });
        }
      }
    }
    // The fixture's 5 responses, plus a 405 and a 503 on both operations, a 415 on the one with a body and a 429 on the authenticated ones.
    expect(responses).toBe(14);
    // A header the operation already documented stays.
    const accepted = (output.paths!["/v1/things/{external_id}"].post as any).responses["202"];
    expect(Object.keys(accepted.headers)).toEqual(["Retry-After", "X-Request-Id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]);
  });

  it("declares the HTTP layer's 405, 415 (JSON body), 429 (authenticated) and 503 (outage) on each operation, in status order", () => {
    const create = (output.paths!["/v1/things/{external_id}"].post as any).responses;
    expect(Object.keys(create)).toEqual(["200", "202", "405", "415", "422", "429", "503"]);
    // An outage answered after the rate limiter ran carries its headers too (declared optional there).
    expect(Object.keys(create["503"].headers)).toEqual(["Retry-After", "X-Request-Id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]);
    expect(create["405"]).toMatchObject({ content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } } });
    expect(create["405"].headers.Allow).toEqual({ $ref: "#/components/headers/Allow" });
    expect(create["415"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/ErrorBody" });
    expect(Object.keys(create["429"].headers)).toEqual(["Retry-After", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "X-Request-Id"]);
    expect(output.components!.headers!.RetryAfter).toMatchObject({ required: true, schema: { type: "integer", minimum: 0 } });
  });

  it("describes the security schemes and gives bearer schemes their bearerFormat", () => {
    const schemes = output.components!.securitySchemes!;
    expect(schemes.SecretKeyAuth).toMatchObject({ description: "Secret key (schema copy).", bearerFormat: "API key" });
    expect(schemes.ParticipantTokenAuth).toMatchObject({ description: "Participant token (a JWT).", bearerFormat: "JWT" });
    expect(schemes.ParticipantHeaderAuth).toEqual({ type: "apiKey", in: "header", name: "X-Participant", description: "Headless mode." });
  });

  it("refuses a bearer scheme it has no bearerFormat for", () => {
    const doc = emittedDocument();
    doc.components!.securitySchemes!.AdminAuth = { type: "http", scheme: "Bearer", description: "Admin." };
    expect(() => postprocess(doc)).toThrow(/AdminAuth has no bearerFormat/);
  });

  it("summarizes operations without @summary from the first sentence of their doc comment", () => {
    expect((output.paths!["/v1/things/{external_id}"].post as any).summary).toBe("Creates a thing for the participant");
    expect((output.paths!["/v1/things/{external_id}/items/{index}"].get as any).summary).toBe("One item");
    expect(firstSentence("Sends 1 to 500 events. In one\ncall.")).toBe("Sends 1 to 500 events");
    expect(firstSentence("Lists the catalog by `id`,\nascending")).toBe("Lists the catalog by id, ascending");
  });

  it("leaves its input untouched and gives the same output every time", () => {
    expect(input).toEqual(emittedDocument());
    expect(JSON.stringify(postprocess(emittedDocument()))).toBe(JSON.stringify(output));
  });
});

interface GeneratedModule {
  schemaValidators: Record<string, ValidateFunction>;
  operationValidators: Record<
    string,
    { body?: ValidateFunction; path?: ValidateFunction; query?: ValidateFunction; headers?: ValidateFunction; responses: Record<string, ValidateFunction> }
  >;
  formatAjvError: (error: ErrorObject, where: "body" | "query" | "path" | "headers") => string;
}

describe("generated validators (fixture)", () => {
  let dir: string;
  let mod: GeneratedModule;

  beforeAll(async () => {
    // Inside the repository so the module's require("ajv/...") resolves from node_modules.
    const cache = path.join(repoRoot, "node_modules", ".cache");
    mkdirSync(cache, { recursive: true });
    dir = mkdtempSync(path.join(cache, "codegen-validators-"));
    const file = path.join(dir, "validators.js");
    writeFileSync(file, generateValidators(postprocess(emittedDocument())).js);
    mod = (await import(pathToFileURL(file).href)) as GeneratedModule;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Validates and returns the 422 message the server would send, or null when valid. */
  function check(validate: ValidateFunction | undefined, value: unknown, where: "body" | "query" | "path" | "headers"): string | null {
    if (!validate) throw new Error("no validator");
    return validate(value) ? null : mod.formatAjvError(validate.errors![0], where);
  }
  const validBody = () => ({ external_id: "user_8412", events: [{ type: "deposit.confirmed" }], expires_in_days: null });

  it("has one schema validator per component schema and none for the security scheme copies", () => {
    expect(Object.keys(mod.schemaValidators).sort()).toEqual(
      ["Effect", "ErrorBody", "EventName", "ExternalId", "GrantCurrencyEffect", "GrantXpEffect", "LevelUpWebhook", "Thing", "ThingEvent", "ThingInput"].sort(),
    );
  });

  it("fills defaults, also inside a discriminated union branch", () => {
    const body = {
      ...validBody(),
      effects: [
        { type: "grant_currency", currency: "coins" },
        { type: "grant_xp", amount: 5 },
      ],
    };
    expect(mod.schemaValidators.ThingInput(body)).toBe(true);
    expect(body).toEqual({
      ...validBody(),
      name: "Clube",
      effects: [
        { type: "grant_currency", currency: "coins", amount: 1 },
        { type: "grant_xp", amount: 5 },
      ],
    });
    const withoutEffects: Record<string, unknown> = validBody();
    mod.operationValidators.Things_create.body!(withoutEffects);
    expect(withoutEffects.effects).toEqual([]);
  });

  it("accepts free-form objects and nulls where declared", () => {
    expect(check(mod.operationValidators.Things_create.body, { ...validBody(), meta: { game_id: "g1", nested: { a: 1 } } }, "body")).toBeNull();
    expect(check(mod.operationValidators.Things_create.body, { ...validBody(), expires_in_days: 7 }, "body")).toBeNull();
  });

  it("names the failing field as a dotted path in the message", () => {
    const body = mod.operationValidators.Things_create.body;
    const events = [1, 2, 3, 4].map(() => ({ type: "bet.placed" }));
    events[3] = { type: "Bet" };
    expect(check(body, { ...validBody(), events }, "body")).toBe('body.events[3].type must match pattern "^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$"');
    expect(check(body, { ...validBody(), external_id: "x".repeat(128) }, "body")).toBeNull();
    expect(check(body, { ...validBody(), external_id: "x".repeat(129) }, "body")).toBe("body.external_id must NOT have more than 128 characters");
    expect(check(body, { ...validBody(), foo: 1 }, "body")).toBe("body.foo is not an allowed field");
    expect(check(body, { ...validBody(), events: [{ type: "bet.placed", extra: true }] }, "body")).toBe("body.events[0].extra is not an allowed field");
    const { external_id: _omitted, ...withoutId } = validBody();
    expect(check(body, withoutId, "body")).toBe("body.external_id is required");
    expect(check(body, { ...validBody(), expires_in_days: 0 }, "body")).toBe("body.expires_in_days must be > 0");
    expect(check(body, { ...validBody(), events: [{ type: "bet.placed", occurred_at: "yesterday" }] }, "body")).toBe(
      'body.events[0].occurred_at must match format "date-time"',
    );
    expect(check(body, [], "body")).toBe("body must be object");
  });

  it("names the discriminator tag when a union member is unknown or untagged", () => {
    const body = mod.operationValidators.Things_create.body;
    expect(check(body, { ...validBody(), effects: [{ type: "grant_xp", amount: 1 }, { type: "grant_gold" }] }, "body")).toBe(
      'body.effects[1].type has an unknown value "grant_gold"',
    );
    expect(check(body, { ...validBody(), effects: [{ amount: 1 }] }, "body")).toBe("body.effects[0].type is required");
    expect(check(body, { ...validBody(), effects: [{ type: "grant_currency", currency: "coins", bonus: 1 }] }, "body")).toBe(
      "body.effects[0].bonus is not an allowed field",
    );
  });

  it("coerces query strings to the declared types and fills query defaults", () => {
    const query = mod.operationValidators.Things_create.query;
    const raw: Record<string, unknown> = { limit: "10", verbose: "true" };
    expect(check(query, raw, "query")).toBeNull();
    expect(raw).toEqual({ limit: 10, verbose: true });
    const empty: Record<string, unknown> = {};
    expect(check(query, empty, "query")).toBeNull();
    expect(empty).toEqual({ limit: 20 });
    expect(check(query, { limit: "100" }, "query")).toBeNull();
    expect(check(query, { limit: "101" }, "query")).toBe("query.limit must be <= 100");
    expect(check(query, { limit: "0" }, "query")).toBe("query.limit must be >= 1");
    expect(check(query, { limit: "ten" }, "query")).toBe("query.limit must be integer");
    expect(check(query, { status: "lost" }, "query")).toBe('query.status must be one of "pending", "delivered"');
    // A repeated parameter arrives as an array: one value is unwrapped, two are refused.
    expect(check(query, { status: ["pending"] }, "query")).toBeNull();
    expect(check(query, { status: ["pending", "delivered"] }, "query")).toBe("query.status must be string");
  });

  it("rejects unknown query parameters, also on an operation that declares none", () => {
    expect(check(mod.operationValidators.Things_create.query, { limit: "5", foo: "1" }, "query")).toBe("query.foo is not an allowed field");
    expect(check(mod.operationValidators.Health_get.query, {}, "query")).toBeNull();
    expect(check(mod.operationValidators.Health_get.query, { debug: "1" }, "query")).toBe("query.debug is not an allowed field");
  });

  it("coerces path parameters", () => {
    const params: Record<string, unknown> = { external_id: "user_8412", index: "3" };
    expect(check(mod.operationValidators.Things_getItem.path, params, "path")).toBeNull();
    expect(params).toEqual({ external_id: "user_8412", index: 3 });
    expect(check(mod.operationValidators.Things_getItem.path, { external_id: "user_8412", index: "-1" }, "path")).toBe("path.index must be >= 0");
    expect(check(mod.operationValidators.Things_create.path, { external_id: "" }, "path")).toBe("path.external_id must NOT have fewer than 1 characters");
  });

  it("keys header validators by lower-case name and lets unknown headers through", () => {
    const headers = mod.operationValidators.Things_create.headers;
    expect(check(headers, { "idempotency-key": "evt-1", "user-agent": "curl/8", "x-forwarded-for": "10.0.0.1" }, "headers")).toBeNull();
    expect(check(headers, { "user-agent": "curl/8" }, "headers")).toBeNull();
    expect(check(headers, { "idempotency-key": "k".repeat(129) }, "headers")).toBe("headers.idempotency-key must NOT have more than 128 characters");
  });

  it("has validators only for the request parts an operation declares", () => {
    expect(Object.keys(mod.operationValidators.Things_create).sort()).toEqual(["body", "headers", "path", "query", "responses"]);
    expect(Object.keys(mod.operationValidators.Things_getItem).sort()).toEqual(["path", "query", "responses"]);
    expect(Object.keys(mod.operationValidators.Health_get).sort()).toEqual(["query", "responses"]);
  });

  it("validates response bodies by status, inline schemas included", () => {
    const responses = mod.operationValidators.Things_create.responses;
    expect(Object.keys(responses)).toEqual(["200", "202", "405", "415", "422", "429", "503"]);
    expect(responses["200"]({ id: "thg_1" })).toBe(true);
    expect(responses["200"]({})).toBe(false);
    expect(responses["202"]({ queued: true })).toBe(true);
    expect(responses["202"]({ queued: false })).toBe(false);
    expect(responses["422"]({ error: { code: "validation_failed", message: "body.foo is not an allowed field" } })).toBe(true);
  });
});

describe("generated/validators.js (committed)", () => {
  const committedDocument = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as OpenApiDocument;

  it("has a schema validator per component schema and a validator set per operation in the table", () => {
    expect(Object.keys(committed.schemaValidators).sort()).toEqual(Object.keys(committedDocument.components!.schemas!).sort());
    expect(Object.keys(committed.operationValidators).sort()).toEqual(committedOperations.map((op) => op.operationId).sort());
    for (const op of committedOperations) {
      const set: { body?: unknown; query?: unknown; path?: unknown; headers?: unknown } = committed.operationValidators[op.operationId];
      expect(set.body !== undefined, `${op.operationId} body`).toBe(op.body !== null);
      expect(set.query, `${op.operationId} query`).toBeTypeOf("function");
      expect(set.path !== undefined, `${op.operationId} path`).toBe(op.params.path.length > 0);
      expect(set.headers !== undefined, `${op.operationId} headers`).toBe(op.params.headers.length > 0);
    }
  });

  it("formats errors of the real contract", () => {
    const body = committed.operationValidators.Participants_upsert.body;
    expect(body({ external_id: "x".repeat(129) })).toBe(false);
    expect(committed.formatAjvError(body.errors![0], "body")).toBe("body.external_id must NOT have more than 128 characters");
  });
});
