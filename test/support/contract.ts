import { expect } from "vitest";
import { operationValidators, schemaValidators, type SchemaName } from "../../generated/validators.js";

/** `body` is what the contract says operation `op` answers with `status`. */
export function expectResponse(op: keyof typeof operationValidators, status: string, body: unknown): void {
  const validate = operationValidators[op].responses[status];
  expect(validate(structuredClone(body)), JSON.stringify(validate.errors)).toBe(true);
}

/** Asserts that a use case's answer is exactly what the contract's schema allows. */
export function expectContract(schema: SchemaName, value: unknown): void {
  const validate = schemaValidators[schema];
  const valid = validate(structuredClone(value));
  expect(valid ? [] : validate.errors).toEqual([]);
}
