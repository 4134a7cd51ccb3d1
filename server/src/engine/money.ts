/**
 * Exact decimal handling for amounts. Event amounts arrive in main units as
 * JSON numbers or decimal strings; balances are integers in minor units. Going
 * through the decimal digits (never `amount * 100`) keeps "0.1" + "0.2" at
 * exactly 30 cents.
 */

// Digits, an optional fraction and, for JSON numbers printed by JavaScript
// (1e21, 1e-7), an optional exponent. No sign: negative amounts are refused.
const DECIMAL = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

interface Decimal {
  /** All significant digits, without the decimal point. */
  digits: string;
  /** How many of `digits` are after the decimal point (may be negative). */
  scale: number;
}

function parseDecimal(amount: number | string): Decimal {
  const text = typeof amount === "number" ? numberText(amount) : amount;
  const match = DECIMAL.exec(text);
  if (!match) throw new RangeError(`amount must be a non-negative decimal number, got ${JSON.stringify(amount)}`);
  const [, whole, fraction = "", exponent = "0"] = match;
  return { digits: whole + fraction, scale: fraction.length - Number(exponent) };
}

function numberText(amount: number): string {
  if (!Number.isFinite(amount)) throw new RangeError(`amount must be a finite number, got ${amount}`);
  return String(amount);
}

/** The decimal scaled to `decimals` places, truncated toward zero, as a BigInt. */
function scaled({ digits, scale }: Decimal, decimals: number): bigint {
  const shift = decimals - scale;
  if (shift >= 0) return BigInt(digits + "0".repeat(shift));
  const kept = digits.slice(0, digits.length + shift);
  return BigInt(kept === "" ? "0" : kept);
}

function toSafeNumber(value: bigint, amount: number | string): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError(`amount ${JSON.stringify(amount)} is too large`);
  return Number(value);
}

/**
 * Main units → integer minor units with `decimals` places, truncated toward
 * zero ("10.005" with decimals 2 → 1000). Throws RangeError for negative,
 * non-numeric, non-finite or unsafe (> 2^53 − 1 minor units) amounts.
 */
export function toMinorUnits(amount: number | string, decimals: number): number {
  if (typeof amount === "number") {
    // A whole non-negative number times a power of ten below 2^53 is exact in doubles: no text, no BigInt.
    if (Number.isSafeInteger(amount) && amount >= 0 && !Object.is(amount, -0)) {
      const units = amount * 10 ** decimals;
      if (units <= Number.MAX_SAFE_INTEGER) return units;
    }
    // A number with cents (a computed grant of 12.5 XP, a bet's points): no text either.
    const cents = exactCents(amount);
    if (cents !== undefined && cents > 0) {
      if (decimals >= CENT_PLACES) {
        const units = cents * 10 ** (decimals - CENT_PLACES);
        if (units <= Number.MAX_SAFE_INTEGER) return units;
      } else {
        // Below 10^11 cents the quotient's fraction (a multiple of 1/100, or 1/10) never rounds up to the next integer.
        return Math.trunc(cents / 10 ** (CENT_PLACES - decimals));
      }
    }
  }
  const plain = plainDecimalUnits(typeof amount === "number" ? numberText(amount) : amount, decimals);
  if (plain !== undefined) return plain;
  const decimal = parseDecimal(amount);
  const shift = decimals - decimal.scale;
  // Up to 15 digits fit a double exactly, and so does their product with a power of ten that keeps them under 16:
  // the common amounts ("12.50", 40) skip BigInt, which costs more than the rest.
  if (decimal.digits.length + Math.max(shift, 0) <= SAFE_DIGITS) {
    if (shift >= 0) return Number(decimal.digits) * 10 ** shift;
    const kept = decimal.digits.slice(0, decimal.digits.length + shift);
    return kept === "" ? 0 : Number(kept);
  }
  return toSafeNumber(scaled(decimal, decimals), amount);
}

/** Decimal digits any integer below 10^15 has; every such integer is exact in a double. */
const SAFE_DIGITS = 15;

const CENT_PLACES = 2;
/** Below this magnitude a value with cents has at most 11 significant digits (9 whole, 2 after the point). */
const CENTS_BOUND = 1e9;

/**
 * `value` in hundredths when it is exactly the double nearest to a decimal
 * with at most two places (12.5, 0.29, -3.75) and below CENTS_BOUND in
 * magnitude; undefined otherwise (noise such as 56.99999999999999, more
 * places, larger values), which the callers' general paths decide. The
 * division is correctly rounded, so `cents / 100 === value` holds exactly
 * when `value` is the double of the decimal `cents / 100`; that decimal is
 * then the shortest text of `value` (String(value)), with at most 11
 * significant digits, so the digit-by-digit paths would read the same
 * decimal. Computed amounts and points are mostly such values, and their
 * text (String, a regular expression, toPrecision) cost more than the rest.
 */
