// Request and response types looked up by operationId in the contract
// (generated/types.ts), so every SDK signature follows the contract and a
// breaking change fails `tsc`. Shared by @clube/node and @clube/browser.
import type { components, operations } from "../../generated/types.js";

export type OperationId = keyof operations;

/** The JSON body of an operation's request. */
export type RequestBody<Id extends OperationId> = operations[Id] extends {
  requestBody?: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

/** The query parameters of an operation. */
export type QueryParams<Id extends OperationId> = NonNullable<operations[Id]["parameters"]["query"]>;

type Responses<Id extends OperationId> = operations[Id]["responses"];

/** The JSON body of an operation's answer with `Status` (default: its 200, else its 201). */
export type ResponseBody<Id extends OperationId, Status extends number = 200 | 201> = {
  [S in keyof Responses<Id>]: S extends Status ? (Responses<Id>[S] extends { content: { "application/json": infer B } } ? B : undefined) : never;
}[keyof Responses<Id>];

/** The contract's enumerated error codes (`ErrorDetail.code`). */
export type ContractErrorCode = components["schemas"]["ErrorDetail"]["code"];
