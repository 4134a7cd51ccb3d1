// Step 5 of `npm run generate`: generated/operations.ts, the operation table the
// server mounts its routes from, and the Handlers type that makes `tsc` fail while
// a contracted operation has no handler or a handler returns an undocumented shape.
import { effectiveSecurity, isSuccessStatus, listOperations, textContent, type JsonSchema, type OpenApiDocument, type OperationRef } from "./document.js";
import { GENERATED_HEADER } from "./banner.js";

/** One row of the table; the shape is also written into the generated file as `OperationSpec`. */
interface OperationRow {
  operationId: string;
  method: string;
  path: string;
  koaPath: string;
  tag: string;
  security: string[][];
  body: { required: boolean } | null;
  params: { path: string[]; query: string[]; headers: string[] };
  successStatuses: number[];
  responseHeaders: Record<string, string[]>;
  /** Success statuses whose body is not JSON (exports), with their media type; absent when all are JSON. */
  textResponses?: Record<string, string>;
  /** `x-clube-permission`: what a staff session's role needs (spec/manage/access.tsp); absent on public and participant operations. */
  permission?: string;
  /** `x-clube-audit`: which successful calls add an audit-log entry; absent when none do. */
  audit?: "always" | "staff";
}

function operationRows(doc: OpenApiDocument): OperationRow[] {
  return listOperations(doc).map((ref) => operationRow(doc, ref));
}

function operationRow(doc: OpenApiDocument, { operationId, method, path, operation, parameters }: OperationRef): OperationRow {
  const tag = operation.tags?.[0];
  if (!tag) throw new Error(`${operationId} has no tag`);
  const successStatuses = Object.keys(operation.responses).filter(isSuccessStatus).map(Number);
  if (successStatuses.length === 0) throw new Error(`${operationId} has no 2xx response`);
  const named = (location: string) => parameters.filter((p) => p.in === location).map((p) => p.name);
  return {
    operationId,
    method,
    path,
    koaPath: toKoaPath(path),
    tag,
    security: effectiveSecurity(doc, operation),
    body: operation.requestBody ? { required: operation.requestBody.required === true } : null,
    // Header names lower-case, as Node delivers them and as the header validators key them.
    params: { path: named("path"), query: named("query"), headers: named("header").map((n) => n.toLowerCase()) },
    successStatuses,
    responseHeaders: Object.fromEntries(Object.entries(operation.responses).map(([status, response]) => [status, Object.keys(response.headers ?? {})])),
    ...textResponses(operation.responses),
    ...access(operationId, operation),
  };
}

/** The operation's permission and audit policy, from the contract's extensions (spec/manage/access.tsp). */
function access(operationId: string, operation: OperationRef["operation"]): Pick<OperationRow, "permission" | "audit"> {
  const permission = operation["x-clube-permission"];
  const audit = operation["x-clube-audit"];
  if (permission !== undefined && typeof permission !== "string") throw new Error(`${operationId}: x-clube-permission must be a string`);
  if (audit !== undefined && audit !== "always" && audit !== "staff") throw new Error(`${operationId}: x-clube-audit must be always or staff`);
  return { ...(permission !== undefined && { permission }), ...(audit !== undefined && { audit }) };
}

/** `{textResponses: {"200": "text/csv"}}` for an export, nothing for the JSON operations (their rows stay as they were). */
function textResponses(responses: OperationRef["operation"]["responses"]): Pick<OperationRow, "textResponses"> {
  const entries = Object.entries(responses).flatMap(([status, response]) => {
    const text = isSuccessStatus(status) ? textContent(response) : undefined;
    return text ? [[status, text.type] as const] : [];
  });
  return entries.length > 0 ? { textResponses: Object.fromEntries(entries) } : {};
}

/** `/v1/participants/{external_id}/progress` → `/v1/participants/:external_id/progress` (@koa/router syntax). */
export function toKoaPath(path: string): string {
  return path.replace(/\{([A-Za-z_$][\w$]*)\}/g, ":$1");
}

export function generateOperations(doc: OpenApiDocument): string {
  const rows = operationRows(doc).map((row) => "  " + JSON.stringify(row) + ",");
  return [
    GENERATED_HEADER,
    PRELUDE,
    "export const operations = [",
    ...rows,
    "] as const satisfies readonly OperationSpec[];",
    "",
    defaultedParametersType(doc),
    HANDLER_TYPES,
  ].join("\n");
}

/**
 * The validators fill parameter defaults, so a handler always receives e.g. `query.limit`;
 * openapi-typescript keeps such parameters optional (right for callers), so the generated
 * HandlerRequest makes exactly these required again.
 */
function defaultedParametersType(doc: OpenApiDocument): string {
  const lines: string[] = [];
  for (const { operationId, parameters } of listOperations(doc)) {
    const byLocation = new Map<string, string[]>();
    for (const p of parameters) {
      if (p.in === "cookie" || !hasDefault(doc, p.schema)) continue;
      byLocation.set(p.in, [...(byLocation.get(p.in) ?? []), JSON.stringify(p.name)]);
    }
    if (byLocation.size === 0) continue;
    const groups = [...byLocation].map(([location, names]) => `${location}: ${names.join(" | ")}`);
    lines.push(`  ${operationId}: { ${groups.join("; ")} };`);
  }
  return [
    "/** Parameters the validators fill with their default when the caller omits them (original header spelling). */",
    "interface DefaultedParameters {",
    ...lines,
    "}",
    "",
  ].join("\n");
}