function exactCents(value: number): number | undefined {
  if (!(value > -CENTS_BOUND && value < CENTS_BOUND)) return undefined;
  const cents = Math.round(value * 100);
  return cents / 100 === value ? cents : undefined;
}

/**
 * The common case of toMinorUnits, read digit by digit: a plain decimal text
 * ("12.50", "40": digits, at most one point with digits on both sides) whose
 * kept digits fit SAFE_DIGITS, in minor units (truncated toward zero);
 * undefined for any other text, which the general path decides. Every event
 * amount goes through here several times (the event row, rule grants,
 * tournament scores), and the general path's regular expression allocates a
 * match and its substrings each time.
 */
function plainDecimalUnits(text: string, decimals: number): number | undefined {
  const length = text.length;
  if (length === 0 || length > SAFE_DIGITS + 1) return undefined;
  let point = -1;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === 46) {
      if (point !== -1 || i === 0 || i === length - 1) return undefined;
      point = i;
    } else if (code < 48 || code > 57) return undefined;
  }
  const fractionDigits = point === -1 ? 0 : length - point - 1;
  const shift = decimals - fractionDigits;
  if ((point === -1 ? length : length - 1) + Math.max(shift, 0) > SAFE_DIGITS) return undefined;
  // The fraction digits beyond `decimals` are dropped (truncation toward zero).
  const end = shift >= 0 ? length : length + shift;
  let units = 0;
  for (let i = 0; i < end; i++) if (i !== point) units = units * 10 + (text.charCodeAt(i) - 48);
  return shift > 0 ? units * 10 ** shift : units;
}

/** Integer minor units → main units (1050 with decimals 2 → 10.5). */
export function fromMinorUnits(minor: number, decimals: number): number {
  // Dividing two exactly representable integers is correctly rounded, so this
  // is the double nearest to the decimal value.
  return minor / 10 ** decimals;
}

/** Number of digits after the decimal point needed to write `value` exactly. */
function decimalPlaces(value: number): number {
  const text = numberText(Math.abs(value));
  // Without an exponent the places are the digits after the point; otherwise the general parse.
  if (!text.includes("e")) {
    const point = text.indexOf(".");
    return point === -1 ? 0 : text.length - point - 1;
  }
  return Math.max(0, parseDecimal(Math.abs(value)).scale);
}

/**
 * Exact sum of two decimal quantities (mission `sum` goals add event amounts in
 * main units): 0.1 + 0.2 is 0.3, not 0.30000000000000004.
 */
export function addDecimal(a: number, b: number): number {
  // Whole numbers (a count mission's progress) add exactly as doubles while the sum stays safe.
  const sum = a + b;
  if (Number.isSafeInteger(a) && Number.isSafeInteger(b) && Number.isSafeInteger(sum)) return sum === 0 ? 0 : sum;
  // Amounts with at most cents (a `sum` mission's progress and a bet): whole hundredths added, no text. The quotient
  // is the double nearest to the exact decimal sum, as the general path's fromMinorUnits gives it.
  const centsA = exactCents(a);
  const centsB = centsA === undefined ? undefined : exactCents(b);
  if (centsA !== undefined && centsB !== undefined) {
    const cents = centsA + centsB;
    return cents === 0 ? 0 : cents / 100;
  }
  const places = Math.max(decimalPlaces(a), decimalPlaces(b));
  // Amounts with cents (a `sum` mission's progress) add as whole minor units without BigInt while those stay safe.
  if (places <= 6 && Math.abs(a) < 1e9 && Math.abs(b) < 1e9) {
    const units = (value: number) => (value < 0 ? -toMinorUnits(-value, places) : toMinorUnits(value, places));
    return fromMinorUnits(units(a) + units(b), places);
  }
  const signed = (value: number) => (value < 0 ? -1n : 1n) * scaled(parseDecimal(Math.abs(value)), places);
  return fromMinorUnits(Number(signed(a) + signed(b)), places);
}

// Doubles carry 15-17 significant digits; 12 keep every amount a club can
// configure while dropping binary noise such as 0.57 * 100 = 56.99999999999999.
const SIGNIFICANT_DIGITS = 12;

/**
 * A computed quantity rounded to 12 significant digits, so that truncating it
 * to whole units afterwards does not lose a unit to floating-point noise.
 */
export function withoutFloatNoise(value: number): number {
  // A whole number of at most 12 digits has no noise to remove (and toPrecision would give it back unchanged).
  if (Number.isInteger(value) && Math.abs(value) < 1e12) return value === 0 ? 0 : value;
  // Nor has the double of a decimal with cents and at most 11 digits (see exactCents): 12.5, 3.75.
  if (exactCents(value) !== undefined) return value;
  return Number(value.toPrecision(SIGNIFICANT_DIGITS));
}
