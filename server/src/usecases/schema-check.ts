import type { ValidateFunction } from "ajv";
import { formatAjvError } from "../../../generated/validators.js";
import { validationFailed } from "./errors.js";

/**
 * Validates a copy of `value` with a generated schema validator (which fills
 * defaults into what it checks) and returns the filled copy; the caller's
 * value is left as it was. On failure throws the 422 naming the field from
 * `root`, e.g. `config.theme.colors.bg must match pattern …`.
 */
export function checkSchema<T>(validate: ValidateFunction, value: unknown, root: string): T {
  const copy = structuredClone(value);
  if (!validate(copy)) {
    const first = validate.errors?.[0];
    // formatAjvError names fields from a request part; the same path reads from `root` here.
    throw validationFailed(first ? root + formatAjvError(first, "body").slice("body".length) : `${root} is invalid`);
  }
  return copy as T;
}
