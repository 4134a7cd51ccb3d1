import { describe, expect, it } from "vitest";
import type { TableShape } from "../../server/src/db/hot/index.js";
import { postgresHotStore } from "../../server/src/db/hot/postgres.js";
import { postgresEnabled } from "../support/databases.js";
import { describePgClient } from "../support/pg-client.js";

/*
 * The PostgreSQL hot store's writes on a real server: each statement spreads
 * one array parameter per column into rows by set-returning calls in a
 * select list (postgres.ts insertRows), which run in lockstep. Every row must
 * come out with its own values in every column, whatever the kind: nulls,
 * missing values and JSON nulls, datetimes as epoch milliseconds or as texts,
 * columns bound once (uniform), upserts and inserts that skip taken keys.
 */
const SHAPE: TableShape = {
  table: "hot_spread_rows",
  columns: [
    { property: "id", field: "id", kind: "text" },
    { property: "clubId", field: "club_id", kind: "text" },
    { property: "env", field: "env", kind: "text" },
    { property: "count", field: "count", kind: "integer" },
    { property: "total", field: "total", kind: "bigint" },
    { property: "ratio", field: "ratio", kind: "double" },
    { property: "flag", field: "flag", kind: "boolean" },
    { property: "meta", field: "meta", kind: "json" },
    { property: "at", field: "at", kind: "datetime" },
  ],
};

