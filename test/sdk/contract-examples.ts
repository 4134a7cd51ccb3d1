// The contract's own examples (the `@opExample`s in spec/), read from
// generated/openapi.json: SDK calls against the Prism mock send the request
// examples and must get back exactly the response examples Prism serves.
import { readFileSync } from "node:fs";
import type { OperationId, RequestBody } from "../../sdk-shared/src/operation-types.js";

interface MediaObject {
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface OperationObject {
  operationId?: string;
  requestBody?: { content: Record<string, MediaObject> };
  responses: Record<string, { content?: Record<string, MediaObject> }>;
}

const document = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as {
  paths: Record<string, Record<string, OperationObject>>;
};

const operationsById = new Map<string, OperationObject>(
  Object.values(document.paths).flatMap((methods) =>
    Object.values(methods).flatMap((operation) => (operation.operationId ? [[operation.operationId, operation] as const] : [])),
  ),
);

export const operationIds = [...operationsById.keys()].sort();

function operation(id: OperationId): OperationObject {
  const found = operationsById.get(id);
  if (!found) throw new Error(`No operation ${id} in generated/openapi.json`);
  return found;
}

/** The example Prism answers with in static mode: `example`, else the first of `examples`. */
function firstExample(media: MediaObject | undefined, where: string): unknown {
  if (media?.example !== undefined) return media.example;
  const first = Object.values(media?.examples ?? {})[0];
  if (!first) throw new Error(`No example for ${where}`);
  return structuredClone(first.value);
}

/** The first request body example of an operation, typed as that operation's body. */
export function requestExample<Id extends OperationId>(id: Id): RequestBody<Id> {
  return firstExample(operation(id).requestBody?.content["application/json"], `${id} request`) as RequestBody<Id>;
}

/** The response example of the given status, by default the operation's first 2xx. */
export function responseExample(id: OperationId, status?: string): unknown {
  const responses = operation(id).responses;
  const chosen = status ?? Object.keys(responses).find((code) => code.startsWith("2"));
  if (!chosen) throw new Error(`${id} has no 2xx response`);
  return firstExample(responses[chosen]?.content?.["application/json"], `${id} ${chosen}`);
}
