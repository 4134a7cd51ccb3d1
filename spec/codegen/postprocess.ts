// Step 2 of `npm run generate`: what the TypeSpec emitter cannot say, added to
// the emitted document. Pure (document in, new document out) so it is unit-tested
// on small inputs and the output is reproducible byte for byte.
import { effectiveSecurity, listOperations, type JsonSchema, type OpenApiDocument, type ResponseObject } from "./document.js";
import { forIndependentTools } from "./interop.js";
import { forReference, loadGuides } from "./reference.js";

/** The extension a webhook body model carries in TypeSpec: `@extension("x-webhook-event", "level.up")`. */
const WEBHOOK_EVENT_EXTENSION = "x-webhook-event";

/** The header on every operation response, and the name of the shared component it references. */
const REQUEST_ID_HEADER = "X-Request-Id";
const REQUEST_ID_COMPONENT = "RequestId";

/**
 * `bearerFormat` per HTTP bearer scheme. A fixed table on purpose: a new bearer
 * scheme in the contract must be classified here, or the generator fails.
 */
const BEARER_FORMATS: Record<string, string> = {
  SecretKeyAuth: "API key",
  ParticipantTokenAuth: "JWT",
};

/**
 * The SPDX identifier of the license, which the TypeSpec emitter cannot write.
 * OpenAPI 3.1 allows a name alone, but the validators of independent
 * generators (orval) warn without an `identifier` or `url`.
 */
const LICENSE_IDENTIFIER = "LicenseRef-Proprietary";

export function postprocess(input: OpenApiDocument): OpenApiDocument {
  const doc = structuredClone(input);
  addLicenseIdentifier(doc);
  const components = (doc.components ??= {});
  const schemas = (components.schemas ??= {});
  const securitySchemes = components.securitySchemes ?? {};

  describeSecuritySchemes(securitySchemes, schemas);
  // The emitter writes each auth model (`model SecretKeyAuth is BearerAuth`) as a
  // component schema too; those are not payloads and would get validators and types.
  for (const name of Object.keys(securitySchemes)) delete schemas[name];

  addTransportErrors(doc);
  addRequestIdHeader(doc);
  summarizeOperations(doc);
  closeTuples(schemas);
  dropUnusedResponseModels(doc, schemas);
  const webhooks = webhooksFromSchemas(schemas);
  if (Object.keys(webhooks).length > 0) {
    doc.webhooks = { ...doc.webhooks, ...webhooks };
    addWebhooksTag(doc);
  }
  return forReference(forIndependentTools(doc), loadGuides());
}

function addLicenseIdentifier(doc: OpenApiDocument): void {
  const license = (doc as { info?: { license?: Record<string, unknown> } }).info?.license;
  if (license && license.url === undefined) license.identifier ??= LICENSE_IDENTIFIER;
}

function describeSecuritySchemes(securitySchemes: Record<string, Record<string, unknown>>, schemas: Record<string, JsonSchema>): void {
  for (const [name, scheme] of Object.entries(securitySchemes)) {
    // Some emitter versions drop the doc comment on the scheme but keep it on the schema copy.
    scheme.description ??= schemas[name]?.description;
    const isBearer = scheme.type === "http" && String(scheme.scheme).toLowerCase() === "bearer";
    if (!isBearer) continue;
    const bearerFormat = BEARER_FORMATS[name];
    if (bearerFormat === undefined) throw new Error(`Bearer scheme ${name} has no bearerFormat in spec/codegen/postprocess.ts`);
    scheme.bearerFormat = bearerFormat;
    // RFC 9110 scheme names are case-insensitive, but OpenAPI tools compare `bearer` literally.
    scheme.scheme = "bearer";
  }
}

function addRequestIdHeader(doc: OpenApiDocument): void {
  const components = doc.components!;
  components.headers = {
    ...components.headers,
    [REQUEST_ID_COMPONENT]: {
      description: "Identifies this request in the service's logs; quote it when contacting support.",
      required: true,
      schema: { type: "string", minLength: 1 },
      example: "req_01HZX3M7Q4T9B2C6D8E0F1G2H3",
    },
  };
  for (const { operation } of listOperations(doc)) {
    for (const [status, response] of Object.entries(operation.responses)) {
      operation.responses[status] = withRequestIdHeader(response);
    }
  }
}

/** The error body every failure has (spec/common.tsp `ErrorBody`). */
const ERROR_CONTENT = { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } };

