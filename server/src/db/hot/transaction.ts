import type { SqlEntityManager } from "@mikro-orm/knex";
import { PostgreSqlPlatform } from "@mikro-orm/postgresql";
import type { HotStore } from "./index.js";
import { PLANNED_BY_KEY, queryAllWithStatements, queryWithStatements, type PgQueryable } from "./pg-pipeline.js";
import { postgresHotStore, type PgClient } from "./postgres.js";
import { sqliteHotStore, type LibsqlDatabase } from "./sqlite.js";

/*
 * A short write transaction on the driver, for the participant's writes
 * (a redemption): BEGIN, the caller's statements, COMMIT on one pooled
 * connection, without the ORM's transaction (an EntityManager fork, knex's
 * transaction client and its connection bookkeeping, a unit-of-work flush
 * at commit) around statements that are all driver statements anyway.
 */

/** What a transaction's body may tell it besides its statements. */
export interface HotTransaction {
  /**
   * The next statement is the transaction's last: on PostgreSQL its COMMIT
   * goes in that statement's round trip (see pg-pipeline.ts), and a statement
   * after it fails. The body must not fail once that statement succeeded
   * (it committed). Nothing changes on SQLite, where COMMIT is in-process.
   */
  commitWithNext(): void;
}

/**
 * Runs `use` in a transaction of its own on a pooled connection: committed
 * when it resolves, rolled back when it throws (its error is rethrown, a
 * driver error as MikroORM's exception, as the ORM raises them). On
 * PostgreSQL the BEGIN goes in the first statement's round trip, and the
 * COMMIT in the last one's when `use` says which (commitWithNext). On SQLite
 * the transaction begins IMMEDIATE: it takes the write lock first (waiting
 * under busy_timeout), so it never reads a snapshot a later write would find
 * stale (see db/write-lock.ts).
 */
export async function inHotTransaction<T>(em: SqlEntityManager, use: (store: HotStore, transaction: HotTransaction) => Promise<T>): Promise<T> {
  const { client } = em.getKnex();
  const convert = (err: unknown): never => {
    throw err instanceof Error ? em.getDriver().convertException(err) : err;
  };
  const connection: unknown = await client.acquireConnection();
  try {
    if (em.getPlatform() instanceof PostgreSqlPlatform) return await onPostgres(connection as PgQueryable, convert, use);
    return await onSqlite(connection as LibsqlDatabase, convert, use);
  } finally {
    await client.releaseConnection(connection);
  }
}

async function onPostgres<T>(pg: PgQueryable, convert: (err: unknown) => never, use: (store: HotStore, transaction: HotTransaction) => Promise<T>): Promise<T> {
  let begun = false;
  let commitNext = false;
  let committed = false;
  // The transaction's statements, with BEGIN before the first and COMMIT after the one commitWithNext announced.
  const send = <R>(statements: (before: readonly string[], after: readonly string[]) => Promise<R>): Promise<R> => {
    if (committed) return Promise.reject(new Error("a statement after its transaction's last one"));
    const before = begun ? NONE : BEGIN;
    const after = commitNext ? COMMIT : NONE;
    begun = true;
    committed = commitNext;
    const sent = statements(before, after);
    // A body that caught its last statement's failure must not pass for committed.
    if (committed) sent.catch((err: unknown) => void (lastFailed = { err }));
    return sent;
  };
  const client: PgClient = {
    query: (config) => send((before, after) => queryWithStatements(pg, config, before, after)),
    queryAll: (configs) => send((before, after) => queryAllWithStatements(pg, configs, before, after)),
  };
  let lastFailed: { err: unknown } | null = null;
  let result: T;
  try {
    result = await use(postgresHotStore(client, convert), { commitWithNext: () => void (commitNext = true) });
    if (lastFailed) convert((lastFailed as { err: unknown }).err);
  } catch (err) {
    // No values: one simple-protocol message. After a failed COMMIT there is nothing left to roll back (the server says so, harmlessly).
    if (begun) await pg.query({ text: "rollback", values: [] }).catch(() => {});
    throw err;
  }
  // A body that sent nothing had no transaction to end.
  if (begun && !committed) await pg.query({ text: "commit", values: [] }).catch(convert);
  return result;
}
const NONE: readonly string[] = [];
/** BEGIN and the planner setting of every driver transaction (see pg-pipeline.ts PLANNED_BY_KEY), in one round trip. */
export const BEGIN: readonly string[] = ["begin", ...PLANNED_BY_KEY];
const COMMIT: readonly string[] = ["commit"];

async function onSqlite<T>(
  db: LibsqlDatabase,
  convert: (err: unknown) => never,
  use: (store: HotStore, transaction: HotTransaction) => Promise<T>,
): Promise<T> {
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
    result = await use(sqliteHotStore(db, convert), SQLITE_TRANSACTION);
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

const SQLITE_TRANSACTION: HotTransaction = { commitWithNext: () => {} };

/** BEGIN, COMMIT and ROLLBACK prepared once per connection. */
const statements = new WeakMap<LibsqlDatabase, Map<string, ReturnType<LibsqlDatabase["prepare"]>>>();
function statement(db: LibsqlDatabase, sql: string): ReturnType<LibsqlDatabase["prepare"]> {
  let byText = statements.get(db);
  if (!byText) statements.set(db, (byText = new Map()));
  let stmt = byText.get(sql);
  if (!stmt) byText.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}
