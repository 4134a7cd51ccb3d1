// Request types looked up by operationId in the contract (generated/types.ts),
// so SDK signatures follow the contract and a breaking change fails `tsc`.
import type { operations } from "../../generated/types.js";

export type OperationId = keyof operations;

/** The JSON body of an operation's request. */
export type RequestBody<Id extends OperationId> = operations[Id] extends {
  requestBody?: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

/** The query parameters of an operation. */
export type QueryParams<Id extends OperationId> = NonNullable<operations[Id]["parameters"]["query"]>;
