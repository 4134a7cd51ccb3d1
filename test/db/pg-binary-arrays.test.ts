import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { binaryArray, type BinaryElement } from "../../server/src/db/hot/pg-binary-arrays.js";
import { postgresEnabled } from "../support/databases.js";
import { describePgClient } from "../support/pg-client.js";
import { decodeBinaryArray } from "../support/pg-binary-array.js";

/*
 * The hot path's array parameters in binary (binaryArray): what PostgreSQL
 * stores from one must be exactly what it stores from node-postgres' own
 * encoding of the same JavaScript array; an array binaryArray declines (null)
 * keeps going as text.
 */
const ascii = fc.stringOf(
  fc.integer({ min: 1, max: 0x7f }).map((code) => String.fromCharCode(code)),
  { maxLength: 40 },
);
const anyText = fc.oneof(
  ascii,
  fc.fullUnicodeString({ maxLength: 8 }).filter((text) => !text.includes("\u0000")),
  fc.constantFrom("", "null", "NULL", "a,b", "{x}", 'q"d', "b\\s", "ação ✓ 😀"),
);
const ARRAYS: Record<BinaryElement, fc.Arbitrary<unknown[]>> = {
  text: fc.array(fc.option(fc.oneof(ascii, ascii, anyText), { nil: null }), { maxLength: 60 }),
  int8: fc.array(fc.option(fc.oneof(fc.integer(), fc.maxSafeInteger(), fc.constantFrom(0, -0, 1.5, 2 ** 60, -(2 ** 53 - 1), 2 ** 53 - 1)), { nil: null }), {
    maxLength: 60,
  }),
  int4: fc.array(fc.option(fc.oneof(fc.integer(), fc.constantFrom(-0, 2147483647, -2147483648)), { nil: null }), { maxLength: 60 }),
  float8: fc.array(fc.option(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(-0, 1795518895490, 0.1, 5e-324)), { nil: null }), {
    maxLength: 60,
  }),
  bool: fc.array(fc.option(fc.boolean(), { nil: null }), { maxLength: 60 }),
};

describe("binaryArray", () => {
  it("writes every value it takes as its element, nulls as SQL nulls", () => {
    for (const element of Object.keys(ARRAYS) as BinaryElement[]) {
      fc.assert(
        fc.property(ARRAYS[element], (values) => {
          const binary = binaryArray(element, values);
          if (binary) expect(decodeBinaryArray(binary).values).toEqual(values.map((value) => (value === 0 ? 0 : value)));
        }),
      );
    }
  });

  it("declines what only the text path sends as the text path would", () => {
    expect(binaryArray("text", [])).toBeNull();
    expect(binaryArray("text", ["ação"])).toBeNull();
    expect(binaryArray("text", ["😀"])).toBeNull();
    expect(binaryArray("text", [1])).toBeNull();
    expect(binaryArray("int8", [1.5])).toBeNull();
    expect(binaryArray("int8", [2 ** 60])).toBeNull();
    expect(binaryArray("int8", ["12"])).toBeNull();
    expect(binaryArray("int4", [2147483648])).toBeNull();
    expect(binaryArray("float8", [Number.NaN])).toBeNull();
    expect(binaryArray("float8", [Number.POSITIVE_INFINITY])).toBeNull();
    expect(binaryArray("bool", [1])).toBeNull();
    expect(binaryArray("text", ['q"d', "b\\s", null, undefined])).not.toBeNull();
  });
});

describe.skipIf(!postgresEnabled)("binary array parameters [postgresql]", () => {
  const client = describePgClient();
  const read = async (element: BinaryElement, param: unknown) =>
    (await client.query({ text: `select v::text as v from unnest($1::${element}[]) with ordinality as u(v, n) order by n`, values: [param] })).rows;

  it.each(Object.keys(ARRAYS) as BinaryElement[])("%s[] reads back as node-postgres' encoding does", async (element) => {
    await fc.assert(
      fc.asyncProperty(ARRAYS[element], async (values) => {
        const binary = binaryArray(element, values);
        if (binary) expect(await read(element, binary)).toEqual(await read(element, values));
      }),
      { numRuns: 60 },
    );
  });

  it("is refused, as the text is, for a text holding a NUL character", async () => {
    await expect(read("text", ["a\u0000b"])).rejects.toThrow(/0x00/);
    await expect(read("text", binaryArray("text", ["a\u0000b"]))).rejects.toThrow(/0x00/);
  });
});
