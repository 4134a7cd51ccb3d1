import { createRequire } from "node:module";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { sqliteHotStore, type LibsqlDatabase } from "../../server/src/db/hot/sqlite.js";
import type { TableShape } from "../../server/src/db/hot/table-shape.js";
import type { HotStore } from "../../server/src/db/hot/index.js";

/*
 * The SQLite hot store's multi-row writes (db/hot/sqlite.ts) on an in-memory
 * database: rows go in statements of 64/16/4/1 rows, and a column with the
 * same value in every row is bound once as a numbered parameter the rows
 * repeat. Whatever the row count and whichever columns the rows share, what
 * is stored is what one statement per row would have stored.
 */
const Database = createRequire(import.meta.url)("libsql") as new (path: string) => LibsqlDatabase & { exec(sql: string): void; close(): void };

const shape: TableShape = {
  table: "items",
  columns: [
    { property: "id", field: "id", kind: "text" },
    { property: "clubId", field: "club_id", kind: "text" },
    { property: "key", field: "key", kind: "text" },
    { property: "amount", field: "amount", kind: "integer" },
    { property: "meta", field: "meta", kind: "json" },
    { property: "active", field: "active", kind: "boolean" },
    { property: "note", field: "note", kind: "text" },
    { property: "at", field: "at", kind: "datetime" },
  ],
};

interface Item {
  id: string;
  clubId: string;
  key: string;
  amount: number;
  meta: unknown;
  active: boolean;
  note: string | null;
  at: Date;
}

const at = new Date("2026-11-24T12:00:00Z");
function item(i: number, overrides: Partial<Item> = {}): Item {
  return { id: `it_${i}`, clubId: "club_1", key: `k${i}`, amount: i, meta: { n: i % 3 }, active: i % 2 === 0, note: null, at, ...overrides };
}

function stored(db: LibsqlDatabase): unknown[] {
  return db.prepare("select id, club_id, key, amount, meta, active, note, at from items order by id").all([]);
}

function asStored(rows: Item[]): unknown[] {
  return [...rows]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((row) => ({
      id: row.id,
      club_id: row.clubId,
      key: row.key,
      amount: row.amount,
      meta: JSON.stringify(row.meta),
      active: row.active ? 1 : 0,
      note: row.note,
      at: row.at.getTime(),
    }));
}

