// Part of the codegen post-process: what makes the published document read
// right in tools other than ours (independent client generators with their
// default flags, the Prism mock, header-aware linters). Each step is pure and
// keeps the service's behaviour: the validators see the same schemas (see
// `withServerDefaults`), only their spelling for other tools changes.
import {
  HTTP_METHODS,
  effectiveSecurity,
  isSuccessStatus,
  jsonContent,
  listOperations,
  type JsonSchema,
  type OpenApiDocument,
  type ParameterObject,
  type RequestBodyObject,
  type ResponseObject,
} from "./document.js";
import { pathExample } from "./reference.js";

/**
 * Where a request-side default is kept once it leaves `default`. openapi-typescript
 * (without `--default-non-nullable false`) makes every property with a `default`
 * required, so a README-style call that omits it stops compiling. The service
 * still fills the default in: `withServerDefaults` puts it back for the
 * validators and types it generates.
 */
export const SERVER_DEFAULT_EXTENSION = "x-clube-default";

export function forIndependentTools(doc: OpenApiDocument): OpenApiDocument {
  defaultsAsDocumentation(doc);
  mapsAsAdditionalProperties(doc);
  declareRateLimitHeaders(doc);
  addErrorExamples(doc);
  return doc;
}

/** The document as the service's own generators read it: request-side defaults back in `default`. */
export function withServerDefaults<T>(doc: T): T {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === SERVER_DEFAULT_EXTENSION) out.default = value;
      else out[key] = DATA_KEYS.has(key) ? value : visit(value);
    }
    return out;
  };
  return visit(doc) as T;
}

/** Examples and enumerations are data: their keys are never keywords. */
const DATA_KEYS = new Set(["example", "examples", "default", "const", "enum", SERVER_DEFAULT_EXTENSION]);

/**
 * Optional properties with a `default`, in every component schema a request
 * body reaches: the default moves to `x-clube-default` and is written into the
 * property's description, so readers still see it and generators keep the
 * property optional.
 */
function defaultsAsDocumentation(doc: OpenApiDocument): void {
  const schemas = doc.components?.schemas ?? {};
  for (const name of requestSchemaNames(doc)) {
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (node === null || typeof node !== "object") return;
      const schema = node as JsonSchema;
      const properties = schema.properties as Record<string, JsonSchema> | undefined;
      if (properties && typeof properties === "object") {
        const required = new Set((schema.required as string[] | undefined) ?? []);
        for (const [property, propertySchema] of Object.entries(properties)) {
          if (required.has(property) || propertySchema === null || typeof propertySchema !== "object" || !("default" in propertySchema)) continue;
          properties[property] = movedDefault(propertySchema);
        }
      }
      for (const [key, value] of Object.entries(schema)) if (!DATA_KEYS.has(key)) visit(value);
    };
    visit(schemas[name]);
  }
}

function movedDefault(schema: JsonSchema): JsonSchema {
  const { default: value, ...rest } = schema;
  const note = `Default: \`${JSON.stringify(value)}\`.`;
  const description = typeof rest.description === "string" && rest.description.length > 0 ? `${rest.description}\n\n${note}` : note;
  return { ...rest, description, [SERVER_DEFAULT_EXTENSION]: value };
}

/** Component schemas a request body reaches through `$ref`s (directly or nested). */
function requestSchemaNames(doc: OpenApiDocument): Set<string> {
  const schemas = doc.components?.schemas ?? {};
  const found = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && value.startsWith(SCHEMA_PREFIX)) {
        const name = value.slice(SCHEMA_PREFIX.length);
        if (!found.has(name) && schemas[name]) {
          found.add(name);
          visit(schemas[name]);
        }
      } else if (!DATA_KEYS.has(key)) visit(value);
    }
  };
  for (const { operation } of listOperations(doc)) visit(operation.requestBody);
  return found;
}

const SCHEMA_PREFIX = "#/components/schemas/";

