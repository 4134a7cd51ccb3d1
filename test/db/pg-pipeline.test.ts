import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryAllWithStatements, queryWithStatements, type PgQueryable } from "../../server/src/db/hot/pg-pipeline.js";
import { createTestDatabase, postgresEnabled, type TestDatabase } from "../support/databases.js";

/*
 * BEGIN and COMMIT sent in the round trip of the statement next to them
 * (db/hot/pg-pipeline.ts), on a bare node-postgres client: the statement's
 * own result comes back, a failure anywhere fails the call and runs nothing
 * after it, and the client stays usable (prepared statements included).
 */
interface Client extends PgQueryable {
  connect(): Promise<void>;
  end(): Promise<void>;
}
const { Client } = createRequire(import.meta.url)("pg") as { Client: new (config: { connectionString: string }) => Client };

describe.skipIf(!postgresEnabled)("PostgreSQL statements with BEGIN and COMMIT in their round trip", () => {
  let target: TestDatabase;
  let client: Client;
  let other: Client;
  const ids = async () => ((await other.query({ text: "select id from t order by id", values: [] })).rows as { id: number }[]).map((row) => row.id);

  beforeAll(async () => {
    target = await createTestDatabase("postgresql");
    client = new Client({ connectionString: target.url! });
    other = new Client({ connectionString: target.url! });
    await client.connect();
    await other.connect();
    await client.query({ text: "create table t (id int primary key)", values: [] });
  });
  afterAll(async () => {
    await client?.end();
    await other?.end();
    await target?.drop();
  });

  it("opens the transaction with the first statement and commits with the last", async () => {
    const first = await queryWithStatements(client, { name: "t_insert", text: "insert into t values ($1) returning id", values: [1] }, ["begin"], []);
    expect(first.rows).toEqual([{ id: 1 }]);
    await client.query({ name: "t_insert", text: "insert into t values ($1) returning id", values: [2] });
    expect(await ids()).toEqual([]);
    const last = await queryWithStatements(client, { text: "select count(*)::int as n from t where id > $1", values: [0] }, [], ["commit"]);
    expect(last.rows).toEqual([{ n: 2 }]);
    expect(await ids()).toEqual([1, 2]);
  });

  it("fails as the failing statement fails, committing nothing after it", async () => {
    await queryWithStatements(client, { name: "t_insert", text: "insert into t values ($1) returning id", values: [3] }, ["begin"], []);
    const failed = await queryWithStatements(client, { name: "t_insert", text: "insert into t values ($1) returning id", values: [1] }, [], ["commit"]).catch(
      (err: { code?: string }) => err,
    );
    expect(failed).toMatchObject({ code: "23505" });
    await client.query({ text: "rollback", values: [] });
    expect(await ids()).toEqual([1, 2]);
    // A statement that fails before its BEGIN ran leaves no transaction open either.
    const unparsed = await queryWithStatements(client, { name: "t_bad", text: "select id from missing_table where id = $1", values: [1] }, ["begin"], []).catch(
      (err: Error) => err,
    );
    expect(String(unparsed)).toMatch(/missing_table/);
    await client.query({ text: "rollback", values: [] });
    // Not recorded as prepared: the same name fails again on its text, not for a statement the server never had.
    const again = await queryWithStatements(client, { name: "t_bad", text: "select id from missing_table where id = $1", values: [1] }, ["begin"], []).catch(
      (err: Error) => err,
    );
    expect(String(again)).toMatch(/missing_table/);
    await client.query({ text: "rollback", values: [] });
    expect((await client.query({ name: "t_insert", text: "insert into t values ($1) returning id", values: [4] })).rows).toEqual([{ id: 4 }]);
    expect(await ids()).toEqual([1, 2, 4]);
  });

  it("runs several statements in one round trip, in order, each seeing the ones before; one named statement parsed once", async () => {
    const insert = (id: number) => ({ name: "t_insert", text: "insert into t values ($1) returning id", values: [id] });
    const results = await queryAllWithStatements(
      client,
      [
        { text: "select count(*)::int as n from t where id >= $1", values: [10] },
        insert(10),
        insert(11),
        { text: "select count(*)::int as n from t where id >= $1", values: [10] },
      ],
      ["begin"],
      ["commit"],
    );
    expect(results.map((result) => result.rows)).toEqual([[{ n: 0 }], [{ id: 10 }], [{ id: 11 }], [{ n: 2 }]]);
    expect(await ids()).toEqual([1, 2, 4, 10, 11]);
    // The first failing one fails the call, and nothing after it runs (the COMMIT neither).
    const failed = await queryAllWithStatements(client, [insert(12), insert(10), insert(13)], ["begin"], ["commit"]).catch((err: { code?: string }) => err);
    expect(failed).toMatchObject({ code: "23505" });
    await client.query({ text: "rollback", values: [] });
    expect(await ids()).toEqual([1, 2, 4, 10, 11]);
    // A statement not yet prepared on the connection is parsed once for all its runs, then known to be prepared.
    const fresh = (id: number) => ({ name: "t_insert_fresh", text: "insert into t values ($1 + 0) returning id", values: [id] });
    expect((await queryAllWithStatements(client, [fresh(20), fresh(21)], ["begin"], ["commit"])).map((result) => result.rows)).toEqual([
      [{ id: 20 }],
      [{ id: 21 }],
    ]);
    expect((await client.query(fresh(22))).rows).toEqual([{ id: 22 }]);
    await expect(queryAllWithStatements(client, [insert(30), fresh(31)], [], [])).rejects.toThrow(/one prepared statement's name/);
  });
});
