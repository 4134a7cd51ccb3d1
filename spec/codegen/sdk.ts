// Step 6 of `npm run generate`: the resource layer of both SDKs, one class per
// resource with one method per operation, written from the contract:
//   sdk-node/src/generated/resources.ts     every operation (the participant surface as `MeResource`, headless mode)
//   sdk-browser/src/generated/resources.ts  the participant surface only (what a participant token may call)
// Methods only describe the call (method, path, parameters, idempotency,
// paging); the hand-written transport of each SDK sends it. Types come from
// generated/types.ts by operationId, doc comments from the contract.
import {
  effectiveSecurity,
  isSuccessStatus,
  jsonContent,
  listOperations,
  textContent,
  type JsonSchema,
  type OpenApiDocument,
  type OperationRef,
} from "./document.js";
import { GENERATED_HEADER } from "./banner.js";
import { camelCase, pascalCase, sdkName } from "./sdk-names.js";

interface MethodPlan {
  ref: OperationRef;
  resource: string;
  method: string;
}

export interface SdkFiles {
  node: string;
  browser: string;
}

export function generateSdkResources(doc: OpenApiDocument): SdkFiles {
  // Exports answering text (CSV) are fetched as files, not through the JSON transport: no method.
  // The staff console's own-account operations (sign-in, session, own password, staff members, notifications)
  // work with a browser's session cookie, never with the key the SDKs hold: no method either.
  const plans = listOperations(doc)
    .filter((ref) => !answersText(ref) && !isStaffConsoleOnly(doc, ref))
    .map((ref): MethodPlan => {
      const tag = ref.operation.tags?.[0];
      if (!tag) throw new Error(`${ref.operationId} has no tag`);
      return { ref, ...sdkName(ref.operationId, tag) };
    });
  const byResource = new Map<string, MethodPlan[]>();
  for (const plan of plans) {
    const list = byResource.get(plan.resource) ?? [];
    const clash = list.find((other) => other.method === plan.method);
    if (clash)
      throw new Error(
        `SDK name ${plan.resource}.${plan.method} is taken by ${clash.ref.operationId} and ${plan.ref.operationId}: add one to spec/codegen/sdk-names.ts`,
      );
    list.push(plan);
    byResource.set(plan.resource, list);
  }
  const participantSurface = [...byResource].filter(([, list]) => list.every((p) => acceptsParticipantToken(doc, p.ref)));
  const serverResources = [...byResource].filter(([name]) => !participantSurface.some(([me]) => me === name));

  const node = [
    header("../../../sdk-shared/src"),
    ...[...byResource].map(([name, list]) => resourceClass(doc, name, list)),
    clientClass(serverResources.map(([name]) => name)),
  ].join("\n");
  const browser = [header("../../../sdk-shared/src"), ...participantSurface.map(([name, list]) => resourceClass(doc, name, list))].join("\n");
  return { node, browser };
}

function answersText(ref: OperationRef): boolean {
  return Object.entries(ref.operation.responses).some(([status, response]) => isSuccessStatus(status) && textContent(response) !== undefined);
}

/** Accepts only a staff session, or is the staff sign-in itself. */
export function isStaffConsoleOnly(doc: OpenApiDocument, ref: OperationRef): boolean {
  const security = effectiveSecurity(doc, ref.operation);
  if (security.length === 0) return ref.operationId === "StaffSessions_create";
  return security.every((alternative) => alternative.length === 1 && alternative[0] === "StaffSessionAuth");
}

function acceptsParticipantToken(doc: OpenApiDocument, ref: OperationRef): boolean {
  return effectiveSecurity(doc, ref.operation).some((alternative) => alternative.length === 1 && alternative[0] === "ParticipantTokenAuth");
}

function header(shared: string): string {
  return `${GENERATED_HEADER}// The SDK's resource layer, from the contract's operations (spec/codegen/sdk.ts).
/* eslint-disable */
import type { ListPromise } from "${shared}/pagination.js";
import { listPromise } from "${shared}/pagination.js";
import type { AsyncRequestOptions, RequestOptions, WithResponse } from "${shared}/request.js";
import { Resource } from "${shared}/resource.js";
import type { QueryParams, RequestBody, ResponseBody } from "${shared}/operation-types.js";
`;
}

