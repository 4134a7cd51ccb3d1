import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { addDecimal, fromMinorUnits, toMinorUnits, withoutFloatNoise } from "../../server/src/engine/money.js";

/**
 * Numbers around the cents fast paths (exactCents): the doubles of decimals
 * with one or two places, both sides of its 1e9 bound, and their products
 * and sums with binary noise (0.57 * 100, 0.1 + 0.2).
 */
const cents = fc.integer({ min: -2e11, max: 2e11 });
const centsOrNoise = fc.oneof(
  cents.map((c) => c / 100),
  cents.map((c) => c / 10),
  fc.tuple(cents, fc.constantFrom(3, 7, 100, 1.1, 0.1)).map(([c, factor]) => (c / 100) * factor),
  fc.tuple(cents, cents).map(([a, b]) => a / 100 + b / 1000),
  fc.constantFrom(0.57 * 100, 0.1 + 0.2, 999_999_999.99, 1e9 - 0.01, 1e9 + 0.5, 0.005, 0.01, -0.01),
);

describe("toMinorUnits", () => {
  it.each([
    ["10.005", 2, 1000],
    ["10.50", 2, 1050],
    [10.5, 2, 1050],
    ["0.1", 2, 10],
    [0.29, 2, 29],
    [1.005, 2, 100],
    ["7", 0, 7],
    ["7.99", 0, 7],
    [12, 1, 120],
    ["0", 2, 0],
    ["007.5", 2, 750],
  ])("%j with %i decimals is %d minor units (truncated toward zero)", (amount, decimals, expected) => {
    expect(toMinorUnits(amount, decimals)).toBe(expected);
  });

  it("reads JavaScript's exponent notation of small numbers", () => {
    expect(toMinorUnits(1e-7, 2)).toBe(0);
    expect(toMinorUnits(1.5e3, 2)).toBe(150000);
  });

  it("keeps 0.1 + 0.2 exact in cents", () => {
    expect(toMinorUnits("0.1", 2) + toMinorUnits("0.2", 2)).toBe(30);
    expect(toMinorUnits(0.1, 2) + toMinorUnits(0.2, 2)).toBe(toMinorUnits("0.3", 2));
  });

  it("accepts the largest safe amount and refuses one more", () => {
    expect(toMinorUnits("90071992547409.91", 2)).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => toMinorUnits("90071992547409.92", 2)).toThrow(/too large/);
    expect(() => toMinorUnits(1e21, 0)).toThrow(/too large/);
  });

  it("gives what exact BigInt arithmetic on the decimal digits gives, fast paths included", () => {
    // The implementation the fast paths (whole numbers, up to 15 digits) must agree with.
    const reference = (amount: number | string, decimals: number): number | "throws" => {
      const match = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(typeof amount === "number" ? String(amount) : amount);
      if (!match || (typeof amount === "number" && !Number.isFinite(amount))) return "throws";
      const [, whole, fraction = "", exponent = "0"] = match;
      const digits = whole + fraction;
      const shift = decimals - (fraction.length - Number(exponent));
      const kept = shift >= 0 ? digits + "0".repeat(shift) : digits.slice(0, digits.length + shift);
      const value = BigInt(kept === "" ? "0" : kept);
      return value > BigInt(Number.MAX_SAFE_INTEGER) ? "throws" : Number(value);
    };
    const actual = (amount: number | string, decimals: number): number | "throws" => {
      try {
        return toMinorUnits(amount, decimals);
      } catch {
        return "throws";
      }
    };
    const decimalText = fc
      .tuple(fc.stringMatching(/^\d{1,18}$/), fc.option(fc.stringMatching(/^\d{1,6}$/), { nil: undefined }))
      .map(([whole, fraction]) => (fraction === undefined ? whole : `${whole}.${fraction}`));
    const amount = fc.oneof(decimalText, fc.nat(), fc.maxSafeNat(), fc.double({ min: -1e20, max: 1e22, noNaN: true }), fc.constant(-0), centsOrNoise);
    fc.assert(
      fc.property(amount, fc.integer({ min: 0, max: 4 }), (value, decimals) => {
        expect(actual(value, decimals)).toBe(reference(value, decimals));
      }),
      { numRuns: 5000 },
    );
  });

  it.each([["-1"], [-0.5], ["1,5"], ["abc"], [""], ["1."], [".5"], ["+1"], [" 1"], [Number.NaN], [Number.POSITIVE_INFINITY]])("refuses %j", (amount) => {
    expect(() => toMinorUnits(amount, 2)).toThrow(RangeError);
  });
});

