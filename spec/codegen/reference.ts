// Part of the codegen post-process: what the API reference at /docs (Redoc)
// reads besides the operations themselves: tags in the order a user
// integrates, grouped (`x-tagGroups`), the guides as sections of their own,
// and code samples per operation (`x-codeSamples`: curl, @clube/node and, on
// the participant surface, @clube/browser), written from the same operation
// table and SDK names the SDKs are generated from.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  effectiveSecurity,
  isSuccessStatus,
  jsonContent,
  listOperations,
  textContent,
  type JsonSchema,
  type OpenApiDocument,
  type OperationObject,
  type OperationRef,
  type RequestBodyObject,
  type ResponseObject,
} from "./document.js";
import { isStaffConsoleOnly } from "./sdk.js";
import { sdkName } from "./sdk-names.js";

export interface Guide {
  /** The section's name in the reference's menu. */
  name: string;
  /** Markdown; its own top-level title is dropped (the name is the title). */
  markdown: string;
}

/** The guides under docs/, in reading order. */
const GUIDE_FILES: [name: string, file: string][] = [
  ["Getting started", "guides/getting-started.md"],
  ["Participant tokens and the widget", "guides/participant-tokens.md"],
  ["Webhooks and signatures", "guides/webhooks.md"],
  ["Testing with test clocks", "guides/test-clocks.md"],
  ["The club configuration", "configuration.md"],
];

export function loadGuides(): Guide[] {
  return GUIDE_FILES.map(([name, file]) => ({ name, markdown: readFileSync(fileURLToPath(new URL(`../../docs/${file}`, import.meta.url)), "utf8") }));
}

/**
 * Tag groups in the order a user integrates: the calls of a first integration,
 * then the participant surface and the webhooks, then what staff and
 * operators manage. A tag not listed (a new one) goes to the end of "Manage",
 * so no operation is ever hidden from the reference.
 */
const TAG_GROUPS: [group: string, tags: string[]][] = [
  ["Integrate", ["Participants", "Events", "Deliveries", "Redemptions", "Referrals", "Affiliates", "Codes", "Cashback", "Tournaments"]],
  ["Participant surface", ["Me"]],
  ["Webhooks", ["Webhook endpoints", "Webhooks"]],
  ["Manage", ["Health", "Config", "Games", "API keys", "Token signing secret", "Test clocks", "Event log", "Overview", "Staff warnings"]],
];
const GUIDES_GROUP = "Guides";
/**
 * The section listing the contract's objects by name, last in the menu: Redoc
 * shows there every schema whose `x-tags` names it, and its search indexes
 * the menu, so this is also what makes search find schemas. Only the objects
 * an operation or webhook sends or accepts as its body are listed (the nested
 * ones show inside them): Redoc draws every listed schema up front, and
 * listing all of them made the page much larger and slower to render.
 */
export const SCHEMAS_TAG = "Schemas";

export function forReference(doc: OpenApiDocument, guides: Guide[]): OpenApiDocument {
  addCodeSamples(doc);
  listBodySchemas(doc);
  shortenWebhookSummaries(doc);
  groupTags(doc, guides);
  return doc;
}

function groupTags(doc: OpenApiDocument, guides: Guide[]): void {
  type Tag = { name: string; description?: string; [key: string]: unknown };
  const declared = new Map(((doc.tags ?? []) as Tag[]).map((tag) => [tag.name, tag]));
  const used = new Set<string>();
  for (const { operation } of listOperations(doc)) for (const tag of operation.tags ?? []) used.add(tag);
  for (const item of Object.values(doc.webhooks ?? {})) {
    for (const operation of Object.values(item) as { tags?: string[] }[]) for (const tag of operation.tags ?? []) used.add(tag);
  }
  const known = new Set(TAG_GROUPS.flatMap(([, tags]) => tags));
  const groups = TAG_GROUPS.map(([name, tags]) => ({ name, tags: tags.filter((tag) => used.has(tag) || declared.has(tag)) }));
  const others = [...new Set([...declared.keys(), ...used])].filter((tag) => !known.has(tag));
  groups[groups.length - 1].tags.push(...others);

  const guideTags: Tag[] = guides.map(({ name, markdown }) => ({ name, description: guideBody(markdown), "x-traitTag": true }));
  const ordered = groups.flatMap((group) => group.tags).map((name) => declared.get(name) ?? { name });
  const schemas: Tag = { name: SCHEMAS_TAG, description: "Every object the API sends or accepts, by name, with its fields." };
  doc.tags = [...guideTags, ...ordered, schemas];
  doc["x-tagGroups"] = [
    ...(guideTags.length > 0 ? [{ name: GUIDES_GROUP, tags: guideTags.map((tag) => tag.name) }] : []),
    ...groups.filter((group) => group.tags.length > 0),
    { name: SCHEMAS_TAG, tags: [SCHEMAS_TAG] },
  ];
}

