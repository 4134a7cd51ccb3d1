// What generated/validators.js must contain, decided without Ajv: the
// Ajv-ready copy of the document, the parameter schemas, and for every export
// the JSON-schema reference it compiles. Pure, so validators.ts only compiles.
import {
  isSuccessStatus,
  jsonContent,
  textContent,
  listOperations,
  pointerSegment,
  type JsonSchema,
  type OpenApiDocument,
  type ParameterObject,
} from "./document.js";
import { withServerDefaults } from "./interop.js";
import { guardStrings } from "./safe-strings.js";
import { dispatchByType } from "./type-dispatch.js";

/** `$id` of the whole document inside Ajv; every validator is a reference into it (TOOLCHAIN gotcha 4). */
const DOCUMENT_ID = "urn:clube:openapi";

/**
 * OpenAPI keys that sit where Ajv expects JSON-schema keywords: the document root
 * (it is added to Ajv as one schema) and OpenAPI-only schema annotations.
 */
const OPENAPI_ANNOTATION_KEYWORDS = [
  "openapi",
  "info",
  "jsonSchemaDialect",
  "paths",
  "components",
  "webhooks",
  "tags",
  "servers",
  "security",
  "externalDocs",
  "example",
  "xml",
];

export type ParameterPart = "path" | "query" | "headers";

export interface OperationPlan {
  operationId: string;
  /** Export name (in the document module) of the request body validator. */
  body?: string;
  /** Export names (in the parameter module) per request part that has a validator. */
  params: Partial<Record<ParameterPart, string>>;
  /** Export name (document module) per status whose response has a JSON body. */
  responses: Record<string, string>;
}

export interface ValidatorPlan {
  /** The document as Ajv must see it: `$id` set, `discriminator.mapping` removed (TOOLCHAIN gotcha 3). */
  document: JsonSchema;
  /**
   * The same document with its type-disjoint `anyOf`s dispatched on the value's type (type-dispatch.ts): what the
   * request and response validators compile. Not for the coercing parameter validators (an `if: {type}` would coerce)
   * nor the all-errors twins (they keep listing what the `anyOf`s report).
   */
  dispatchedDocument: JsonSchema;
  /** Annotation-only keywords Ajv must accept (OpenAPI keys and every `x-*` extension used). */
  keywords: string[];
  /** Every `format` the document uses. */
  formats: string[];
  /** Export name → schema reference, compiled by the Ajv instance without coercion. */
  documentExports: Record<string, string>;
  /** Parameter object schemas (each with its `$id`), compiled by the coercing instance. */
  parameterSchemas: JsonSchema[];
  /** Export name → `$id` of a parameter schema. */
  parameterExports: Record<string, string>;
  /** Component schema name → export name of its validator in the document module. */
  schemaExports: Record<string, string>;
  operations: OperationPlan[];
}

export function planValidators(doc: OpenApiDocument): ValidatorPlan {
  const document = ajvReadyDocument(doc);
  const schemaNames = Object.keys(doc.components?.schemas ?? {});
  const schemaExports = Object.fromEntries(schemaNames.map((name) => [name, `schema_${exportSafe(name)}`]));
  const documentExports: Record<string, string> = Object.fromEntries(
    schemaNames.map((name) => [schemaExports[name], `${DOCUMENT_ID}#/components/schemas/${pointerSegment(name)}`]),
  );
  const parameterSchemas: JsonSchema[] = [];
  const parameterExports: Record<string, string> = {};
  // Identical parameter objects (e.g. "no query parameters") share one compiled validator.
  const parameterExportByContent = new Map<string, string>();

  /** A `{$ref}` to a component reuses that component's validator; anything else compiles from its place in the document. */
  const documentValidator = (schema: JsonSchema, pointer: string, exportName: string): string => {
    const ref = schema.$ref;
    const componentName = typeof ref === "string" && Object.keys(schema).length === 1 ? componentOf(ref) : undefined;
    if (componentName !== undefined && schemaExports[componentName]) return schemaExports[componentName];
    documentExports[exportName] = `${DOCUMENT_ID}#${pointer}`;
    return exportName;
  };

  const parameterValidator = (schema: JsonSchema, operationId: string, part: ParameterPart): string => {
    const content = JSON.stringify(schema);
    const existing = parameterExportByContent.get(content);
    if (existing) return existing;
    // Every operation without query parameters shares one validator; name it for what it checks.
    const declaresNone = Object.keys(schema.properties as object).length === 0;
    const exportName = declaresNone ? `no_${part}_parameters` : `${exportSafe(operationId)}_${part}`;
    const id = `urn:clube:parameters:${exportName}`;
    parameterSchemas.push({ $id: id, ...schema });
    parameterExports[exportName] = id;
    parameterExportByContent.set(content, exportName);
    return exportName;
  };

  const operations = listOperations(doc).map(({ operationId, method, path, operation, parameters }): OperationPlan => {
    const operationPointer = `/paths/${pointerSegment(path)}/${method}`;
    const plan: OperationPlan = { operationId, params: {}, responses: {} };

    const body = jsonContent(operation.requestBody);
    if (body?.schema) {
      plan.body = documentValidator(body.schema, `${operationPointer}/requestBody/content/application~1json/schema`, `${exportSafe(operationId)}_body`);
    }
    for (const part of ["path", "query", "headers"] as const) {
      const schema = parameterObjectSchema(parameters, part);
      // Path and header validators exist only where parameters are declared; the query
      // validator always exists, because an unknown query parameter is itself an error.
      if (schema) plan.params[part] = parameterValidator(schema, operationId, part);
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      const text = textContent(response);
      const content = text ? text.media : jsonContent(response);
      if (!content?.schema) continue;
      const mediaType = text ? text.type : "application/json";
      plan.responses[status] = documentValidator(
        content.schema,
        `${operationPointer}/responses/${pointerSegment(status)}/content/${pointerSegment(mediaType)}/schema`,
        `${exportSafe(operationId)}_${isSuccessStatus(status) ? "response" : "error"}_${status}`,
      );
    }
    return plan;
  });

  return {
    document,
    dispatchedDocument: dispatchByType(document),
    keywords: [...OPENAPI_ANNOTATION_KEYWORDS, ...collectExtensionKeys(doc)],
    formats: collectFormats(doc),
    documentExports,
    parameterSchemas,
    parameterExports,
    schemaExports,
    operations,
  };
}

