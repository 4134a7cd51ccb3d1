// The published document and the operation table, as the rest of the project
// consumes them: generated/openapi.json and generated/operations.ts. The type
// checks at the end run under `npm run typecheck` (part of `npm test`).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { effectiveSecurity, isSuccessStatus, jsonContent, listOperations, type OpenApiDocument, type ResponseObject } from "../../spec/codegen/document.js";
import { toKoaPath } from "../../spec/codegen/operations.js";
import { operations, type Handler, type HandlerRequest, type Handlers } from "../../generated/operations.js";
import { operationValidators } from "../../generated/validators.js";

const doc = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as OpenApiDocument;
const all = listOperations(doc);

const SERVER = [["SecretKeyAuth"], ["StaffSessionAuth"]];
/** Describes the calling key, so a staff session has nothing to describe. */
const KEY_ONLY = [["SecretKeyAuth"]];
/** Signing in is public; the member's own session and the staff members take only a session. */
const SESSION_ONLY = [["StaffSessionAuth"]];
const ME = [["SecretKeyAuth", "ParticipantHeaderAuth"], ["ParticipantTokenAuth"]];
const ERROR_BODY = { $ref: "#/components/schemas/ErrorBody" };

describe("generated/openapi.json", () => {
  it("is OpenAPI 3.1 version 1.0.0 served from {base_url}", () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.version).toBe("1.0.0");
    expect((doc.servers as { url: string }[])[0].url).toBe("{base_url}");
  });

  it("names every operation Interface_operation, once, under a declared tag", () => {
    expect(all.length).toBeGreaterThan(0);
    const declaredTags = new Set((doc.tags as { name: string }[]).map((t) => t.name));
    const ids = all.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { operationId, operation } of all) {
      expect(operationId).toMatch(/^[A-Z][A-Za-z]*_[a-z][A-Za-z]*$/);
      expect(operation.tags?.length, operationId).toBeGreaterThan(0);
      for (const tag of operation.tags!) expect(declaredTags.has(tag), `${operationId} tag ${tag}`).toBe(true);
      expect(operation.summary, operationId).toBeTruthy();
    }
  });

  it("has an example on every success response with a body", () => {
    for (const { operationId, operation } of all) {
      const successes = Object.entries(operation.responses).filter(([status]) => isSuccessStatus(status));
      expect(successes.length, operationId).toBeGreaterThan(0);
      for (const [status, response] of successes) {
        const content = jsonContent(response);
        if (!content) continue;
        expect(content.example !== undefined || content.examples !== undefined, `${operationId} ${status}`).toBe(true);
      }
    }
  });

  it("documents every error status with ErrorBody", () => {
    for (const { operationId, operation } of all) {
      for (const [status, response] of Object.entries(operation.responses)) {
        // 304 (a conditional GET's "not modified") has no body at all.
        if (isSuccessStatus(status) || status === "304") continue;
        expect(jsonContent(response)?.schema, `${operationId} ${status}`).toEqual(ERROR_BODY);
      }
    }
  });

  it("secures operations as documented: health public, /v1/me/* participant modes, the rest the secret key or a staff session", () => {
    for (const { operationId, path, operation } of all) {
      const sessionOnly = path.startsWith("/v1/staff/") && !["/v1/staff/roles"].includes(path);
      const expected =
        path === "/v1/health" || (path === "/v1/staff/sessions" && operationId === "StaffSessions_create")
          ? []
          : path === "/v1/me" || path.startsWith("/v1/me/")
            ? ME
            : path === "/v1/key"
              ? KEY_ONLY
              : sessionOnly
                ? SESSION_ONLY
                : SERVER;
      expect(effectiveSecurity(doc, operation), `${operationId} ${path}`).toEqual(expected);
    }
  });

  it("carries X-Request-Id on every response", () => {
    expect(doc.components?.headers?.RequestId).toBeDefined();
    for (const { operationId, operation } of all) {
      for (const [status, response] of Object.entries(operation.responses) as [string, ResponseObject][]) {
        expect(response.headers?.["X-Request-Id"], `${operationId} ${status}`).toEqual({ $ref: "#/components/headers/RequestId" });
      }
    }
  });

  it("publishes one webhook per x-webhook-event schema, signed with the three X-Clube-* headers", () => {
    const marked = Object.entries(doc.components?.schemas ?? {}).filter(([, schema]) => typeof schema["x-webhook-event"] === "string");
    expect(marked.length).toBeGreaterThan(0);
    expect(Object.keys(doc.webhooks ?? {}).sort()).toEqual(marked.map(([, schema]) => schema["x-webhook-event"]).sort());
    for (const [name, schema] of marked) {
      const post = doc.webhooks![schema["x-webhook-event"] as string].post as { parameters: { name: string }[]; requestBody: unknown };
      expect(post.parameters.map((p) => p.name)).toEqual(["X-Clube-Event", "X-Clube-Delivery", "X-Clube-Signature"]);
      expect(post.requestBody).toEqual({ required: true, content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } } });
    }
  });

  it("describes the four security schemes and keeps no schema copy of them", () => {
    const schemes = doc.components!.securitySchemes!;
    expect(Object.keys(schemes).sort()).toEqual(["ParticipantHeaderAuth", "ParticipantTokenAuth", "SecretKeyAuth", "StaffSessionAuth"]);
    expect(schemes.StaffSessionAuth).toMatchObject({ type: "apiKey", in: "cookie", name: "clube_session" });
    expect(schemes.SecretKeyAuth).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "API key" });
    expect(schemes.ParticipantTokenAuth).toMatchObject({ type: "http", scheme: "bearer", bearerFormat: "JWT" });
    expect(schemes.ParticipantHeaderAuth).toMatchObject({ type: "apiKey", in: "header", name: "X-Participant" });
    for (const [name, scheme] of Object.entries(schemes)) {
      expect(scheme.description, name).toBeTruthy();
      expect(doc.components!.schemas![name], name).toBeUndefined();
    }
  });
});