/** Tags with `SCHEMAS_TAG` each schema that is an operation's or a webhook's body (directly, as array items, or as a branch). */
function listBodySchemas(doc: OpenApiDocument): void {
  const schemas = doc.components?.schemas ?? {};
  const named = new Set<string>();
  const visit = (schema: JsonSchema | undefined): void => {
    if (!schema) return;
    if (typeof schema.$ref === "string") {
      named.add(schema.$ref.split("/").pop()!);
      return;
    }
    visit(schema.items as JsonSchema | undefined);
    for (const keyword of ["anyOf", "oneOf", "allOf"]) for (const branch of (schema[keyword] as JsonSchema[] | undefined) ?? []) visit(branch);
  };
  const visitOperation = (operation: { requestBody?: RequestBodyObject; responses?: Record<string, ResponseObject> }): void => {
    for (const media of Object.values(operation.requestBody?.content ?? {})) visit(media.schema);
    for (const response of Object.values(operation.responses ?? {})) for (const media of Object.values(response.content ?? {})) visit(media.schema);
  };
  for (const { operation } of listOperations(doc)) visitOperation(operation);
  for (const item of Object.values(doc.webhooks ?? {})) for (const operation of Object.values(item)) visitOperation(operation as OperationObject);
  for (const name of [...named].sort()) if (schemas[name]) schemas[name]["x-tags"] = [SCHEMAS_TAG];
}

