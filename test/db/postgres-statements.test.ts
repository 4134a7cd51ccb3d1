import { describe, expect, it } from "vitest";
import type { TableShape } from "../../server/src/db/hot/index.js";
import { postgresHotStore } from "../../server/src/db/hot/postgres.js";
import { decodeBinaryArray } from "../support/pg-binary-array.js";

/*
 * How the PostgreSQL hot store sends its statements (no database: a client
 * recording what it is asked). A read of a large group (array parameters of
 * more than 64 values, a batch) goes unnamed, so the server plans it for its
 * parameters every run: a named statement's cached generic plan of a batch's
 * state read doubled its server time from the sixth run. Reads of small groups
 * and every write stay named prepared statements (parsed and planned once).
 */
describe("postgres hot store statements", () => {
  function recording() {
    const sent: { name?: string; text: string }[] = [];
    const store = postgresHotStore(
      {
        query: async (config) => {
          sent.push({ name: config.name, text: config.text });
          return { rows: [{ r0: [], r1: [] }] };
        },
      },
      (err) => {
        throw err;
      },
    );
    return { sent, store };
  }
  /** The same text for both dialects (only PostgreSQL's is sent here). */
  const both = (text: string) => ({ postgresql: text, sqlite: text });
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `par_${i}`);

  it("sends reads and locks of large groups unnamed, of small groups named", async () => {
    const { sent, store } = recording();
    for (const group of [ids(500), ids(3)]) {
      await Promise.all([
        store.select(both("select id from balances where participant_id = any(?::text[])"), [group]),
        store.select(both("select id from badges where participant_id = any(?::text[])"), [group]),
      ]);
      await store.select(both("select rule_id from rule_run_days where participant_id = any(?::text[])"), [group]);
      await store.select(both("select id from participants where id = any(?::text[]) order by id for update"), [group]);
    }
    expect(sent).toHaveLength(6);
    expect(sent.slice(0, 3).map((statement) => statement.name)).toEqual([undefined, undefined, undefined]);
    for (const statement of sent.slice(3)) expect(statement.name).toMatch(/^clube_/);
    // The two reads of the turn share one statement, and the group they both pass (see the next test).
    expect(sent[0].text).toContain("from badges where participant_id = any($1::text[])");
  });

  it("binds an array passed again to reads of the same turn (the same object, the same cast) once", async () => {
    const sent: { text: string; values: unknown[] }[] = [];
    const store = postgresHotStore(
      {
        query: async (config) => {
          sent.push(config);
          return { rows: [{ r0: [], r1: [], r2: [] }] };
        },
      },
      (err) => {
        throw err;
      },
    );
    const group = ids(3);
    await Promise.all([
      store.select(both("select id from balances where participant_id = any(?::text[])"), [group]),
      store.select(both("select id from badges where club_id = ? and participant_id = any(?::text[])"), ["club_1", group]),
      // Equal contents in another array: bound on its own.
      store.select(both("select id from lots where participant_id = any(?::text[])"), [[...group]]),
    ]);
    expect(sent[0].values).toHaveLength(3);
    expect(sent[0].text).toContain("from balances where participant_id = any($1::text[])");
    expect(sent[0].text).toContain("where club_id = $2 and participant_id = any($1::text[])");
    expect(sent[0].text).toContain("from lots where participant_id = any($3::text[])");
    expect(decodeBinaryArray(sent[0].values[0] as Buffer).values).toEqual(group);
    await store.select(both("select id from participants where id = any(?::text[]) and external_id = any(?::text[]) for update"), [group, group]);
    expect(sent[1].text).toBe("select id from participants where id = any($1::text[]) and external_id = any($1::text[]) for update");
    expect(sent[1].values).toHaveLength(1);
  });

  it("sends writes as named prepared statements, whatever their size", async () => {
    const { sent, store } = recording();
    await store.spendLots(ids(500).map((id) => ({ id, amount: 1 })));
    expect(sent).toHaveLength(1);
    expect(sent[0].name).toMatch(/^clube_/);
  });

  /*
   * A column every row holds the same value in — the scope, or one a write
   * declares `uniform` (its `now`) — is bound once as a scalar instead of an
   * array of copies; a declared column whose rows differ goes as an array.
   * The statement's text depends on the declaration, never on the batch size.
   */
  describe("uniform columns", () => {
    const shape: TableShape = {
      table: "ledger_entries",
      columns: [
        { property: "id", field: "id", kind: "text" },
        { property: "clubId", field: "club_id", kind: "text" },
        { property: "env", field: "env", kind: "text" },
        { property: "delta", field: "delta", kind: "bigint" },
        { property: "createdAt", field: "created_at", kind: "datetime" },
      ],
    };
    function sending() {
      const sent: { text: string; values: unknown[] }[] = [];
      const store = postgresHotStore(
        {
          query: async (config) => {
            sent.push(config);
            return { rows: [] };
          },
        },
        (err) => {
          throw err;
        },
      );
      return { sent, store };
    }
    const now = new Date("2026-11-24T12:00:00.000Z");
    const rows = (n: number, createdAt = (_: number) => new Date(now)) =>
      Array.from({ length: n }, (_, i) => ({ id: `led_${i}`, clubId: "club_1", env: "test", delta: i, createdAt: createdAt(i) }));

    it("binds the scope and the declared columns once, whatever the number of rows", async () => {
      const { sent, store } = sending();
      await store.writeAll([{ insert: shape, rows: rows(3), uniform: ["createdAt"] }]);
      await store.writeAll([{ insert: shape, rows: rows(2), uniform: ["createdAt"] }]);
      expect(sent[0].text).toBe(sent[1].text);
      expect(sent[0].text).toContain("$2::text, $3::text");
      expect(sent[0].text).toContain("$5::timestamptz");
      // Arrays in binary (see pg-binary-arrays.ts): text OID 25, int8 OID 20.
      expect(sent[0].values.map((value) => (Buffer.isBuffer(value) ? decodeBinaryArray(value) : value))).toEqual([
        { element: 25, values: ["led_0", "led_1", "led_2"] },
        "club_1",
        "test",
        { element: 20, values: [0, 1, 2] },
        "2026-11-24T12:00:00.000Z",
      ]);
    });

    it("binds plain values when every insert of the flush holds one row, under one text per set of tables", async () => {
      const { sent, store } = sending();
      await store.writeAll([{ insert: shape, rows: rows(1), uniform: ["createdAt"] }]);
      await store.writeAll([{ insert: shape, rows: rows(1) }]);
      expect(sent[0].text).toBe(
        'insert into "ledger_entries" ("id", "club_id", "env", "delta", "created_at") values ($1::text, $2::text, $3::text, $4::int8, $5::timestamptz)',
      );
      expect(sent[1].text).toBe(sent[0].text);
      expect(sent[0].values).toEqual(["led_0", "club_1", "test", 0, "2026-11-24T12:00:00.000Z"]);
    });

    it("binds a declared column as an array when its rows differ, and an undeclared one always", async () => {
      const { sent, store } = sending();
      await store.writeAll([{ insert: shape, rows: rows(2, (i) => new Date(now.getTime() + i)), uniform: ["createdAt"] }]);
      await store.writeAll([{ insert: shape, rows: rows(2) }]);
      for (const { text, values } of sent) {
        expect(text).toContain("unnest($5::float8[])");
        expect(text).toContain("to_timestamp(u.c4 / 1000)");
        expect(values[1]).toBe("club_1");
      }
      // Epoch milliseconds (see epochMillis).
      expect(decodeBinaryArray(sent[0].values[4] as Buffer)).toEqual({ element: 701, values: [now.getTime(), now.getTime() + 1] });
      expect(sent[0].text).toBe(sent[1].text);
    });

    it("binds a datetime column holding a text as timestamptz texts, under a text of its own", async () => {
      const { sent, store } = sending();
      await store.writeAll([{ insert: shape, rows: rows(2, (i) => new Date(now.getTime() + i)) }]);
      const texted = rows(2, (i) => new Date(now.getTime() + i)) as Record<string, unknown>[];
      texted[1].createdAt = "2026-11-24T12:00:00.001Z";
      await store.writeAll([{ insert: shape, rows: texted }]);
      expect(sent[1].text).toContain("unnest($5::timestamptz[])");
      expect(sent[1].text).not.toBe(sent[0].text);
      expect(sent[1].values[4]).toBe('{"2026-11-24T12:00:00.000Z","2026-11-24T12:00:00.001Z"}');
    });
  });
});