/**
 * A map (an object schema without properties whose values follow one schema)
 * written with `unevaluatedProperties` generates as `Record<string, never>` in
 * openapi-typescript; `additionalProperties` says the same thing where nothing
 * else evaluates properties, and every generator reads it as a map.
 */
function mapsAsAdditionalProperties(doc: OpenApiDocument): void {
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== "object") return;
    const schema = node as JsonSchema;
    if (isPlainMap(schema)) {
      const { unevaluatedProperties, ...rest } = schema;
      for (const key of Object.keys(schema)) delete schema[key];
      Object.assign(schema, { ...rest, additionalProperties: unevaluatedProperties });
    }
    for (const [key, value] of Object.entries(schema)) if (!DATA_KEYS.has(key)) visit(value);
  };
  visit(doc.components?.schemas);
  visit(doc.paths);
  visit(doc.webhooks);
}

function isPlainMap(schema: JsonSchema): boolean {
  const values = schema.unevaluatedProperties;
  if (values === undefined || values === false || schema.additionalProperties !== undefined) return false;
  // A closed object (`{not: {}}`) is no map; keep its spelling (the service's 422 wording depends on it).
  if (typeof values === "object" && values !== null && "not" in values) return false;
  const hasProperties = schema.properties !== undefined && Object.keys(schema.properties as object).length > 0;
  const composed = ["allOf", "anyOf", "oneOf", "$ref", "if", "dependentSchemas", "patternProperties"].some((k) => schema[k] !== undefined);
  return !hasProperties && !composed;
}

/** The `RateLimit-*` fields (IETF RateLimit header fields draft) the per-caller limiter sets (server/src/http/rate-limit.ts). */
const RATE_LIMIT_FIELDS = [
  ["RateLimit-Limit", "RateLimitLimit"],
  ["RateLimit-Remaining", "RateLimitRemaining"],
  ["RateLimit-Reset", "RateLimitReset"],
] as const;

/**
 * Every response of an authenticated operation carries `RateLimit-*` once the
 * caller is known: always on success and on 429, and on the errors raised after
 * authentication (body, validation and the operation's own), so those declare
 * them as optional. A 401 comes before the caller is known and a 405 before
 * any route, so neither has them. `Retry-After` goes on every 429 and 503.
 */
function declareRateLimitHeaders(doc: OpenApiDocument): void {
  const headers = (doc.components!.headers ??= {}) as Record<string, Record<string, unknown>>;
  for (const [, component] of RATE_LIMIT_FIELDS) {
    const always = headers[component];
    if (!always) continue;
    headers[`${component}IfCounted`] = {
      ...always,
      required: false,
      description: `${always.description as string} Present once the caller is authenticated.`,
    };
  }
  for (const { operation } of listOperations(doc)) {
    const counted = effectiveSecurity(doc, operation).length > 0;
    for (const [status, response] of Object.entries(operation.responses)) {
      const added: Record<string, { $ref: string }> = {};
      if (counted && status !== "401" && status !== "405") {
        const suffix = isSuccessStatus(status) || status === "429" ? "" : "IfCounted";
        for (const [name, component] of RATE_LIMIT_FIELDS) added[name] = { $ref: `#/components/headers/${component}${suffix}` };
      }
      if ((status === "429" || status === "503") && headers.RetryAfter) added["Retry-After"] = { $ref: "#/components/headers/RetryAfter" };
      response.headers = { ...response.headers, ...added, ...response.headers };
    }
  }
}

