// The outbound webhooks as published: the document's `webhooks` section lists
// exactly the seed's events plus `webhook.test`, each a POST carrying the three
// X-Clube-* headers and a body whose envelope `type` is fixed to the event
// name. Each event's example body (the one the reference shows) must pass the
// generated validator, and the same body under another `type` must not.
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { schemaValidators, type SchemaName } from "../../generated/validators.js";

interface Schema {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  pattern?: string;
  required?: string[];
  properties?: Record<string, Schema>;
  allOf?: Schema[];
  examples?: unknown[];
}
interface HeaderParameter {
  name: string;
  in: string;
  required?: boolean;
  schema: Schema;
}
interface WebhookOperation {
  parameters: HeaderParameter[];
  requestBody: { required: boolean; content: Record<string, { schema: Schema }> };
}

const doc = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as {
  webhooks: Record<string, Record<string, WebhookOperation>>;
  components: { schemas: Record<string, Schema> };
};
const schemas = doc.components.schemas;

/** The seed's webhook table, in its order. */
const seedEvents = [
  "reward.delivery_requested",
  "reward.granted",
  "reward.delivered",
  "reward.delivery_failed",
  "participant.created",
  "level.up",
  "tier.changed",
  "checkin.completed",
  "mission.completed",
  "wheel.spun",
  "code.redeemed",
  "store.purchased",
  "cashback.credited",
  "referral.qualified",
  "message.requested",
];
/** Events the contract adds to the seed's table. */
const addedEvents = ["tournament.finished"];
const allEvents = [...seedEvents, ...addedEvents, "webhook.test"];

const refName = (schema: Schema): string => schema.$ref!.replace("#/components/schemas/", "");

/** The named schema a property points at (the emitter wraps a documented `$ref` in `allOf`). */
const referenced = (schema: Schema): Schema => schemas[refName(schema.allOf?.[0] ?? schema)];

/** The string values a schema admits: an enum, a const, or a union of those (following $refs). */
function stringValues(schema: Schema): unknown[] {
  if (schema.$ref) return stringValues(schemas[refName(schema)]);
  if (schema.anyOf) return schema.anyOf.flatMap(stringValues);
  if (schema.const !== undefined) return [schema.const];
  return schema.enum ?? [];
}

/** The event's body schema name, from the webhook's request body. */
function bodySchemaName(event: string): SchemaName {
  return refName(doc.webhooks[event].post.requestBody.content["application/json"].schema) as SchemaName;
}

/** A copy of the event's published example body (validators fill defaults into what they check). */
function sampleBody(event: string): Record<string, unknown> {
  const [example] = schemas[bodySchemaName(event)].examples ?? [];
  expect(example, `${event} has an example body`).toBeDefined();
  return structuredClone(example) as Record<string, unknown>;
}

