import { toMinorUnits } from "../../engine/money.js";
import { validationFailed } from "../shared/errors.js";

/**
 * What the engine needs of an event that the contract's validators cannot
 * all say: `occurred_at` a real instant (an RFC 3339 leap second such as
 * `23:59:60` or year 0000 passes the date-time format but is no JavaScript
 * Date) and `amount` a decimal the money arithmetic takes. Checked for every
 * event of a request before anything is written, so a batch is refused whole
 * with a 422 naming the field rather than failing half-way.
 */
const SECONDS = /T\d{2}:\d{2}:(\d{2})/;

function isRealInstant(text: string): boolean {
  const ms = Date.parse(text);
  if (!Number.isFinite(ms)) return false;
  const year = new Date(ms).getUTCFullYear();
  const seconds = SECONDS.exec(text);
  return year >= 1970 && year <= 9999 && (seconds === null || Number(seconds[1]) < 60);
}

interface EngineInput {
  occurred_at?: string;
  amount?: number | string | null;
}

/** Throws the 422 of the first unusable field; `at(i)` names event i (e.g. `body.events[3]`). */
export function checkEngineInputs(inputs: EngineInput[], at: (i: number) => string): void {
  inputs.forEach((input, i) => {
    if (input.occurred_at !== undefined && !isRealInstant(input.occurred_at)) {
      throw validationFailed(`${at(i)}.occurred_at must be a real instant between 1970 and 9999 (no leap second), got ${JSON.stringify(input.occurred_at)}`);
    }
    if (input.amount !== undefined && input.amount !== null) {
      try {
        toMinorUnits(input.amount, 2);
      } catch (err) {
        throw validationFailed(`${at(i)}.amount ${err instanceof RangeError ? err.message.replace(/^amount /, "") : "is not a usable amount"}`);
      }
    }
  });
}
