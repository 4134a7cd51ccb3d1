// The published document as tools other than ours read it (spec/codegen/interop.ts):
// request-side defaults kept optional, maps spelled as maps, the headers the
// server sends declared, and an example with a real error code on every error.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { listOperations, type JsonSchema, type OpenApiDocument } from "../../spec/codegen/document.js";
import { SERVER_DEFAULT_EXTENSION, withServerDefaults } from "../../spec/codegen/interop.js";
import { operationValidators, schemaValidators } from "../../generated/validators.js";

const doc = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as OpenApiDocument;
const schemas = doc.components!.schemas!;
const errorCodes = new Set((schemas.ErrorCode as { enum: string[] }).enum);

function walk(node: unknown, visit: (schema: JsonSchema, path: string) => void, path = ""): void {
  if (Array.isArray(node)) return node.forEach((item, i) => walk(item, visit, `${path}/${i}`));
  if (node === null || typeof node !== "object") return;
  visit(node as JsonSchema, path);
  for (const [key, value] of Object.entries(node))
    if (!["example", "examples", "enum", "const", "default", SERVER_DEFAULT_EXTENSION].includes(key)) walk(value, visit, `${path}/${key}`);
}

describe("request-side defaults", () => {
  it("are documented and kept out of `default` (generators would make those fields required)", () => {
    const currency = (schemas.EventInput.properties as Record<string, JsonSchema>).currency;
    expect(currency.default).toBeUndefined();
    expect(currency[SERVER_DEFAULT_EXTENSION]).toBe("BRL");
    expect(currency.description).toContain('Default: `"BRL"`.');
    const enabled = (schemas.WebhookEndpointCreate.properties as Record<string, JsonSchema>).enabled;
    expect(enabled.default).toBeUndefined();
    expect(enabled[SERVER_DEFAULT_EXTENSION]).toBe(true);
  });

  it("are still filled in by the service's validators", () => {
    const event: Record<string, unknown> = { participant: "user_8412", type: "deposit.confirmed", amount: "100.00" };
    expect(operationValidators.Events_send.body!(event)).toBe(true);
    expect(event).toMatchObject({ currency: "BRL", meta: {} });
    const endpoint: Record<string, unknown> = { url: "https://example.com/clube" };
    expect(schemaValidators.WebhookEndpointCreate(endpoint)).toBe(true);
    expect(endpoint).toMatchObject({ events: [], enabled: true });
  });

  it("come back as `default` for the service's own generators", () => {
    const restored = withServerDefaults(doc);
    expect((restored.components!.schemas!.EventInput.properties as Record<string, JsonSchema>).currency.default).toBe("BRL");
    expect(JSON.stringify(restored)).not.toContain(SERVER_DEFAULT_EXTENSION);
  });
});

it("writes maps with additionalProperties (unevaluatedProperties only closes objects)", () => {
  const tally = (schemas.BacktestTally.properties as Record<string, JsonSchema>).currencies_minor;
  expect(tally).toMatchObject({ type: "object", additionalProperties: { type: "integer" } });
  walk(schemas, (schema, path) => {
    // A map is an object whose only keyword about its members is the one for all of them.
    const isMap = schema.type === "object" && !schema.properties && !schema.allOf && !schema.anyOf && !schema.oneOf;
    if (isMap && schema.unevaluatedProperties !== undefined) expect(schema.unevaluatedProperties, path).toEqual({ not: {} });
  });
});

describe("headers", () => {
  const operations = listOperations(doc);

  it("declares RateLimit-* on every response of an authenticated operation but 401 and 405, and Retry-After on every 429 and 503", () => {
    for (const { operationId, operation } of operations) {
      const authenticated = (operation.security ?? doc.security ?? []).some((requirement) => Object.keys(requirement).length > 0);
      for (const [status, response] of Object.entries(operation.responses)) {
        const names = Object.keys(response.headers ?? {});
        const expected = authenticated && status !== "401" && status !== "405";
        for (const name of ["RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"]) {
          expect(names.includes(name), `${operationId} ${status} ${name}`).toBe(expected);
        }
        if (status === "429" || status === "503") expect(names, `${operationId} ${status}`).toContain("Retry-After");
      }
    }
  });

  it("makes them required on success and 429, optional on the errors raised before the caller is counted", () => {
    const send = operations.find((op) => op.operationId === "Events_send")!.operation;
    expect(send.responses["200"].headers!["RateLimit-Limit"]).toEqual({ $ref: "#/components/headers/RateLimitLimit" });
    expect(send.responses["422"].headers!["RateLimit-Limit"]).toEqual({ $ref: "#/components/headers/RateLimitLimitIfCounted" });
    expect(doc.components!.headers!.RateLimitLimitIfCounted).toMatchObject({ required: false });
  });
});

it("has an example with a real error code on every error response, named for Prism's `Prefer: example=`", () => {
  let checked = 0;
  for (const { operationId, operation } of listOperations(doc)) {
    for (const [status, response] of Object.entries(operation.responses)) {
      if (Number(status) < 400) continue;
      const media = response.content?.["application/json"];
      expect(media, `${operationId} ${status}`).toBeDefined();
      const examples = Object.entries(media!.examples ?? {}) as [string, { value: { error: { code: string; message: string } } }][];
      expect(examples.length, `${operationId} ${status}`).toBeGreaterThan(0);
      for (const [name, example] of examples) {
        expect(name).not.toBe("");
        expect(errorCodes.has(example.value.error.code), `${operationId} ${status} ${example.value.error.code}`).toBe(true);
        expect(example.value.error.message.length, `${operationId} ${status}`).toBeGreaterThan(5);
        expect(schemaValidators.ErrorBody(example.value), `${operationId} ${status}`).toBe(true);
      }
      checked++;
    }
  }
  expect(checked).toBeGreaterThan(500);
});