/** A signature header as the seed's scheme builds it. */
function signatureHeader(secret: string, rawBody: string, t: number): string {
  return `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${rawBody}`).digest("hex")}`;
}

describe("webhooks section", () => {
  it("has exactly the seed's 15 events, the added ones and webhook.test", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...allEvents].sort());
  });

  it("names the same events in WebhookEventType, and the subscribable ones plus reward.* in WebhookEventSelector", () => {
    expect(stringValues(schemas.WebhookEventType).sort()).toEqual([...allEvents].sort());
    expect(stringValues(schemas.WebhookEventSelector).sort()).toEqual([...seedEvents, ...addedEvents, "reward.*"].sort());
  });

  it("keeps the generic envelope open to future event types", () => {
    expect(schemas.WebhookEnvelope.required).toEqual(["id", "type", "created_at", "club_id", "env", "data"]);
    expect(schemas.WebhookEnvelope.properties!.type).toMatchObject({ type: "string" });
    expect(schemas.WebhookEnvelope.properties!.type.enum).toBeUndefined();
  });
});

describe.each(allEvents)("webhook %s", (event) => {
  const operations = doc.webhooks[event];

  it("is a POST with a required JSON body", () => {
    expect(Object.keys(operations)).toEqual(["post"]);
    expect(operations.post.requestBody.required).toBe(true);
    expect(Object.keys(operations.post.requestBody.content)).toEqual(["application/json"]);
  });

  it("carries the three X-Clube-* headers", () => {
    const headers = Object.fromEntries(operations.post.parameters.filter((p) => p.in === "header").map((p) => [p.name, p]));
    expect(Object.keys(headers).sort()).toEqual(["X-Clube-Delivery", "X-Clube-Event", "X-Clube-Signature"]);
    for (const header of Object.values(headers)) expect(header.required).toBe(true);
    expect(stringValues(headers["X-Clube-Event"].schema)).toEqual([event]);
    expect(headers["X-Clube-Delivery"].schema.pattern).toBe("^whd_");
    expect(headers["X-Clube-Signature"].schema.pattern).toBe("^t=\\d+,v1=[0-9a-f]{64}$");
  });

  it("fixes the envelope type to its name", () => {
    const body = schemas[bodySchemaName(event)];
    expect(body.required).toEqual(expect.arrayContaining(["id", "type", "created_at", "club_id", "env", "data"]));
    expect(stringValues(body.properties!.type)).toEqual([event]);
  });

  it("validates its example body and refuses it under another type", () => {
    const validate = schemaValidators[bodySchemaName(event)];
    expect(validate(sampleBody(event)), JSON.stringify(validate.errors)).toBe(true);

    const retyped = { ...sampleBody(event), type: event === "level.up" ? "tier.changed" : "level.up" };
    expect(validate(retyped)).toBe(false);
    expect(validate.errors?.[0]?.instancePath).toBe("/type");
  });

  it("refuses an envelope id without the evt_ prefix", () => {
    const validate = schemaValidators[bodySchemaName(event)];
    expect(validate({ ...sampleBody(event), id: "whd_01JQ5C2PB2C3D4E5" })).toBe(false);
    expect(validate.errors?.[0]?.instancePath).toBe("/id");
  });
});

describe("participant data", () => {
  // Every event about one participant names it; referral.qualified involves
  // two and names both; webhook.test is about the endpoint.
  const participantEvents = seedEvents.filter((event) => event !== "referral.qualified");

  it.each(participantEvents)("%s carries data.participant {id, external_id}", (event) => {
    const data = referenced(schemas[bodySchemaName(event)].properties!.data);
    expect(data.required).toContain("participant");
    expect(referenced(data.properties!.participant)).toBe(schemas.WebhookParticipant);
    expect(schemas.WebhookParticipant.required).toEqual(["id", "external_id"]);

    const validate = schemaValidators[bodySchemaName(event)];
    const body = sampleBody(event);
    delete (body.data as Record<string, unknown>).participant;
    expect(validate(body)).toBe(false);
    expect(validate.errors?.[0]?.instancePath).toBe("/data");
  });

  it("referral.qualified names the referrer and the referred participant", () => {
    const data = sampleBody("referral.qualified").data as Record<string, unknown>;
    expect(data).toMatchObject({
      referrer: { id: expect.any(String), external_id: expect.any(String) },
      referred: { id: expect.any(String), external_id: expect.any(String) },
    });
  });
});

describe("the signature header pattern", () => {
  const signature = doc.webhooks["level.up"].post.parameters.find((p) => p.name === "X-Clube-Signature")!;
  const pattern = new RegExp(signature.schema.pattern!);
  const rawBody = JSON.stringify(sampleBody("level.up"));

  it("matches a header signed as the seed describes", () => {
    expect(signatureHeader("whsec_3kQ9xV2mT7pL5rN8wB4yH6jD1fG0sA2c", rawBody, 1741976525)).toMatch(pattern);
  });

  it("refuses upper-case hex, spaces after the comma and a short digest", () => {
    const header = signatureHeader("whsec_3kQ9xV2mT7pL5rN8wB4yH6jD1fG0sA2c", rawBody, 1741976525);
    expect(header.replace(/v1=([0-9a-f]+)/, (_, hex: string) => `v1=${hex.toUpperCase()}`)).not.toMatch(pattern);
    expect(header.replace(",", ", ")).not.toMatch(pattern);
    expect(header.slice(0, -1)).not.toMatch(pattern);
  });
});
