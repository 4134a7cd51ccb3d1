import type { ValidateFunction } from "ajv";
import { formatAjvError, fullReportValidators } from "../../../generated/validators.js";
import { ApiError, validationFailedAll } from "../usecases/shared/errors.js";

export type Part = "body" | "path" | "query" | "headers";

/**
 * Runs one generated validator (which coerces and fills defaults in place) and
 * turns its first error into the documented 422, naming the field; a schema
 * with an all-errors twin (a club configuration) lists every problem.
 */
export function check<T>(validator: ValidateFunction | undefined, value: T, part: Part): T {
  if (!validator) return value;
  if (!validator(value)) {
    const full = fullReportValidators.get(validator);
    if (full && !full(value)) throw validationFailedAll([...new Set(full.errors!.map((error) => formatAjvError(error, part)))]);
    const first = validator.errors?.[0];
    const message = first ? formatAjvError(first, part) : `${part} is invalid`;
    throw new ApiError(422, "validation_failed", message);
  }
  return value;
}
