import { describe, expect, it } from "vitest";
import { postgresHotStore } from "../../server/src/db/hot/postgres.js";

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
      { query: async (config) => { sent.push({ name: config.name, text: config.text }); return { rows: [{ r0: [], r1: [] }] }; } },
      (err) => { throw err; },
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
      await store.select(both("select id from rule_runs where participant_id = any(?::text[])"), [group]);
      await store.select(both("select id from participants where id = any(?::text[]) order by id for update"), [group]);
    }
    expect(sent).toHaveLength(6);
    expect(sent.slice(0, 3).map((statement) => statement.name)).toEqual([undefined, undefined, undefined]);
    for (const statement of sent.slice(3)) expect(statement.name).toMatch(/^clube_/);
    expect(sent[0].text).toContain("$2");
  });

  it("sends writes as named prepared statements, whatever their size", async () => {
    const { sent, store } = recording();
    await store.spendLots(ids(500).map((id) => ({ id, amount: 1 })));
    expect(sent).toHaveLength(1);
    expect(sent[0].name).toMatch(/^clube_/);
  });
});