describe("sqlite hot store writes", () => {
  let db: LibsqlDatabase & { exec(sql: string): void; close(): void };
  let store: HotStore;
  beforeEach(() => {
    db = new Database(":memory:");
    db.exec(`create table items (id text primary key, club_id text not null, key text not null unique, amount integer not null, meta json, active integer, note text, at datetime);
      create table participants (id text primary key, xp bigint not null, level integer not null, tier_code text, tags json not null, event_counts json not null,
        peak_month text, peak_level integer, prior_month_peak_level integer, updated_at datetime not null);
      create table currency_lots (id text primary key, remaining integer not null);
      create table events (id text primary key, status text not null, effects json not null, effects_count integer not null, processed_at datetime);`);
    store = sqliteHotStore(db, (err) => {
      throw err;
    });
  });
  afterEach(() => db.close());

  it("stores every row, whatever the count and the columns the rows share", async () => {
    const all: Item[] = [];
    let next = 0;
    for (const count of [1, 2, 3, 4, 5, 16, 17, 63, 64, 65, 150]) {
      // Every third call also shares what usually varies, or varies what is usually shared.
      const rows = Array.from({ length: count }, () => next++).map((i) =>
        item(i, count % 3 === 0 ? { amount: 7, meta: { same: true } } : count % 3 === 1 ? { clubId: `club_${i % 2}`, note: `n${i}` } : {}),
      );
      await store.insert(shape, rows);
      all.push(...rows);
    }
    expect(stored(db)).toEqual(asStored(all));
  });

  it("keeps writing right past the cap on statement texts per table", async () => {
    const all: Item[] = [];
    for (let call = 0; call < 40; call++) {
      // Each call shares a different set of columns (the bits of `call`).
      const rows = Array.from({ length: 5 }, (_, r) =>
        item(call * 10 + r, {
          ...(call & 1 ? { amount: call } : {}),
          ...(call & 2 ? { meta: { call } } : {}),
          ...(call & 4 ? { note: "same" } : {}),
          ...(call & 8 ? { active: true } : {}),
          ...(call & 16 ? { at: new Date(at.getTime() + r) } : {}),
        }),
      );
      await store.insert(shape, rows);
      all.push(...rows);
    }
    expect(stored(db)).toEqual(asStored(all));
  });

  it("upserts row after row: a key repeated within one statement adds to the row the statement just wrote", async () => {
    await store.insert(shape, [item(1), item(2)]);
    const upsert = { conflict: ["key"], set: "amount = items.amount + excluded.amount" };
    const rows = Array.from({ length: 70 }, (_, i) => item(100 + i, { key: `k${(i % 3) + 1}`, amount: 1 }));
    await store.insert(shape, rows, upsert);
    const amounts = db.prepare("select key, amount from items order by key").all([]);
    expect(amounts).toEqual([
      { key: "k1", amount: 1 + 24 },
      { key: "k2", amount: 2 + 23 },
      { key: "k3", amount: 23 },
    ]);
  });

  it("a multi-row insert whose row breaks a key fails; in autocommit it leaves none of its rows, in a transaction the rollback undoes them all", async () => {
    await store.insert(shape, [item(1)]);
    // 64 rows, the 40th taking the stored row's key: a failure midway through one statement.
    const rows = Array.from({ length: 64 }, (_, i) => item(100 + i, i === 39 ? { key: "k1" } : {}));
    await expect(store.insert(shape, rows)).rejects.toThrow(/UNIQUE/);
    expect(stored(db)).toEqual(asStored([item(1)]));
    db.exec("begin");
    await expect(store.insert(shape, rows)).rejects.toThrow(/UNIQUE/);
    db.exec("rollback");
    expect(stored(db)).toEqual(asStored([item(1)]));
    db.exec("begin");
    await store.insert(
      shape,
      rows.filter((_, i) => i !== 39),
    );
    db.exec("commit");
    expect((stored(db) as unknown[]).length).toBe(64);
  });

  it("inserts the absent rows only and tells which", async () => {
    await store.insert(shape, [item(1), item(5), item(40)]);
    const rows = Array.from({ length: 70 }, (_, i) => item(i, { id: `new_${i}` }));
    const inserted = await store.insertAbsent(shape, rows, ["key"]);
    expect([...inserted].sort()).toEqual(
      rows
        .filter((row) => ![1, 5, 40].includes(row.amount))
        .map((row) => row.id)
        .sort(),
    );
    expect(db.prepare("select count(*) as n from items").all([])).toEqual([{ n: 70 }]);
  });

  it("updates participants, lots and processed events by id", async () => {
    const ids = Array.from({ length: 70 }, (_, i) => `par_${i}`);
    for (const id of ids) db.prepare("insert into participants values (?, 10, 1, null, '[]', '{}', '2026-10', 3, 2, 0)").run([id]);
    await store.updateParticipants(
      ids.map((id, i) => ({
        id,
        xp: i,
        level: 2,
        tierCode: i % 2 ? "gold" : null,
        tags: i % 5 ? [] : ["vip"],
        eventCounts: { bet: i },
        peak: i % 4 === 0 ? { peakMonth: "2026-11", peakLevel: 2, priorMonthPeakLevel: null } : null,
        updatedAt: at,
      })),
    );
    const participants = db.prepare("select * from participants order by cast(substr(id, 5) as integer)").all([]);
    expect(participants).toEqual(
      ids.map((id, i) => ({
        id,
        xp: 10 + i,
        level: 2,
        tier_code: i % 2 ? "gold" : null,
        tags: i % 5 ? "[]" : '["vip"]',
        event_counts: JSON.stringify({ bet: i }),
        peak_month: i % 4 === 0 ? "2026-11" : "2026-10",
        peak_level: i % 4 === 0 ? 2 : 3,
        prior_month_peak_level: i % 4 === 0 ? null : 2,
        updated_at: at.getTime(),
      })),
    );

    for (const id of ids) db.prepare("insert into currency_lots values (?, 100)").run([id]);
    await store.spendLots(ids.map((id, i) => ({ id, amount: i })));
    expect(db.prepare("select sum(remaining) as left from currency_lots").all([])).toEqual([{ left: 70 * 100 - (69 * 70) / 2 }]);

    for (const id of ids) db.prepare("insert into events values (?, 'queued', '[]', 0, null)").run([id]);
    await store.markEventsProcessed(
      ids.slice(0, 65).map((id, i) => ({ id, effects: Array.from({ length: i % 3 }, () => ({ type: "xp" })) })),
      at,
    );
    const events = db.prepare("select status, effects_count, processed_at from events order by cast(substr(id, 5) as integer)").all([]);
    expect(events).toEqual(
      ids.map((_, i) =>
        i < 65 ? { status: "processed", effects_count: i % 3, processed_at: at.getTime() } : { status: "queued", effects_count: 0, processed_at: null },
      ),
    );
  });

  it("reads rows as libsql's own row objects: same keys in the same order, same values and types", async () => {
    await store.insert(shape, [item(1), item(2, { note: "n2", meta: { deep: [1, "x", null] } }), item(3, { amount: 2 ** 40 })]);
    const queries: [string, unknown[]][] = [
      ["select * from items order by id", []],
      // A repeated column name, expressions of every storage class, a bound list and date; no rows at all.
      [
        "select id, amount, id as amount, 1.5 as real, x'00ff' as blob, null as empty, amount * 2 from items where id in (select value from json_each(?)) and at = ?",
        [["it_1", "it_3"], at],
      ],
      ["select id from items where 0", []],
    ];
    for (const [sql, params] of queries) {
      const read = await store.select<Record<string, unknown>>({ postgresql: "", sqlite: sql }, params);
      const bound = params.map((value) => (Array.isArray(value) ? JSON.stringify(value) : value instanceof Date ? value.getTime() : value));
      const expected = db.prepare(sql).all(bound) as Record<string, unknown>[];
      expect(read).toEqual(expected);
      expect(read.map((row) => Object.keys(row))).toEqual(expected.map((row) => Object.keys(row)));
    }
  });
});