function resourceClass(doc: OpenApiDocument, name: string, plans: MethodPlan[]): string {
  const tag = plans[0].ref.operation.tags?.[0] ?? name;
  const description = (doc.tags as { name: string; description?: string }[] | undefined)?.find((t) => t.name === tag)?.description;
  return [
    docComment(description ?? tag, ""),
    `export class ${pascalCase(name)}Resource extends Resource {`,
    plans.map((plan) => method(doc, plan)).join("\n\n"),
    "}",
    "",
  ].join("\n");
}

function clientClass(resources: string[]): string {
  return [
    "/** Every server-side resource, one property each; `Clube` extends this. */",
    "export abstract class ClubeResources {",
    ...resources.map((name) => `  readonly ${name}: ${pascalCase(name)}Resource;`),
    "",
    "  constructor(request: ConstructorParameters<typeof Resource>[0]) {",
    ...resources.map((name) => `    this.${name} = new ${pascalCase(name)}Resource(request);`),
    "  }",
    "}",
    "",
  ].join("\n");
}

function method(doc: OpenApiDocument, { ref, method: name }: MethodPlan): string {
  const { operationId, operation, parameters } = ref;
  const op = JSON.stringify(operationId);
  const pathParams = parameters.filter((p) => p.in === "path");
  const queryParams = parameters.filter((p) => p.in === "query");
  const headerNames = parameters.filter((p) => p.in === "header").map((p) => p.name.toLowerCase());
  const body = operation.requestBody;
  const statuses = Object.keys(operation.responses).filter(isSuccessStatus).map(Number);
  const respondAsync = headerNames.includes("prefer") && statuses.includes(202);
  const syncStatus = statuses.find((s) => s !== 202) ?? statuses[0];
  const itemsKey = pagedItemsKey(doc, ref, syncStatus);
  const paged = itemsKey !== undefined;
  const cursor = paged ? cursorField(doc, ref, syncStatus, itemsKey) : "id";

  // Optional query flags of a write (`?trace=`) ride in the options, so adding one never moves the options argument.
  const queryInOptions = body !== undefined && queryParams.length > 0 && !queryParams.some((p) => p.required);
  const args: string[] = pathParams.map((p) => `${camelCase(p.name)}: ${isInteger(doc, p.schema) ? "number" : "string"}`);
  if (body) args.push(`body${body.required ? "" : "?"}: RequestBody<${op}>`);
  if (queryParams.length > 0 && !queryInOptions) args.push(`query${queryParams.some((p) => p.required) ? "" : "?"}: QueryParams<${op}>`);
  const optionsType = (base: string) => (queryInOptions ? `${base} & { query?: QueryParams<${op}> }` : base);

  const call: string[] = [`method: ${JSON.stringify(ref.method.toUpperCase())}`, `path: ${JSON.stringify(ref.path)}`];
  if (pathParams.length > 0) call.push(`pathParams: { ${pathParams.map((p) => `${JSON.stringify(p.name)}: ${camelCase(p.name)}`).join(", ")} }`);
  if (body) call.push("body");
  if (queryInOptions) call.push("query: options?.query");
  else if (queryParams.length > 0) call.push(paged ? "query: startingAfter === undefined ? query : { ...query, starting_after: startingAfter }" : "query");
  if (headerNames.includes("idempotency-key")) call.push("idempotent: true");
  if (respondAsync) call.push("respondAsync: async === true");
  if (effectiveSecurity(doc, operation).length === 0) call.push("public: true");
  const callObject = `{ ${call.join(", ")} }`;

  const docs = docComment(operationDoc(ref), "  ");
  const result = (status: number) => `ResponseBody<${op}, ${status}>`;
  if (paged) {
    const type = `ListPromise<${result(syncStatus)}${itemsKey === "data" ? "" : `, ${JSON.stringify(itemsKey)}`}>`;
    const extra = itemsKey === "data" ? (cursor === "id" ? "" : `, ${JSON.stringify(cursor)}`) : `, ${JSON.stringify(cursor)}, ${JSON.stringify(itemsKey)}`;
    return `${docs}\n  ${name} = (${[...args, "options?: RequestOptions"].join(", ")}): ${type} =>\n    listPromise((startingAfter) => this._request<${result(syncStatus)}>(${callObject}, options)${extra});`;
  }
  if (respondAsync) {
    const params = args.join(", ");
    const sep = params ? ", " : "";
    const type = `{\n    (${params}${sep}options: ${optionsType("AsyncRequestOptions")} & { async: true }): Promise<WithResponse<${result(202)}>>;\n    (${params}${sep}options?: ${optionsType("AsyncRequestOptions")} & { async?: false }): Promise<WithResponse<${result(syncStatus)}>>;\n    (${params}${sep}options?: ${optionsType("AsyncRequestOptions")}): Promise<WithResponse<${result(syncStatus)} | ${result(202)}>>;\n  }`;
    const names = [...pathParams.map((p) => camelCase(p.name)), ...(body ? ["body"] : []), ...(queryParams.length > 0 && !queryInOptions ? ["query"] : [])];
    return `${docs}\n  ${name}: ${type} = (${[...names.map((n) => `${n}: any`), `{ async, ...options }: ${optionsType("AsyncRequestOptions")} = {}`].join(", ")}): Promise<any> =>\n    this._request(${callObject}, options);`;
  }
  return `${docs}\n  ${name} = (${[...args, `options?: ${optionsType("RequestOptions")}`].join(", ")}): Promise<WithResponse<${result(syncStatus)}>> =>\n    this._request(${callObject}, options);`;
}

