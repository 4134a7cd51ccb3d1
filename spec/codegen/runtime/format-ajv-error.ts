// Runtime helper shipped inside generated/validators.js (the generator transpiles
// this file and appends it), so the server's 422 message and the validators come
// from one module. Keep it dependency-free: only Ajv's types are imported.
import type { ErrorObject } from "ajv";

/** Which part of the request a validator checked; the first segment of every message. */
export type RequestPart = "body" | "query" | "path" | "headers";

/**
 * Turns an Ajv error into the sentence of a 422 `message`, naming the failing
 * field as a dotted path from the request part, e.g.
 * `body.events[3].type must match pattern "^[a-z]…"` or `query.foo is not an allowed field`.
 */
export function formatAjvError(error: ErrorObject, where: RequestPart): string {
  const at = where + fieldPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `${at}${fieldPath("/" + escapeSegment(String(params.missingProperty)))} is required`;
    case "additionalProperties":
      return `${at}${fieldPath("/" + escapeSegment(String(params.additionalProperty)))} is not an allowed field`;
    case "unevaluatedProperties":
      return `${at}${fieldPath("/" + escapeSegment(String(params.unevaluatedProperty)))} is not an allowed field`;
    case "not":
      // A closed model emits `unevaluatedProperties: {not: {}}`: Ajv then reports the extra field itself failing `not`.
      if (/\/(unevaluated|additional)Properties\/not$/.test(error.schemaPath)) return `${at} is not an allowed field`;
      return `${at} ${error.message}`;
    case "enum":
      return `${at} must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "const":
      return `${at} must be ${JSON.stringify(params.allowedValue)}`;
    case "discriminator": {
      // Ajv reports the tagged object; name the tag field itself.
      const tagAt = `${at}${fieldPath("/" + escapeSegment(String(params.tag)))}`;
      if (params.tagValue === undefined) return `${tagAt} is required`;
      if (params.error === "tag") return `${tagAt} must be string`;
      return `${tagAt} has an unknown value ${JSON.stringify(params.tagValue)}`;
    }
    default:
      return `${at} ${error.message ?? `fails ${error.keyword}`}`;
  }
}

/** `/events/3/type` → `.events[3].type`; keys that are not plain names are quoted. */
function fieldPath(instancePath: string): string {
  if (instancePath === "") return "";
  return instancePath
    .slice(1)
    .split("/")
    .map((raw) => raw.replace(/~1/g, "/").replace(/~0/g, "~"))
    .map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : /^[A-Za-z_$][\w$-]*$/.test(segment) ? `.${segment}` : `[${JSON.stringify(segment)}]`))
    .join("");
}

function escapeSegment(name: string): string {
  return name.replace(/~/g, "~0").replace(/\//g, "~1");
}
