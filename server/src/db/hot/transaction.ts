import type { SqlEntityManager } from "@mikro-orm/knex";
import { PostgreSqlPlatform } from "@mikro-orm/postgresql";
import type { HotStore } from "./index.js";
import { postgresHotStore, type PgClient } from "./postgres.js";
import { sqliteHotStore, type LibsqlDatabase } from "./sqlite.js";

/*
 * A short write transaction on the driver, for the participant's writes
 * (a redemption): BEGIN, the caller's statements, COMMIT on one pooled
 * connection, without the ORM's transaction (an EntityManager fork, knex's
 * transaction client and its connection bookkeeping, a unit-of-work flush
 * at commit) around statements that are all driver statements anyway.
 */

/**
 * Runs `use` in a transaction of its own on a pooled connection: committed
 * when it resolves, rolled back when it throws (its error is rethrown, a
 * driver error as MikroORM's exception, as the ORM raises them). On SQLite
 * the transaction begins IMMEDIATE: it takes the write lock first (waiting
 * under busy_timeout), so it never reads a snapshot a later write would find
 * stale (see db/write-lock.ts).
 */
export async function inHotTransaction<T>(em: SqlEntityManager, use: (store: HotStore) => Promise<T>): Promise<T> {
  const { client } = em.getKnex();
  const convert = (err: unknown): never => {
    throw err instanceof Error ? em.getDriver().convertException(err) : err;
  };
  const connection: unknown = await client.acquireConnection();
  try {
    if (em.getPlatform() instanceof PostgreSqlPlatform) return await onPostgres(connection as PgClient, convert, use);
    return await onSqlite(connection as LibsqlDatabase, convert, use);
  } finally {
    await client.releaseConnection(connection);
  }
}

async function onPostgres<T>(pg: PgClient, convert: (err: unknown) => never, use: (store: HotStore) => Promise<T>): Promise<T> {
  // No values: each goes as one simple-protocol message.
  await pg.query({ text: "begin", values: [] }).catch(convert);
  let result: T;
  try {
    result = await use(postgresHotStore(pg, convert));
  } catch (err) {
    await pg.query({ text: "rollback", values: [] }).catch(() => {});
    throw err;
  }
  await pg.query({ text: "commit", values: [] }).catch(convert);
  return result;
}

async function onSqlite<T>(db: LibsqlDatabase, convert: (err: unknown) => never, use: (store: HotStore) => Promise<T>): Promise<T> {
  const run = (sql: string) => {
    try {
      statement(db, sql).run([]);
    } catch (err) {
      convert(err);
    }
  };
  run("begin immediate");
  let result: T;
  try {
    result = await use(sqliteHotStore(db, convert));
  } catch (err) {
    if (db.inTransaction) {
      try {
        statement(db, "rollback").run([]);
      } catch {
        // The transaction is gone already (SQLite rolled it back on its error).
      }
    }
    throw err;
  }
  run("commit");
  return result;
}

/** BEGIN, COMMIT and ROLLBACK prepared once per connection. */
const statements = new WeakMap<LibsqlDatabase, Map<string, ReturnType<LibsqlDatabase["prepare"]>>>();
function statement(db: LibsqlDatabase, sql: string): ReturnType<LibsqlDatabase["prepare"]> {
  let byText = statements.get(db);
  if (!byText) statements.set(db, (byText = new Map()));
  let stmt = byText.get(sql);
  if (!stmt) byText.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}