describe("fromMinorUnits", () => {
  it.each([
    [1050, 2, 10.5],
    [7, 0, 7],
    [1, 2, 0.01],
    [123, 1, 12.3],
  ])("%i with %i decimals is %d", (minor, decimals, expected) => {
    expect(fromMinorUnits(minor, decimals)).toBe(expected);
  });

  it("round-trips with toMinorUnits", () => {
    for (const minor of [0, 1, 29, 999, 123456789]) expect(toMinorUnits(fromMinorUnits(minor, 2), 2)).toBe(minor);
  });
});

describe("addDecimal", () => {
  it.each([
    [0.1, 0.2, 0.3],
    [10.05, 0.1, 10.15],
    [1, 2, 3],
    [0.7, 0.1, 0.8],
    [5, -0.25, 4.75],
  ])("%d + %d = %d exactly", (a, b, sum) => {
    expect(addDecimal(a, b)).toBe(sum);
  });

  it("adds whole numbers as exact BigInt arithmetic does (the fast path), and falls back beyond safe integers", () => {
    const exact = (a: number, b: number) => Number(BigInt(a) + BigInt(b));
    fc.assert(
      fc.property(fc.maxSafeInteger(), fc.maxSafeInteger(), (a, b) => {
        expect(addDecimal(a, b)).toBe(exact(a, b));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.integer({ min: -1e6, max: 1e6 }), fc.integer({ min: -1e6, max: 1e6 }), (a, b) => {
        expect(addDecimal(a, b)).toBe(exact(a, b));
      }),
      { numRuns: 2000 },
    );
  });

  it("adds amounts with cents (the fast path) as the exact decimal sum rounded once, and anything else as before", () => {
    // The decimal sum, from each operand's shortest text, rounded to the nearest double once.
    const decimal = (value: number): { digits: bigint; places: number } => {
      const [whole, fraction = ""] = Math.abs(value).toFixed(20).replace(/0+$/, "").split(".");
      const shortest = String(Math.abs(value));
      const [w, f = ""] = shortest.includes("e") ? [whole, fraction] : shortest.split(".");
      return { digits: (value < 0 ? -1n : 1n) * BigInt(w + f), places: f.length };
    };
    const exactSum = (a: number, b: number): number => {
      const x = decimal(a);
      const y = decimal(b);
      const places = Math.max(x.places, y.places);
      const total = x.digits * 10n ** BigInt(places - x.places) + y.digits * 10n ** BigInt(places - y.places);
      return total === 0n ? 0 : Number(total) / 10 ** places;
    };
    const amount = fc.oneof(
      cents.map((c) => c / 100),
      cents.map((c) => c / 10),
      fc.integer({ min: -1e9, max: 1e9 }),
    );
    fc.assert(
      fc.property(amount, amount, (a, b) => {
        expect(addDecimal(a, b)).toBe(exactSum(a, b));
      }),
      { numRuns: 5000 },
    );
    expect(addDecimal(37.5, 12.5)).toBe(50);
  });
});

describe("withoutFloatNoise", () => {
  it("removes binary noise so truncation keeps the unit", () => {
    expect(0.57 * 100).toBe(56.99999999999999);
    expect(withoutFloatNoise(0.57 * 100)).toBe(57);
    expect(withoutFloatNoise(0.1 + 0.2)).toBe(0.3);
  });

  it("keeps real decimals", () => {
    expect(withoutFloatNoise(123456.789)).toBe(123456.789);
    expect(withoutFloatNoise(-2.5)).toBe(-2.5);
  });

  it("gives what rounding to 12 significant digits gives, whole numbers (the fast path) included", () => {
    const value = fc.oneof(
      fc.integer(),
      fc.maxSafeInteger(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constant(-0),
      fc.constant(1e12),
      fc.constant(-999_999_999_999),
      centsOrNoise,
    );
    fc.assert(
      fc.property(value, (x) => {
        expect(withoutFloatNoise(x)).toBe(Number(x.toPrecision(12)));
      }),
      { numRuns: 5000 },
    );
  });
});