describe("generated/operations.ts", () => {
  it("lists every operation of the document with its route, tag and security", () => {
    expect(operations.map((op) => op.operationId)).toEqual(all.map((op) => op.operationId));
    for (const [i, op] of operations.entries()) {
      const source = all[i];
      expect([op.method, op.path, op.tag], op.operationId).toEqual([source.method, source.path, source.operation.tags![0]]);
      expect(op.security, op.operationId).toEqual(effectiveSecurity(doc, source.operation));
      expect(op.body, op.operationId).toEqual(source.operation.requestBody ? { required: source.operation.requestBody.required === true } : null);
      expect(
        op.successStatuses.every((s) => s >= 200 && s < 300),
        op.operationId,
      ).toBe(true);
      expect(
        op.params.headers.every((h) => h === h.toLowerCase()),
        op.operationId,
      ).toBe(true);
      for (const name of op.params.path) expect(op.koaPath, op.operationId).toContain(`:${name}`);
      expect(op.koaPath, op.operationId).not.toMatch(/[{}]/);
    }
  });

  it("turns OpenAPI path templates into @koa/router paths", () => {
    expect(toKoaPath("/v1/participants/{external_id}/progress")).toBe("/v1/participants/:external_id/progress");
    expect(toKoaPath("/v1/me/leaderboards/{campaign_id}")).toBe("/v1/me/leaderboards/:campaign_id");
    expect(toKoaPath("/v1/health")).toBe("/v1/health");
  });
});

describe("Handlers type", () => {
  const healthy = {
    status: "ok",
    version: "1.0.0",
    env: "production",
    checks: { db: "ok", kv: "ok", broker: "ok", rate_limits: "ok" },
    latency_ms: 3,
  } as const;
  const validateHealth200 = operationValidators.Health_get.responses["200"];

  // Each @ts-expect-error below must be an error, or `npm run typecheck` fails.
  it("accepts a handler returning a documented status and body", async () => {
    const health: Handler<"Health_get", { version: string }> = async (_req, ctx) => ({ status: 200, body: { ...healthy, version: ctx.version } });
    const response = await health({ path: {}, query: {}, headers: {}, body: undefined }, { version: "2.0.0" });
    expect(validateHealth200(response.body)).toBe(true);
  });

  it("rejects a wrong body or an undocumented status at compile time (and the validator agrees)", async () => {
    // @ts-expect-error `status` must be one of the HealthStatus values
    const wrongBody: Handler<"Health_get", unknown> = async () => ({ status: 200, body: { ...healthy, status: "fine" } });
    // @ts-expect-error 201 is not a documented success status of Health_get
    const wrongStatus: Handler<"Health_get", unknown> = async () => ({ status: 201, body: healthy });
    const request = { path: {}, query: {}, headers: {}, body: undefined };
    expect(validateHealth200((await wrongBody(request, null)).body)).toBe(false);
    expect((await wrongStatus(request, null)).status).toBe(201);
  });

  it("requires a handler for every operation", () => {
    const handlerNames = (handlers: Handlers<unknown>) => Object.keys(handlers);
    const incomplete = {} as Omit<Handlers<unknown>, "Health_get">;
    // @ts-expect-error Health_get has no handler
    expect(handlerNames(incomplete)).toEqual([]);
  });

  it("makes parameters the validator fills with a default required in the request", () => {
    const query: Partial<HandlerRequest<"Games_list">["query"]> = {};
    expect(operationValidators.Games_list.query(query)).toBe(true);
    const request = { query } as HandlerRequest<"Games_list">;
    const limit: number = request.query.limit;
    expect(limit).toBe(100);
  });

  it("types parameters by name, header names lower-case", () => {
    const request: HandlerRequest<"Events_send"> = {
      path: {},
      query: {},
      headers: { "idempotency-key": "evt_01HQ9Z", prefer: "respond-async" },
      body: { participant: "user_8412", type: "deposit.confirmed" },
    };
    // @ts-expect-error the original header spelling is not a key of the validated headers
    const misspelled: HandlerRequest<"Events_send">["headers"] = { "Idempotency-Key": "evt_01HQ9Z" };
    expect(operationValidators.Events_send.headers(request.headers)).toBe(true);
    expect(operationValidators.Events_send.body(request.body)).toBe(true);
    expect(Object.keys(misspelled)).toEqual(["Idempotency-Key"]);
  });
});

describe("error codes", () => {
  const schemas = (doc.components as { schemas: Record<string, { description?: string; enum?: string[] }> }).schemas;

  it("enumerates every code the error list documents, so clients and validating proxies accept each answer", () => {
    const list = Object.values(schemas).find((schema) => schema.description?.startsWith("Stable error codes."))?.description;
    expect(list, "the documented list of error codes").toBeDefined();
    // The list reads "`code`, `code` (status): meaning": a code is a backticked word followed by its HTTP status.
    const documented = [...list!.matchAll(/`([a-z][a-z_]*)`(?=(?:, `[a-z_]+`)* \(\d{3}\))/g)].map((match) => match[1]);
    expect(documented.length).toBeGreaterThan(30);
    expect(new Set(schemas.ErrorCode.enum)).toEqual(new Set(documented));
  });
});
