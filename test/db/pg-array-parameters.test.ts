import { describe, expect, it } from "vitest";
import { arrayParameter, datetimeColumn, epochMillis } from "../../server/src/db/hot/postgres.js";
import { postgresEnabled } from "../support/databases.js";
import { describePgClient } from "../support/pg-client.js";

/*
 * The hot path's array parameters as literal text (arrayParameter): what
 * PostgreSQL reads back must be exactly what node-postgres' own encoding of
 * the array gives, for every kind of element, the tricky strings included.
 */
const TEXTS = [
  "plain",
  "",
  " spaced ",
  "null",
  "NULL",
  "a,b",
  "{braces}",
  'quote"d',
  "back\\slash",
  "tab\there",
  "line\nbreak",
  "\u0001",
  "ação ✓ 😀",
  "\u2028",
  null,
  "'single'",
];
const CASES: [string, unknown[]][] = [
  ["text[]", TEXTS],
  ["text[]", TEXTS.filter((text) => text === null || !/["\\\u0000-\u001f]/.test(text))],
  ["text[]", ["2026-11-24T06:13:35.123Z", null]],
  ["timestamptz[]", ["2026-11-24T06:13:35.123Z", null, "1999-01-01T00:00:00.000Z"]],
  [
    "timestamptz[]",
    datetimeColumn([{ at: new Date(5) }, { at: new Date(5) }, { at: null }, {}, { at: new Date(7) }, { at: new Date(7) }, { at: new Date(5) }], "at"),
  ],
  ["int8[]", [0, -1, 9007199254740991, null, "12"]],
  ["int4[]", [1, 2, null, -2147483648]],
  ["float8[]", [0.1, -2.5e-7, 1e21, null, Number.NaN, Number.POSITIVE_INFINITY]],
  ["float8[]", [0.1, -2.5e-7, 1e21, 3, null]],
  ["bool[]", [true, false, null]],
  ["text[]", []],
];

describe.skipIf(!postgresEnabled)("array parameters as literal text [postgresql]", () => {
  const client = describePgClient();

  it.each(CASES)("%s %j reads back as node-postgres' encoding does", async (type, values) => {
    const read = async (param: unknown) =>
      (await client.query({ text: `select v::text as v from unnest($1::${type}) with ordinality as u(v, n) order by n`, values: [param] })).rows;
    expect(await read(arrayParameter(values))).toEqual(await read(values));
  });

  it("reads datetimes sent as epoch milliseconds back as the instants their texts name", async () => {
    const instants = [
      new Date(0),
      new Date(5),
      new Date(-1),
      new Date("1969-12-31T23:59:59.999Z"),
      new Date("2026-11-24T06:13:35.123Z"),
      new Date("2999-12-31T23:59:59.999Z"),
      null,
    ];
    const millis = epochMillis(
      instants.map((at) => ({ at })),
      "at",
    );
    expect(millis).toEqual(instants.map((at) => at?.getTime() ?? null));
    const { rows } = await client.query({
      text: `select to_timestamp(m / 1000) = t as same, t is null as missing from unnest($1::float8[], $2::timestamptz[]) as u(m, t)`,
      values: [
        arrayParameter(millis!),
        arrayParameter(
          datetimeColumn(
            instants.map((at) => ({ at })),
            "at",
          ),
        ),
      ],
    });
    expect(rows).toEqual(instants.map((at) => (at ? { same: true, missing: false } : { same: null, missing: true })));
    // A value that is not a Date: the column goes as texts instead.
    expect(epochMillis([{ at: new Date(5) }, { at: "2026-11-24T06:13:35.123Z" }], "at")).toBeNull();
  });

  it("encodes plain arrays as one literal, and leaves arrays needing escapes to node-postgres", () => {
    expect(arrayParameter(["a", null, "b c"])).toBe('{"a",null,"b c"}');
    expect(arrayParameter([1, 2.5, true])).toBe("{1,2.5,true}");
    expect(arrayParameter([])).toBe("{}");
    const at = new Date(5);
    expect(datetimeColumn([{ at }, { at: new Date(5) }, { at: null }, {}, { at: new Date(7) }, { at }], "at")).toEqual([
      at.toISOString(),
      at.toISOString(),
      null,
      null,
      new Date(7).toISOString(),
      at.toISOString(),
    ]);
    for (const values of [['quote"d'], ["back\\slash"], ["\n"], [Number.NaN], [{ a: 1 }], [new Date(0)], [[1]]]) expect(arrayParameter(values)).toBe(values);
  });
});
