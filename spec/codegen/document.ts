// The slice of the OpenAPI 3.1 document model the generator reads, and the
// one walk over its operations every later step shares (so the table, the
// validators and the tests agree on what "an operation" and "a parameter" are).

export type JsonSchema = { [keyword: string]: unknown };

export interface ParameterObject {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
  [key: string]: unknown;
}

export interface ReferenceObject {
  $ref: string;
}

export interface MediaTypeObject {
  schema?: JsonSchema;
  example?: unknown;
  examples?: Record<string, unknown>;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, ReferenceObject | { schema?: JsonSchema; required?: boolean; description?: string }>;
  content?: Record<string, MediaTypeObject>;
}

export interface RequestBodyObject {
  required?: boolean;
  content: Record<string, MediaTypeObject>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface OperationObject {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: (ParameterObject | ReferenceObject)[];
  requestBody?: RequestBodyObject;
  responses: Record<string, ResponseObject>;
  security?: SecurityRequirement[];
  [key: string]: unknown;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; [key: string]: unknown };
  paths?: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, Record<string, unknown>>;
  components?: {
    schemas?: Record<string, JsonSchema>;
    parameters?: Record<string, ParameterObject>;
    headers?: Record<string, unknown>;
    securitySchemes?: Record<string, Record<string, unknown>>;
    [key: string]: unknown;
  };
  security?: SecurityRequirement[];
  [key: string]: unknown;
}

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface OperationRef {
  operationId: string;
  method: HttpMethod;
  path: string;
  operation: OperationObject;
  /** Path-level and operation-level parameters merged, `$ref`s resolved (operation wins, as OpenAPI says). */
  parameters: ParameterObject[];
}

/** Every operation under `paths`, in document order; throws on one without an operationId (everything downstream is keyed by it). */
export function listOperations(doc: OpenApiDocument): OperationRef[] {
  const result: OperationRef[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const shared = (item.parameters ?? []) as (ParameterObject | ReferenceObject)[];
    for (const method of HTTP_METHODS) {
      const operation = item[method] as OperationObject | undefined;
      if (!operation) continue;
      if (!operation.operationId) throw new Error(`${method.toUpperCase()} ${path} has no operationId`);
      const merged = new Map<string, ParameterObject>();
      for (const p of [...shared, ...(operation.parameters ?? [])]) {
        const param = resolveParameter(doc, p);
        merged.set(`${param.in}:${param.name}`, param);
      }
      result.push({ operationId: operation.operationId, method, path, operation, parameters: [...merged.values()] });
    }
  }
  return result;
}

function resolveParameter(doc: OpenApiDocument, p: ParameterObject | ReferenceObject): ParameterObject {
  if (!isReference(p)) return p;
  const name = p.$ref.replace("#/components/parameters/", "");
  const found = doc.components?.parameters?.[name];
  if (!found) throw new Error(`Unresolved parameter reference ${p.$ref}`);
  return found;
}

function isReference(value: ParameterObject | ReferenceObject): value is ReferenceObject {
  return typeof value.$ref === "string";
}

/** The JSON media type of a request body or response, if any (the API speaks JSON, bar the text exports below). */
export function jsonContent(holder: { content?: Record<string, MediaTypeObject> } | undefined): MediaTypeObject | undefined {
  return holder?.content?.["application/json"];
}

/**
 * The one non-JSON media type of a response (an export such as `text/csv`),
 * if it has no JSON: the router sends that type and checks the body against
 * its schema (a string). Requests are always JSON.
 */
export function textContent(holder: { content?: Record<string, MediaTypeObject> } | undefined): { type: string; media: MediaTypeObject } | undefined {
  if (!holder?.content || jsonContent(holder)) return undefined;
  const [type, ...others] = Object.keys(holder.content);
  if (type === undefined) return undefined;
  if (others.length > 0) throw new Error(`a response offers ${[type, ...others].join(", ")}: only one non-JSON media type is supported`);
  return { type, media: holder.content[type] };
}

/**
 * The security alternatives in force for an operation (its own, else the document's),
 * each a list of scheme names that must all be present. `[]` means public: TypeSpec's
 * `@useAuth(NoAuth)` emits `[{}]`, one alternative needing nothing, which is the same thing.
 * An empty alternative next to others (optional authentication) is kept.
 */
export function effectiveSecurity(doc: OpenApiDocument, operation: OperationObject): string[][] {
  const alternatives = (operation.security ?? doc.security ?? []).map((requirement) => Object.keys(requirement));
  return alternatives.every((schemes) => schemes.length === 0) ? [] : alternatives;
}

export function isSuccessStatus(status: string): boolean {
  return /^2\d\d$/.test(status);
}

/** Escapes one JSON-pointer segment (RFC 6901). */
export function pointerSegment(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}
