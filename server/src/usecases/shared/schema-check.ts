import type { ValidateFunction } from "ajv";
import { formatAjvError, fullReportValidators } from "../../../../generated/validators.js";
import { validationFailed, validationFailedAll } from "./errors.js";

/**
 * Validates a copy of `value` with a generated schema validator (which fills
 * defaults into what it checks) and returns the filled copy; the caller's
 * value is left as it was. On failure throws the 422 naming the field from
 * `root`, e.g. `config.theme.colors.bg must match pattern …`.
 */
export function checkSchema<T>(validate: ValidateFunction, value: unknown, root: string): T {
  const problems = schemaProblems(validate, value, root);
  if (problems.copy !== undefined) return problems.copy as T;
  // Only documents checked as a whole (with an all-errors twin) list their problems in `details`.
  throw fullReportValidators.has(validate) ? validationFailedAll(problems.messages) : validationFailed(problems.messages[0]);
}

/**
 * The filled copy of `value`, or every schema problem as messages naming the
 * field from `root`. Lists them all when the schema has an all-errors twin
 * (run only after the fast validator failed), else the first.
 */
function schemaProblems(validate: ValidateFunction, value: unknown, root: string): { copy?: unknown; messages: string[] } {
  const copy = structuredClone(value);
  if (validate(copy)) return { copy, messages: [] };
  const full = fullReportValidators.get(validate);
  const errors = full && !full(structuredClone(value)) ? full.errors! : (validate.errors ?? []);
  // formatAjvError names fields from a request part; the same path reads from `root` here.
  const messages = [...new Set(errors.map((error) => root + formatAjvError(error, "body").slice("body".length)))];
  return { messages: messages.length > 0 ? messages : [`${root} is invalid`] };
}
