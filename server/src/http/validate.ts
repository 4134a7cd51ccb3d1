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
  if (part !== "body") refuseInfinity(value as Record<string, unknown>, part);
  return value;
}

/**
 * Ajv coerces a parameter such as "1e999" to Infinity and then skips its range
 * checks (they only look at finite numbers), so the parameter parts are checked
 * here; JSON bodies never get that far, as their type check already wants a finite number.
 */
function refuseInfinity(values: Record<string, unknown>, part: Part): void {
  for (const [name, value] of Object.entries(values)) {
    const items = Array.isArray(value) ? value : [value];
    if (items.some((item) => typeof item === "number" && !Number.isFinite(item))) {
      throw new ApiError(422, "validation_failed", `${part}.${name} must be a finite number`);
    }
  }
}