describe.skipIf(!postgresEnabled)("hot store writes spread into rows [postgresql]", () => {
  const client = describePgClient();
  const store = postgresHotStore(client, (err) => {
    throw err;
  });
  const stored = async () =>
    (
      await client.query({
        text: "select id, club_id, env, count, total::text as total, ratio, flag, meta, to_char(at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US') as at from hot_spread_rows order by id",
        values: [],
      })
    ).rows as Record<string, unknown>[];

  it("inserts every row with its own values, upserts them, and skips taken keys", async () => {
    await client.query({
      text: `create table hot_spread_rows (id text primary key, club_id text not null, env text not null, count int, total bigint, ratio float8, flag bool,
        meta jsonb, at timestamptz)`,
      values: [],
    });
    const at = new Date("2026-11-24T06:13:35.123Z");
    const rows = [
      { id: "r1", clubId: "c", env: "live", count: 1, total: 9007199254740991, ratio: 0.5, flag: true, meta: { a: [1, "ação"] }, at },
      { id: "r2", clubId: "c", env: "live", count: null, total: undefined, ratio: null, flag: null, meta: null, at: null },
      { id: "r3", clubId: "c", env: "live", count: -3, total: -1, ratio: 1e21, flag: false, meta: { b: null }, at: new Date(5) },
    ];
    await store.insert(SHAPE, rows);
    const first = [
      {
        id: "r1",
        club_id: "c",
        env: "live",
        count: 1,
        total: "9007199254740991",
        ratio: 0.5,
        flag: true,
        meta: { a: [1, "ação"] },
        at: "2026-11-24T06:13:35.123000",
      },
      { id: "r2", club_id: "c", env: "live", count: null, total: null, ratio: null, flag: null, meta: null, at: null },
      { id: "r3", club_id: "c", env: "live", count: -3, total: "-1", ratio: 1e21, flag: false, meta: { b: null }, at: "1970-01-01T00:00:00.005000" },
    ];
    expect(await stored()).toEqual(first);

    // An upsert with a datetime bound as text (an ISO string: the texts path) and one uniform column.
    await store.insert(
      SHAPE,
      [
        { id: "r2", clubId: "c", env: "live", count: 7, total: 2, ratio: 0.25, flag: true, meta: [], at: "2026-01-02T03:04:05.678Z" },
        { id: "r4", clubId: "c", env: "live", count: 4, total: 4, ratio: 4, flag: false, meta: "text", at: "2026-01-02T03:04:05.678Z" },
      ],
      { conflict: ["id"], set: "count = excluded.count, total = excluded.total, meta = excluded.meta, at = excluded.at" },
    );
    expect(await stored()).toEqual([
      first[0],
      { id: "r2", club_id: "c", env: "live", count: 7, total: "2", ratio: null, flag: null, meta: [], at: "2026-01-02T03:04:05.678000" },
      first[2],
      { id: "r4", club_id: "c", env: "live", count: 4, total: "4", ratio: 4, flag: false, meta: "text", at: "2026-01-02T03:04:05.678000" },
    ]);

    const absent = [
      { id: "r3", clubId: "c", env: "live", count: 0, total: 0, ratio: 0, flag: true, meta: {}, at },
      { id: "r5", clubId: "c", env: "test", count: 5, total: 5, ratio: 5, flag: true, meta: {}, at },
    ];
    const inserted = await store.insertAbsent(SHAPE, absent, ["id"]);
    expect([...inserted]).toEqual(["r5"]);
    expect((await stored()).map((row) => [row.id, row.count, row.env])).toEqual([
      ["r1", 1, "live"],
      ["r2", 7, "live"],
      ["r3", -3, "live"],
      ["r4", 4, "live"],
      ["r5", 5, "test"],
    ]);
  });
  it("writes a flush whose every insert holds one row as plain values, storing what the spread form stores", async () => {
    await client.query({ text: "create table hot_one_rows (like hot_spread_rows including all)", values: [] });
    const shape: TableShape = { ...SHAPE, table: "hot_one_rows" };
    const at = new Date("2026-11-24T06:13:35.123Z");
    const sent: string[] = [];
    const recording = postgresHotStore(
      {
        query: (config) => {
          sent.push(config.text);
          return client.query(config);
        },
      },
      (err) => {
        throw err;
      },
    );
    // Three tables' worth of one row each, as a redemption's flush: each insert one row, so none spreads arrays.
    await recording.writeAll([
      {
        insert: shape,
        rows: [{ id: "o1", clubId: "c", env: "live", count: 1, total: 9007199254740991, ratio: 0.5, flag: true, meta: { a: [1, "ação"] }, at }],
      },
      { insert: shape, rows: [{ id: "o2", clubId: "c", env: "live", count: null, total: undefined, ratio: null, flag: null, meta: null, at: null }] },
      { insert: shape, rows: [{ id: "o3", clubId: "c", env: "live", count: -3, total: -1, ratio: 1e21, flag: false, meta: { b: null }, at: new Date(5) }] },
    ]);
    expect(sent[0]).toContain('insert into "hot_one_rows"');
    expect(sent[0]).not.toContain("unnest");
    expect(sent[0]).toContain("values ($1::text, $2::text, $3::text, $4::int4, $5::int8, $6::float8, $7::bool, $8::jsonb, $9::timestamptz)");
    const rows = async () =>
      (
        await client.query({
          text: "select id, count, total::text as total, ratio, flag, meta, to_char(at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US') as at from hot_one_rows order by id",
          values: [],
        })
      ).rows as Record<string, unknown>[];
    const first = [
      { id: "o1", count: 1, total: "9007199254740991", ratio: 0.5, flag: true, meta: { a: [1, "ação"] }, at: "2026-11-24T06:13:35.123000" },
      { id: "o2", count: null, total: null, ratio: null, flag: null, meta: null, at: null },
      { id: "o3", count: -3, total: "-1", ratio: 1e21, flag: false, meta: { b: null }, at: "1970-01-01T00:00:00.005000" },
    ];
    expect(await rows()).toEqual(first);

    // An upsert of one row, its datetime an ISO text; then a flush with two rows in one insert spreads every insert again.
    await recording.writeAll([
      {
        insert: shape,
        rows: [{ id: "o2", clubId: "c", env: "live", count: 7, total: 2, ratio: 0.25, flag: true, meta: [], at: "2026-01-02T03:04:05.678Z" }],
        upsert: { conflict: ["id"], set: "count = excluded.count, total = excluded.total, meta = excluded.meta, at = excluded.at" },
      },
    ]);
    await recording.writeAll([
      { insert: shape, rows: [{ id: "o4", clubId: "c", env: "live", count: 4, total: 4, ratio: 4, flag: false, meta: "text", at }] },
      { insert: shape, rows: [5, 6].map((n) => ({ id: `o${n}`, clubId: "c", env: "live", count: n, total: n, ratio: n, flag: true, meta: {}, at })) },
    ]);
    expect(sent[2]).toContain("unnest");
    expect(sent[2]).not.toContain("values (");
    expect((await rows()).map((row) => [row.id, row.count, row.total, row.meta, row.at])).toEqual([
      ["o1", 1, "9007199254740991", { a: [1, "ação"] }, "2026-11-24T06:13:35.123000"],
      ["o2", 7, "2", [], "2026-01-02T03:04:05.678000"],
      ["o3", -3, "-1", { b: null }, "1970-01-01T00:00:00.005000"],
      ["o4", 4, "4", "text", "2026-11-24T06:13:35.123000"],
      ["o5", 5, "5", {}, "2026-11-24T06:13:35.123000"],
      ["o6", 6, "6", {}, "2026-11-24T06:13:35.123000"],
    ]);
  });
});