/** The service's own messages for the errors any route can answer (server/src/http, server/src/usecases/shared/errors.ts). */
const TRANSPORT_ERRORS: Record<string, ErrorExample[]> = {
  "400": [{ name: "Invalid JSON", code: "invalid_json", message: "The request body is not valid JSON (an object or an array is expected)." }],
  "401": [
    { name: "Missing key", code: "unauthorized", message: "Send your key as `Authorization: Bearer <key>`." },
    { name: "Unknown key", code: "unauthorized", message: "The key is unknown or revoked." },
  ],
  "403": [{ name: "Secret key required", code: "secret_key_required", message: "This operation needs the secret key; participant tokens are refused." }],
  "413": [{ name: "Body too large", code: "payload_too_large", message: "The request body is larger than the limit for this route." }],
  "415": [{ name: "Not JSON", code: "unsupported_media_type", message: "Send the body as application/json." }],
  "429": [{ name: "Rate limited", code: "rate_limited", message: "Too many requests for this API key. Retry after 7 s." }],
  "500": [
    { name: "Internal error", code: "internal_error", message: "An unexpected error occurred; it has been logged. Quote the X-Request-Id header to support." },
  ],
  "503": [
    {
      name: "Service unavailable",
      code: "service_unavailable",
      message:
        "A service this request needs (database, message broker or Redis) is unreachable; nothing was done. Retry after 5 seconds with the same idempotency key.",
    },
  ],
};

const PARTICIPANT_TOKEN_ERRORS: ErrorExample[] = [
  { name: "Expired token", code: "invalid_token", message: "The participant token has expired; ask your server for a new one." },
];

const IDEMPOTENCY_ERRORS: ErrorExample[] = [
  {
    name: "Idempotency key reused",
    code: "idempotency_key_reused",
    message: "Idempotency-Key 'order-8412-1' was already used for a different request (another operation, body or participant); use a new key.",
  },
  {
    name: "Idempotency key in use",
    code: "idempotency_key_in_use",
    message: "A request with Idempotency-Key 'order-8412-1' is still being processed; retry shortly.",
  },
];

/**
 * One named example per error an operation's error response declares, so the
 * Prism mock answers the service's real codes and messages (`Prefer: code=404`
 * picks the first, `Prefer: example=<name>` any of them). The codes come from
 * the response's own description (`409 \`already_closed\`: …`) where it names
 * them, else from the errors every route of that shape answers.
 */
function addErrorExamples(doc: OpenApiDocument): void {
  const codes = new Set(((doc.components?.schemas?.ErrorCode as JsonSchema | undefined)?.enum as string[] | undefined) ?? []);
  for (const { operation, parameters, path } of listOperations(doc)) {
    const security = effectiveSecurity(doc, operation).flat();
    const takesIdempotencyKey = parameters.some((p) => p.in === "header" && p.name.toLowerCase() === "idempotency-key");
    for (const [status, response] of Object.entries(operation.responses)) {
      if (isSuccessStatus(status) || !/^\d+$/.test(status)) continue;
      const media = jsonContent(response);
      if (!media || media.example !== undefined || (media.examples && Object.keys(media.examples).length > 0)) continue;
      const described = describedErrors(response, codes, `${resourceOf(path, parameters)} was not found.`);
      const errors = described.length > 0 ? described : fallbackErrors(doc, status, path, parameters, security, takesIdempotencyKey, operation.requestBody);
      const unique = [...new Map(errors.map((e) => [e.name, e])).values()];
      if (unique.length === 0) continue;
      // A copy: responses added by the post-process share one content object.
      response.content = {
        ...response.content,
        "application/json": {
          ...media,
          examples: Object.fromEntries(unique.map(({ name, code, message }) => [name, { summary: name, value: { error: { code, message } } }])),
        },
      };
    }
  }
}

/**
 * The service's message per error code (server/src/usecases, with example
 * values in place of the request's), for the codes a response description
 * names. `already_claimed` and `not_claimable` differ per operation, so their
 * description stands in.
 */