function hasDefault(doc: OpenApiDocument, schema: JsonSchema | undefined): boolean {
  if (!schema) return false;
  if (schema.default !== undefined) return true;
  const ref = schema.$ref;
  const prefix = "#/components/schemas/";
  return typeof ref === "string" && ref.startsWith(prefix) && hasDefault(doc, doc.components?.schemas?.[ref.slice(prefix.length)]);
}

const PRELUDE = `import type { operations as OperationTypes } from "./types.js";

export interface OperationSpec {
  readonly operationId: string;
  readonly method: "get" | "put" | "post" | "delete" | "options" | "head" | "patch" | "trace";
  /** OpenAPI path template, e.g. \`/v1/participants/{external_id}/progress\`. */
  readonly path: string;
  /** The same path in @koa/router syntax, e.g. \`/v1/participants/:external_id/progress\`. */
  readonly koaPath: string;
  readonly tag: string;
  /** Alternatives (any one suffices), each a list of schemes that must all be present; \`[]\` = public. */
  readonly security: readonly (readonly string[])[];
  readonly body: { readonly required: boolean } | null;
  /** Parameter names per location; header names lower-case. */
  readonly params: { readonly path: readonly string[]; readonly query: readonly string[]; readonly headers: readonly string[] };
  readonly successStatuses: readonly number[];
  /** Documented response header names per status (\`X-Request-Id\` is on every one). */
  readonly responseHeaders: { readonly [status: string]: readonly string[] };
  /** Success statuses answering a non-JSON body (an export), with its media type. */
  readonly textResponses?: { readonly [status: string]: string };
  /** The permission a staff session's role needs (\`x-clube-permission\`); \`self\`: any signed-in staff member. */
  readonly permission?: string;
  /** Which successful calls add an audit-log entry (\`x-clube-audit\`): \`always\`, or only \`staff\` sessions'. */
  readonly audit?: "always" | "staff";
}
`;

// Generic over openapi-typescript's \`operations\` interface, so these types follow the
// contract without per-operation code. Errors are not part of HandlerResponse: handlers
// throw the server's error type for them.
const HANDLER_TYPES = `/** Every served operation (webhooks are sent, not served, and are not in the table). */
export type OperationId = (typeof operations)[number]["operationId"];
export type OperationSpecOf<Op extends OperationId> = Extract<(typeof operations)[number], { operationId: Op }>;

type Defined<T> = Exclude<T, undefined>;
/** An absent parameter group (\`query?: never\`) is an empty object after validation. */
type Group<T> = [Defined<T>] extends [never] ? Record<string, never> : Defined<T>;
type ParametersOf<Op extends OperationId> = OperationTypes[Op]["parameters"];
type LowerCaseKeys<T> = { [K in keyof T as Lowercase<K & string>]: T[K] };
type DefaultedNames<Op extends OperationId, In extends string> = Op extends keyof DefaultedParameters
  ? In extends keyof DefaultedParameters[Op] ? DefaultedParameters[Op][In] : never
  : never;
/** \`T\` with the keys \`K\` required: they are filled by the validator's defaults. */
type WithDefaults<T, K> = [K] extends [never] ? T : Omit<T, K & keyof T> & Required<Pick<T, K & keyof T>>;
type Validated<Op extends OperationId, In extends "path" | "query" | "header"> = WithDefaults<Group<ParametersOf<Op>[In]>, DefaultedNames<Op, In>>;

type RequestBody<Op extends OperationId> = [Defined<OperationTypes[Op]["requestBody"]>] extends [never]
  ? undefined
  : Defined<OperationTypes[Op]["requestBody"]> extends { content: { "application/json": infer Body } }
    ? {} extends Pick<OperationTypes[Op], "requestBody"> ? Body | undefined : Body
    : undefined;

/** What a handler receives: parameters validated, coerced and defaulted; header names lower-case. */
export interface HandlerRequest<Op extends OperationId> {
  path: Validated<Op, "path">;
  query: Validated<Op, "query">;
  headers: LowerCaseKeys<Validated<Op, "header">>;
  body: RequestBody<Op>;
}

type Responses<Op extends OperationId> = OperationTypes[Op]["responses"];
/** A handler answers its 2xx responses, and 304 where the contract documents a conditional GET (If-None-Match). */
type SuccessStatus<Op extends OperationId> = (OperationSpecOf<Op>["successStatuses"][number] | 304) & keyof Responses<Op>;
type ResponseBody<R> = R extends { content: { "application/json": infer Body } }
  ? Body
  : R extends { content: { [mediaType: string]: infer Body } } ? Body : undefined;
/** The documented headers a handler sets: the index signature, X-Request-Id and RateLimit-* (set by the server's middleware) removed. */
type ResponseHeaders<R> = R extends { headers: infer H }
  ? { [K in keyof H as string extends K ? never : K extends "X-Request-Id" | \`RateLimit-\${string}\` ? never : K]: H[K] }
  : {};
type WithHeaders<H> = {} extends H ? { headers?: H } : { headers: H };

/** One variant per documented 2xx (or 304) response of the operation. */
export type HandlerResponse<Op extends OperationId> = {
  [S in SuccessStatus<Op>]: { status: S; body: ResponseBody<Responses<Op>[S]> } & WithHeaders<ResponseHeaders<Responses<Op>[S]>>;
}[SuccessStatus<Op>];

export type Handler<Op extends OperationId, Ctx> = (req: HandlerRequest<Op>, ctx: Ctx) => Promise<HandlerResponse<Op>>;

/** The server implements exactly this: one handler per operationId. */
export type Handlers<Ctx> = { [Op in OperationId]: Handler<Op, Ctx> };
`;