/** The headers of a 429, as components (the names are the IETF RateLimit header fields draft's). */
const RATE_LIMIT_HEADERS: Record<string, { name: string; description: string }> = {
  RetryAfter: { name: "Retry-After", description: "Seconds to wait before retrying (RFC 9110)." },
  RateLimitLimit: {
    name: "RateLimit-Limit",
    description: "The requests allowed per window for this caller (secret key, participant token, or source address for rejected credentials).",
  },
  RateLimitRemaining: { name: "RateLimit-Remaining", description: "The requests left in the current window: 0 on a 429." },
  RateLimitReset: { name: "RateLimit-Reset", description: "Seconds until the current window ends." },
};

/**
 * The answers of the HTTP layer rather than of an operation, declared on every
 * operation that can get them so clients and generators know their shape:
 * 405 everywhere (another method on the operation's path; `Allow` lists the
 * path's methods), 503 everywhere (a dependency's outage, `service_unavailable`),
 * 415 on operations with a JSON body, 429 on authenticated
 * operations (the rate limits of `ErrorDetail`'s `rate_limited`). Added here
 * rather than in each TypeSpec operation: they follow from the operation's
 * shape alone, so no operation can forget them. An operation that already
 * declares one keeps its own.
 */
function addTransportErrors(doc: OpenApiDocument): void {
  const components = doc.components!;
  components.headers = {
    ...components.headers,
    Allow: {
      description: "The methods the path answers.",
      required: true,
      schema: { type: "string", minLength: 1 },
      example: "GET, POST",
    },
    ...Object.fromEntries(
      Object.entries(RATE_LIMIT_HEADERS).map(([component, { description }]) => [
        component,
        { description, required: true, schema: { type: "integer", minimum: 0 }, example: component === "RateLimitRemaining" ? 0 : 7 },
      ]),
    ),
  };
  for (const { operation } of listOperations(doc)) {
    const added: Record<string, ResponseObject> = {
      "405": {
        description: "The path does not answer this method; `Allow` lists the methods it answers.",
        headers: { Allow: { $ref: "#/components/headers/Allow" } },
        content: ERROR_CONTENT,
      },
    };
    // Any operation may meet an outage of the database, broker or Redis (server/src/http/outages.ts).
    added["503"] = {
      description:
        "A dependency (database, message broker, Redis) is unreachable for a moment; nothing was done. Retry after `Retry-After` seconds (with the same idempotency key).",
      headers: { "Retry-After": { $ref: "#/components/headers/RetryAfter" } },
      content: ERROR_CONTENT,
    };
    if (operation.requestBody) {
      added["415"] = { description: "The body is not `application/json`.", content: ERROR_CONTENT };
    }
    if (effectiveSecurity(doc, operation).length > 0) {
      added["429"] = {
        description: "Too many requests for this key, participant token or source address; retry after `Retry-After` seconds.",
        headers: Object.fromEntries(Object.entries(RATE_LIMIT_HEADERS).map(([component, { name }]) => [name, { $ref: `#/components/headers/${component}` }])),
        content: ERROR_CONTENT,
      };
    }
    operation.responses = byStatus({ ...added, ...operation.responses });
  }
}

/** Responses ordered by status code (`default` last), as a reader scans them. */
function byStatus(responses: Record<string, ResponseObject>): Record<string, ResponseObject> {
  const rank = (status: string) => (/^\d+$/.test(status) ? Number(status) : status === "default" ? 1_000 : Number(status.replace(/X/gi, "0")) + 99);
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => rank(a) - rank(b)));
}

/**
 * Reference pages list operations by `summary` (Redocly's operation-summary rule requires
 * one). An operation without `@summary` gets the first sentence of its doc comment.
 */
function summarizeOperations(doc: OpenApiDocument): void {
  for (const { operation } of listOperations(doc)) {
    // Without a doc comment there is nothing to summarize; the lint reports it.
    if (operation.summary || !operation.description) continue;
    operation.summary = firstSentence(operation.description);
  }
}

function withRequestIdHeader(response: ResponseObject): ResponseObject {
  return {
    ...response,
    headers: { ...response.headers, [REQUEST_ID_HEADER]: { $ref: `#/components/headers/${REQUEST_ID_COMPONENT}` } },
  };
}