const SERVICE_MESSAGES: Record<string, string> = {
  affiliate_code_taken: 'Affiliate code "STREAMERJOAO" is already in use',
  cashback_auto_mode: "Cashback is paid automatically every day at 10:00; there is nothing to claim",
  cashback_disabled: "The club's cashback program is disabled",
  checkin_disabled: "The club's check-in is disabled",
  code_exhausted: "Promotional code CARNAVAL25 has no redemptions left",
  code_limit_reached: "Promotional code CARNAVAL25 was already redeemed 1 time(s) by this participant",
  code_not_redeemable: "Promotional code CARNAVAL25 is disabled",
  code_taken: 'Promotional code "CARNAVAL25" already exists',
  event_required: "Check-in on 2025-03-14 requires a deposit.confirmed event first",
  no_spins_left: "No spins left today; the next one is available at 2025-03-15T03:00:00Z",
  nothing_to_claim: "No cashback is waiting to be claimed",
  origin_not_allowed: 'The page origin "https://outra.example" is not in this club\'s allowedOrigins.',
  participant_exists: 'A participant with external_id "br:8412" exists; send merge: true to merge it into this one.',
  referral_not_counted: "The participant was already referred",
  secret_key_required: "This operation needs the secret key; participant tokens are refused.",
  sending_pending: "Sending 'whd_01JQ5C2PB2C3D4E5' is pending",
  signing_secret_missing: "This club has no participant-token signing secret for this environment; contact support.",
  test_clock_in_use: "3 event(s) of the test environment were recorded after real now; real time cannot go back before them. Keep the clock or use a new club.",
  version_not_draft: "Version 6 is superseded, not a draft.",
  wheel_disabled: "The club's wheel is disabled",
};