const PARAMETER_LOCATION: Record<ParameterPart, ParameterObject["in"]> = { path: "path", query: "query", headers: "header" };

/**
 * One object schema per request part, properties named by parameter (header names
 * lower-cased, as Node delivers them). Query rejects unknown parameters (like Stripe);
 * headers allow them (browsers and proxies send many).
 */
function parameterObjectSchema(parameters: ParameterObject[], part: ParameterPart): JsonSchema | undefined {
  const declared = parameters.filter((p) => p.in === PARAMETER_LOCATION[part]);
  if (declared.length === 0 && part !== "query") return undefined;
  const nameOf = (p: ParameterObject) => (part === "headers" ? p.name.toLowerCase() : p.name);
  const schema: JsonSchema = {
    type: "object",
    properties: Object.fromEntries(declared.map((p) => [nameOf(p), guardStrings(qualifyRefs(p.schema ?? {}))])),
    required: declared.filter((p) => p.required).map(nameOf),
  };
  if (part !== "headers") schema.additionalProperties = false;
  return schema;
}

/** Parameter schemas live outside the document, so their local `#/...` references must name it. */
function qualifyRefs(schema: JsonSchema): JsonSchema {
  return mapDeep(schema, (key, value) => (key === "$ref" && typeof value === "string" && value.startsWith("#/") ? DOCUMENT_ID + value : value)) as JsonSchema;
}

function ajvReadyDocument(doc: OpenApiDocument): JsonSchema {
  const withoutMappings = mapDeep(withServerDefaults(doc), (key, value) => {
    if (key !== "discriminator" || typeof value !== "object" || value === null) return value;
    const { mapping: _mapping, ...rest } = value as Record<string, unknown>;
    return rest;
  }) as JsonSchema;
  return { $id: DOCUMENT_ID, ...guardStrings(withoutMappings) };
}

function componentOf(ref: string): string | undefined {
  const prefix = "#/components/schemas/";
  return ref.startsWith(prefix) ? ref.slice(prefix.length).replace(/~1/g, "/").replace(/~0/g, "~") : undefined;
}

/** Export names must be stable and unique; operationIds and TypeSpec model names already are identifiers. */
function exportSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9_$]/g, "_");
}

/** Examples are data, not schemas: their keys must not be read as keywords. */
const DATA_KEYS = new Set(["example", "examples", "default", "const", "enum"]);

function collectExtensionKeys(doc: OpenApiDocument): string[] {
  const found = new Set<string>();
  walkSchemaKeys(doc, (key) => {
    if (key.startsWith("x-")) found.add(key);
  });
  return [...found].sort();
}

function collectFormats(doc: OpenApiDocument): string[] {
  const found = new Set<string>();
  walkSchemaKeys(doc, (key, value) => {
    if (key === "format" && typeof value === "string") found.add(value);
  });
  return [...found].sort();
}

function walkSchemaKeys(node: unknown, visit: (key: string, value: unknown) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) walkSchemaKeys(item, visit);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  for (const [key, value] of Object.entries(node)) {
    visit(key, value);
    if (!DATA_KEYS.has(key)) walkSchemaKeys(value, visit);
  }
}

/** Rebuilds a JSON value bottom-up, letting `replace` rewrite each property value. */
function mapDeep(node: unknown, replace: (key: string, value: unknown) => unknown): unknown {
  if (Array.isArray(node)) return node.map((item) => mapDeep(item, replace));
  if (typeof node !== "object" || node === null) return node;
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, replace(key, mapDeep(value, replace))]));
}