/** A guide as a tag description: without its own title, and without links to files of the repository (not served). */
function guideBody(markdown: string): string {
  return markdown
    .replace(/^# .*\n+/, "")
    .replace(/\[([^\]]+)\]\((?!https?:|#)[^)]*\)/g, "$1")
    .trim();
}

/**
 * Webhook bodies carry their whole story in the model's doc comment; in the
 * menu the event name is what a reader looks for.
 */
function shortenWebhookSummaries(doc: OpenApiDocument): void {
  for (const [event, item] of Object.entries(doc.webhooks ?? {})) {
    for (const operation of Object.values(item) as { summary?: string }[]) {
      if (operation.summary && operation.summary.length > SUMMARY_LIMIT) operation.summary = event;
    }
  }
}

/** The longest operation summary the reference's menu shows in full. */
export const SUMMARY_LIMIT = 100;

const BASE_URL = "http://localhost:3000";

function addCodeSamples(doc: OpenApiDocument): void {
  for (const ref of listOperations(doc)) {
    const samples = [{ lang: "Shell", label: "curl", source: curlSample(doc, ref) }];
    const node = nodeSample(doc, ref);
    if (node) samples.push({ lang: "JavaScript", label: "@clube/node", source: node });
    const browser = browserSample(doc, ref);
    if (browser) samples.push({ lang: "JavaScript", label: "@clube/browser", source: browser });
    ref.operation["x-codeSamples"] = samples;
  }
}

function acceptsParticipantToken(doc: OpenApiDocument, ref: OperationRef): boolean {
  return effectiveSecurity(doc, ref.operation).some((alternative) => alternative.length === 1 && alternative[0] === "ParticipantTokenAuth");
}

/**
 * Ids for path parameters, which carry no example of their own: the ids the
 * contract's response examples use, keyed by the collection before the
 * parameter (or by the parameter's name).
 */
const PATH_EXAMPLES: Record<string, string | number> = {
  external_id: "user_8412",
  affiliates: "aff_01JQ1A2B3C4D5E6F",
  backtests: "btr_01JQ9A2B3C4D5E6F7G8H",
  codes: "CARNAVAL25",
  deliveries: "dlv_01JQ5C2P9T5A7B4E",
  keys: "key_01JQ7E5F6G8J0L2N",
  versions: 7,
  webhook_endpoints: "we_01JQ7E5F6G8J0L2N",
  webhook_sendings: "whd_01JQ5C2PB2C3D4E5",
  events: "evt_01JQ5C2P6M0P2R4T",
  mission_id: "deposito-semanal",
  campaign_id: "torneio-slots-marco",
  notification_id: "ntf_01HQ9Z3K8A1B2C3D4E5F",
  reward_code: "giros-10",
  tournament_id: "slots-semanal",
  edition_id: "2026-11-23",
};

/** An example value for the path parameter `name` of `path`, else `{name}`. */
export function pathExample(path: string, name: string): string | number {
  const segments = path.split("/");
  const collection = segments[segments.indexOf(`{${name}}`) - 1];
  return PATH_EXAMPLES[name] ?? PATH_EXAMPLES[collection] ?? `{${name}}`;
}

/** The value a path or query parameter's example gives, else a placeholder named after it. */
function parameterExample(ref: OperationRef, name: string, location: "path" | "query"): unknown {
  const parameter = ref.parameters.find((p) => p.in === location && p.name === name);
  const examples = parameter?.examples as Record<string, { value?: unknown }> | undefined;
  return (
    parameter?.example ??
    (examples ? Object.values(examples)[0]?.value : undefined) ??
    parameter?.schema?.example ??
    (parameter?.schema?.examples as unknown[] | undefined)?.[0] ??
    (location === "path" ? pathExample(ref.path, name) : undefined)
  );
}

/** The request body of the operation's first example, if it has one. */
function bodyExample(ref: OperationRef): unknown {
  const media = jsonContent(ref.operation.requestBody);
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = Object.values(media.examples ?? {})[0] as { value?: unknown } | undefined;
  return first?.value ?? {};
}

function requiredQuery(ref: OperationRef): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  for (const p of ref.parameters.filter((p) => p.in === "query" && p.required)) query[p.name] = parameterExample(ref, p.name, "query") ?? "";
  return query;
}

function curlSample(doc: OpenApiDocument, ref: OperationRef): string {
  const path = ref.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(String(parameterExample(ref, name, "path"))));
  const query = new URLSearchParams(Object.entries(requiredQuery(ref)).map(([k, v]) => [k, String(v)])).toString();
  const url = `${BASE_URL}${path}${query ? `?${query}` : ""}`;
  const lines = [`curl ${ref.method === "get" ? "" : `-X ${ref.method.toUpperCase()} `}"${url}"`];
  const security = effectiveSecurity(doc, ref.operation);
  if (security.length > 0) {
    // The participant surface is shown as a participant's front end calls it; headless mode is in the Node sample.
    if (acceptsParticipantToken(doc, ref)) lines.push(`-H "Authorization: Bearer $CLUBE_PARTICIPANT_TOKEN"`);
    else if (isStaffConsoleOnly(doc, ref)) {
      // The console's own-account operations take the staff session cookie (and its CSRF token on writes), never a key.
      lines.push(`-b "clube_session=$CLUBE_SESSION"`);
      if (ref.method !== "get") lines.push(`-H "X-CSRF-Token: $CLUBE_CSRF_TOKEN"`);
    } else lines.push(`-H "Authorization: Bearer $CLUBE_SECRET_KEY"`);
  }
  const body = bodyExample(ref);
  if (body !== undefined) {
    lines.push(`-H "Content-Type: application/json"`);
    lines.push(`-d '${JSON.stringify(body).replace(/'/g, "'\\''")}'`);
  }
  return lines.join(" \\\n  ");
}

/** `clube.<resource>.<method>(path params…, body, query)` as the generated SDKs take them (spec/codegen/sdk.ts). */
function sdkCall(doc: OpenApiDocument, ref: OperationRef, receiver: string): string | undefined {
  const tag = ref.operation.tags?.[0];
  if (!tag) return undefined;
  // Exports answering text (CSV) and the console's own-account operations have no SDK method (spec/codegen/sdk.ts).
  if (isStaffConsoleOnly(doc, ref)) return undefined;
  if (Object.entries(ref.operation.responses).some(([status, response]) => isSuccessStatus(status) && textContent(response))) return undefined;
  const { resource, method } = sdkName(ref.operationId, tag);
  const args: string[] = ref.parameters.filter((p) => p.in === "path").map((p) => JSON.stringify(parameterExample(ref, p.name, "path")));
  const body = bodyExample(ref);
  const queryParams = ref.parameters.filter((p) => p.in === "query");
  const queryInOptions = ref.operation.requestBody !== undefined && queryParams.length > 0 && !queryParams.some((p) => p.required);
  if (body !== undefined) args.push(js(body));
  const query = requiredQuery(ref);
  if (!queryInOptions && Object.keys(query).length > 0) args.push(js(query));
  const target = resource === "me" ? receiver : `${receiver}.${resource}`;
  return `${target}.${method}(${args.join(", ")})`;
}

function nodeSample(doc: OpenApiDocument, ref: OperationRef): string | undefined {
  const isSurface = ref.operation.tags?.[0] === "Me";
  const call = sdkCall(doc, ref, isSurface ? 'clube.me("user_8412")' : "clube");
  if (!call) return undefined;
  return [
    'import { Clube } from "@clube/node";',
    "",
    `const clube = new Clube({ apiKey: process.env.CLUBE_SECRET_KEY, baseUrl: "${BASE_URL}" });`,
    ...(isSurface ? ["// Headless: the secret key acts for the participant named (X-Participant)."] : []),
    `const result = await ${call};`,
  ].join("\n");
}

function browserSample(doc: OpenApiDocument, ref: OperationRef): string | undefined {
  if (!acceptsParticipantToken(doc, ref)) return undefined;
  const call = sdkCall(doc, ref, "clube.me");
  if (!call) return undefined;
  return [
    'import { createClubeBrowser } from "@clube/browser";',
    "",
    "const clube = createClubeBrowser({",
    `  baseUrl: "${BASE_URL}",`,
    "  // Your server issues the token: POST /v1/participants/{external_id}/token",
    '  getToken: async () => (await fetch("/clube-token", { method: "POST" })).text(),',
    "});",
    `const result = await ${call};`,
  ].join("\n");
}

/** A JSON value as JavaScript source: pretty-printed, plain keys unquoted (a key always starts its line). */
function js(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/^(\s*)"([A-Za-z_$][\w$]*)":/gm, "$1$2:");
}