function describedErrors(response: ResponseObject, codes: Set<string>, notFound: string): ErrorExample[] {
  const found: ErrorExample[] = [];
  // "409 `code`: what happened." (one clause per code, as the contract writes them)
  const clause = /`([a-z_]+)`:\s*([^]*?\.)(?=\s+(?:\d{3}\s+)?`[a-z_]+`:|\s*$)/g;
  for (const match of response.description.matchAll(clause)) {
    const [, code, text] = match;
    if (!codes.has(code)) continue;
    const described = text.replace(/\s+/g, " ").replace(/`/g, "").trim();
    const message = code === "not_found" ? notFound : (SERVICE_MESSAGES[code] ?? described[0].toUpperCase() + described.slice(1));
    found.push({ name: humanName(code), code, message });
  }
  return found;
}

type ErrorExample = { name: string; code: string; message: string };

function fallbackErrors(
  doc: OpenApiDocument,
  status: string,
  path: string,
  parameters: ParameterObject[],
  security: string[],
  takesIdempotencyKey: boolean,
  requestBody: RequestBodyObject | undefined,
): ErrorExample[] {
  switch (status) {
    case "401":
      return [...TRANSPORT_ERRORS["401"], ...(security.includes("ParticipantTokenAuth") ? PARTICIPANT_TOKEN_ERRORS : [])];
    case "404":
      return [{ name: "Not found", code: "not_found", message: `${resourceOf(path, parameters)} was not found.` }];
    case "409": {
      const events = path.startsWith("/v1/events") ? [EVENT_ID_CONFLICT] : [];
      const staff = path.startsWith("/v1/staff/members") ? STAFF_CONFLICTS : [];
      return [...events, ...staff, ...(takesIdempotencyKey ? IDEMPOTENCY_ERRORS : [])];
    }
    case "422":
      return [{ name: "Validation failed", code: "validation_failed", message: validationMessage(doc, requestBody) }];
    case "405": {
      const methods = HTTP_METHODS.filter((method) => doc.paths?.[path]?.[method] !== undefined);
      return [{ name: "Method not allowed", code: "method_not_allowed", message: `This route accepts ${methods.map((m) => m.toUpperCase()).join(", ")}.` }];
    }
    default:
      return TRANSPORT_ERRORS[status] ?? [];
  }
}

/** server/src/usecases/staff/members.ts */
const STAFF_CONFLICTS: ErrorExample[] = [
  { name: "E-mail taken", code: "conflict", message: "A staff member with e-mail ana@clube.example already exists in this club." },
  { name: "Last owner", code: "conflict", message: "The club's last enabled owner cannot be removed; make another owner first." },
];

const EVENT_ID_CONFLICT: ErrorExample = {
  name: "Event id conflict",
  code: "event_id_conflict",
  message: "Event key 'dep_1' was already used for another participant; send this event with its own id.",
};

/** The service's 422 wording (spec/codegen/runtime/format-ajv-error.ts) for the body's first required field, else an unknown query parameter. */
function validationMessage(doc: OpenApiDocument, requestBody: RequestBodyObject | undefined): string {
  let schema = jsonContent(requestBody)?.schema;
  const ref = schema?.$ref;
  if (typeof ref === "string" && ref.startsWith(SCHEMA_PREFIX)) schema = doc.components?.schemas?.[ref.slice(SCHEMA_PREFIX.length)] ?? schema;
  const required = (schema?.required as string[] | undefined)?.[0];
  if (required) return `body.${required} is required`;
  if (schema) return "body must be object";
  return "query.foo is not an allowed field";
}

/**
 * The noun the service's `notFound` names per collection, and how it quotes the
 * id (server/src/usecases): `Participant "user_8412" was not found.`
 */
const NOT_FOUND_NOUNS: Record<string, [noun: string, quote: "json" | "single" | "none"]> = {
  participants: ["Participant", "json"],
  deliveries: ["Delivery", "json"],
  affiliates: ["Affiliate", "json"],
  codes: ["Promotional code", "json"],
  keys: ["Key", "single"],
  webhook_endpoints: ["Webhook endpoint", "single"],
  webhook_sendings: ["Webhook sending", "single"],
  backtests: ["Backtest", "json"],
  versions: ["Configuration version", "none"],
  missions: ["Mission", "json"],
  leaderboards: ["Leaderboard", "json"],
  notifications: ["Notification", "json"],
  store: ["Reward", "json"],
  editions: ["Edition", "json"],
};

/** What a route without an id in its path names when it answers 404. */
const UNNAMED_NOT_FOUND: [pathPrefix: string, what: string][] = [
  ["/v1/me", 'Participant "user_8412"'],
  ["/v1/test_clock", "A test clock (test clocks exist in the test environment only)"],
  ["/v1/config/publish", "A configuration draft"],
  ["/v1/config", "A published configuration for the test environment"],
  ["/v1/key", "The key"],
];

/** `/v1/webhook_endpoints/{id}/sendings` → `Webhook endpoint 'we_…'`: the noun and id the service's `notFound` names. */
function resourceOf(path: string, parameters: ParameterObject[]): string {
  const segments = path.split("/").filter(Boolean);
  const last = segments.findLastIndex((s) => s.startsWith("{"));
  if (last <= 0) return UNNAMED_NOT_FOUND.find(([prefix]) => path.startsWith(prefix))?.[1] ?? "The resource";
  const collection = segments[last - 1];
  const [noun, quote] = NOT_FOUND_NOUNS[collection] ?? [capitalize(collection.replace(/ies$/, "y").replace(/s$/, "").replace(/_/g, " ")), "json"];
  const name = segments[last].slice(1, -1);
  const parameter = parameters.find((p) => p.in === "path" && p.name === name);
  const example = String(
    parameter?.example ?? (parameter?.schema?.examples as unknown[] | undefined)?.[0] ?? parameter?.schema?.example ?? pathExample(path, name),
  );
  return `${noun} ${quote === "json" ? JSON.stringify(example) : quote === "single" ? `'${example}'` : example}`;
}

function capitalize(text: string): string {
  return text[0].toUpperCase() + text.slice(1);
}

function humanName(code: string): string {
  const words = code.replace(/_/g, " ");
  return words[0].toUpperCase() + words.slice(1);
}