/** One `webhooks` entry per schema marked with x-webhook-event, ordered by event name. */
function webhooksFromSchemas(schemas: Record<string, JsonSchema>): Record<string, Record<string, unknown>> {
  const marked = Object.entries(schemas)
    .filter(([, schema]) => typeof schema[WEBHOOK_EVENT_EXTENSION] === "string")
    .map(([schemaName, schema]) => ({ schemaName, schema, event: schema[WEBHOOK_EVENT_EXTENSION] as string }))
    .sort((a, b) => (a.event < b.event ? -1 : a.event > b.event ? 1 : 0));

  const webhooks: Record<string, Record<string, unknown>> = {};
  for (const { schemaName, schema, event } of marked) {
    if (webhooks[event]) throw new Error(`Two schemas carry ${WEBHOOK_EVENT_EXTENSION} "${event}"`);
    webhooks[event] = { post: webhookOperation(event, schemaName, typeof schema.description === "string" ? schema.description : "") };
  }
  return webhooks;
}

const WEBHOOKS_TAG = "Webhooks";

function addWebhooksTag(doc: OpenApiDocument): void {
  const tags = (doc.tags ?? []) as { name: string }[];
  if (tags.some((t) => t.name === WEBHOOKS_TAG)) return;
  doc.tags = [...tags, { name: WEBHOOKS_TAG, description: "Signed notices the service POSTs to the endpoint the client registered for the environment." }];
}

function webhookOperation(event: string, schemaName: string, description: string): Record<string, unknown> {
  return {
    operationId: `webhook_${event.replace(/[^A-Za-z0-9]+/g, "_")}`,
    // Without a doc comment on the model these stay empty and the lint reports the missing summary.
    ...(description ? { summary: firstSentence(description), description } : {}),
    tags: [WEBHOOKS_TAG],
    // Webhooks are authenticated by the signature header, not by a security scheme.
    security: [],
    parameters: [
      {
        name: "X-Clube-Event",
        in: "header",
        required: true,
        description: "The event name; equals the body's `type`.",
        schema: { type: "string", const: event },
      },
      {
        name: "X-Clube-Delivery",
        in: "header",
        required: true,
        description: "Id of this sending (one attempt series); retries of the same sending keep it.",
        schema: { type: "string", pattern: "^whd_" },
        example: "whd_01HZX3M7Q4T9B2C6D8E0F1G2H3",
      },
      {
        name: "X-Clube-Signature",
        in: "header",
        required: true,
        description:
          "`t=<unix seconds>,v1=<hex>`: `v1` is the lowercase hex HMAC-SHA256, keyed with the endpoint secret (`whsec_…`, used as given), " +
          "of `t` + `.` + the raw request body. Compare in constant time and reject when `t` is more than 300 seconds from now.",
        schema: { type: "string", pattern: "^t=\\d+,v1=[0-9a-f]{64}$" },
        example: "t=1717430400,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
      },
    ],
    requestBody: {
      required: true,
      content: { "application/json": { schema: { $ref: `#/components/schemas/${schemaName}` } } },
    },
    responses: {
      "200": { description: "Any 2xx within 10 seconds acknowledges; anything else is retried." },
    },
  };
}

/** The first sentence of the first paragraph, line breaks of the doc comment folded, without its final period. */
export function firstSentence(text: string): string {
  // Summaries are plain text in reference pages (Swagger UI shows backticks literally).
  const paragraph = text
    .split(/\n\s*\n/)[0]
    .replace(/\s+/g, " ")
    .replace(/`/g, "")
    .trim();
  const match = /^(.+?)[.!?](\s|$)/.exec(paragraph);
  return match ? match[1] : paragraph;
}

/**
 * A TypeSpec tuple emits `prefixItems` alone, which 3.1 reads as "any further
 * items allowed" and which some generators type as `unknown[]`: give every
 * tuple its exact length and an `items` schema (what any position may hold).
 */
function closeTuples(schemas: Record<string, JsonSchema>): void {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    const schema = node as JsonSchema;
    const prefix = schema.prefixItems as JsonSchema[] | undefined;
    if (schema.type === "array" && Array.isArray(prefix) && schema.items === undefined) {
      const distinct = [...new Map(prefix.map((p) => [JSON.stringify(p), p])).values()];
      schema.items = distinct.length === 1 ? distinct[0] : { anyOf: distinct };
      schema.minItems ??= prefix.length;
      schema.maxItems ??= prefix.length;
    }
    Object.values(schema).forEach(visit);
  };
  visit(schemas);
}

/**
 * Generic error-response models (`NotFoundResponse`, …) are spread into the
 * operations' responses; the emitter also writes the unused ones as schemas,
 * which no payload references. Drop those so the document has no dead components.
 */
function dropUnusedResponseModels(doc: OpenApiDocument, schemas: Record<string, JsonSchema>): void {
  const text = JSON.stringify(doc);
  for (const name of Object.keys(schemas)) {
    if (name.endsWith("Response") && !text.includes(`"#/components/schemas/${name}"`)) delete schemas[name];
  }
}