function isInteger(doc: OpenApiDocument, schema: JsonSchema | undefined): boolean {
  const type = resolve(doc, schema)?.type;
  return type === "integer" || type === "number";
}

/**
 * A cursor list: `starting_after` in the query and a `{data, has_more}` answer,
 * or a list named by its items beside `has_more` (`{deliveries, has_more}`, the
 * seed's name). The field holding the items; undefined for any other operation.
 */
function pagedItemsKey(doc: OpenApiDocument, ref: OperationRef, status: number): string | undefined {
  if (!ref.parameters.some((p) => p.in === "query" && p.name === "starting_after")) return undefined;
  const schema = resolve(doc, jsonContent(ref.operation.responses[String(status)])?.schema);
  const properties = (schema?.properties ?? {}) as Record<string, JsonSchema>;
  if (!("has_more" in properties)) return undefined;
  if ("data" in properties) return "data";
  const arrays = Object.keys(properties).filter((name) => resolve(doc, properties[name])?.type === "array");
  return arrays.length === 1 ? arrays[0] : undefined;
}

/** The item field `starting_after` takes: `id`, else `version` (configuration versions), else the items' own `…_id`. */
function cursorField(doc: OpenApiDocument, ref: OperationRef, status: number, itemsKey: string): string {
  const page = resolve(doc, jsonContent(ref.operation.responses[String(status)])?.schema);
  const items = resolve(doc, ((page?.properties as Record<string, JsonSchema>)[itemsKey].items as JsonSchema | undefined) ?? {});
  const properties = Object.keys((items?.properties ?? {}) as object);
  if (properties.includes("id")) return "id";
  if (properties.includes("version")) return "version";
  // Items named by their kind (`spin_id`): the first such field is the cursor.
  const ownId = properties.find((name) => name.endsWith("_id"));
  if (ownId) return ownId;
  throw new Error(`${ref.operationId}: cannot tell which item field starting_after takes`);
}

function resolve(doc: OpenApiDocument, schema: JsonSchema | undefined): JsonSchema | undefined {
  const ref = schema?.$ref;
  if (typeof ref !== "string") return schema;
  return doc.components?.schemas?.[ref.replace("#/components/schemas/", "")];
}

function operationDoc({ operation, parameters, path, method }: OperationRef): string {
  const lines = [operation.description ?? operation.summary ?? ""];
  for (const p of parameters.filter((p) => p.in === "path")) {
    if (p.description) lines.push(`@param ${camelCase(p.name)} ${p.description}`);
  }
  lines.push(`\`${method.toUpperCase()} ${path}\``);
  return lines.filter(Boolean).join("\n\n");
}

function docComment(text: string, indent: string): string {
  const body = text
    .replace(/\*\//g, "*\\/")
    .split("\n")
    .map((line) => `${indent} *${line ? " " + line : ""}`);
  return [`${indent}/**`, ...body, `${indent} */`].join("\n");
}
