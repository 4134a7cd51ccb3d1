import type { EntityName } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { PostgreSqlPlatform } from "@mikro-orm/postgresql";
import type { Database } from "../orm.js";
import { plannedByKey, type PgQueryable } from "./pg-pipeline.js";
import { postgresHotStore, type PgClient } from "./postgres.js";
import { firstRowNow, sqliteHotStore, type LibsqlDatabase } from "./sqlite.js";
import { tableShape, type TableShape } from "./table-shape.js";

export type { TableShape } from "./table-shape.js";

/*
 * The event path's data access on the database driver, inside the
 * transaction MikroORM opened: prepared statements with bound parameters
 * instead of an ORM pass (query building, hydration, values inlined into SQL)
 * per statement. One module per dialect (postgres.ts, sqlite.ts) implements
 * the same HotStore; the management/CRUD routes stay on the ORM.
 */

/** What to do when an inserted row's unique key already exists. */
export interface Upsert {
  /** The columns of the unique key. */
  conflict: string[];
  /** The `DO UPDATE SET` list; the stored row is the table's name, the new one `excluded`. */
  set: string;
}

/** A participant row after a group of evaluations: XP is added to the stored value, the rest replaces it. */
export interface ParticipantUpdate {
  id: string;
  xp: number;
  level: number;
  tierCode: string | null;
  tags: string[];
  eventCounts: Record<string, number>;
  /** The monthly review's peak columns, when the level changed (else the stored ones stay). */
  peak: { peakMonth: string | null; peakLevel: number | null; priorMonthPeakLevel: number | null } | null;
  updatedAt: Date;
}

/** A queued event's outcome. */
export interface ProcessedEvent {
  id: string;
  effects: unknown[];
}

/** One statement's worth of rows for HotStore.writeAll (see HotStore's methods of the same names). */
export type Write =
  | {
      insert: TableShape;
      rows: object[];
      upsert?: Upsert;
      /**
       * Properties every row holds the same value in (the writer's `now`), besides the scope's:
       * PostgreSQL binds such a column once instead of one copy per row (see postgres.ts SCOPE_COLUMNS).
       */
      uniform?: readonly string[];
    }
  | { updateParticipants: ParticipantUpdate[] }
  | { spendLots: { id: string; amount: number }[] }
  /** A write statement of its own (scalar parameters as `?`), e.g. a key marked done with the rows it guards. */
  | { statement: { postgresql: string; sqlite: string }; params: unknown[] };

export interface HotStore {
  /** Inserts `rows` (entity property names) into the shape's table, one statement (PostgreSQL) or multi-row statements of up to 64 rows (SQLite). */
  insert(shape: TableShape, rows: object[], upsert?: Upsert): Promise<void>;
  /**
   * Inserts those of `rows` (each with an `id`) whose unique key `conflict`
   * is still free, skipping the others (`on conflict do nothing`: a
   * concurrent creator never fails the transaction); the ids inserted.
   */
  insertAbsent(shape: TableShape, rows: { id: string }[], conflict: string[]): Promise<Set<string>>;
  updateParticipants(rows: ParticipantUpdate[]): Promise<void>;
  /** Subtracts each amount from its lot's `remaining`. */
  spendLots(rows: { id: string; amount: number }[]): Promise<void>;
  /** Marks queued events processed with their effects (the worker side of `Prefer: respond-async`). */
  markEventsProcessed(rows: ProcessedEvent[], processedAt: Date): Promise<void>;
  /**
   * Every write of `writes` (those with rows), in one round trip on
   * PostgreSQL: one statement whose data-modifying CTEs all run against the
   * same snapshot, so no write may read another's rows (they touch different
   * rows, or different tables). On SQLite, in-process, one after the other.
   */
  writeAll(writes: Write[]): Promise<void>;
  /**
   * Rows of a statement written with `?` placeholders, bound to `params`
   * (scalars or arrays; see each dialect for arrays): a read, or a write
   * with `returning`. On PostgreSQL the reads issued in the same turn (not
   * awaited one by one) share a round trip; numbers and datetimes may then
   * come back as JSON has them (read them with Number() and new Date()).
   */
  select<R>(sql: { postgresql: string; sqlite: string }, params: unknown[]): Promise<R[]>;
  /**
   * PostgreSQL, in a driver transaction (db/hot/transaction.ts): statements
   * written with `?` placeholders, run in order in one round trip, each on
   * its own (a later one sees what an earlier one changed); their rows in
   * order. The first failing fails the rest. The ones marked `prepared` share
   * one text (a named statement); the others are planned on each run.
   */
  selectInOrder?(statements: readonly { sql: string; params: unknown[]; prepared?: boolean }[]): Promise<unknown[][]>;
  /** The first row of a read as `select` gives it (undefined when none), where the driver has a cheaper way to one row; else see firstRow. */
  first?<R>(sql: { postgresql: string; sqlite: string }, params: unknown[]): Promise<R | undefined>;
  /** A write statement written with `?` placeholders (bound as in select), on its own: never sharing a round trip with reads. */
  run(sql: { postgresql: string; sqlite: string }, params: unknown[]): Promise<void>;
  readonly dialect: "postgresql" | "sqlite";
}

/**
 * The HotStore of `em`'s transaction, on the driver connection that
 * transaction holds (a knex transaction's client hands out that one
 * connection). Driver errors come back as MikroORM's exceptions
 * (UniqueConstraintViolationException…), as the ORM's own queries raise them.
 */
export function hotStore(em: SqlEntityManager): Promise<HotStore> {
  const trx = em.getTransactionContext<{ client: { acquireConnection(): Promise<unknown> } }>();
  if (!trx) throw new Error("the hot path runs inside a transaction (em.transactional)");
  // One per transaction: the event path asks for it at every step of a batch.
  let store = stores.get(trx);
  if (!store) stores.set(trx, (store = openHotStore(em, trx)));
  return store;
}
const stores = new WeakMap<object, Promise<HotStore>>();

async function openHotStore(em: SqlEntityManager, trx: { client: { acquireConnection(): Promise<unknown> } }): Promise<HotStore> {
  const connection = await trx.client.acquireConnection();
  return em.getPlatform() instanceof PostgreSqlPlatform
    ? postgresHotStore(plannedByKey(connection as PgQueryable), converter(em))
    : sqliteHotStore(connection as LibsqlDatabase, converter(em));
}

/** Driver errors as MikroORM's exceptions (UniqueConstraintViolationException…). */
function converter(em: SqlEntityManager): (err: unknown) => never {
  return (err) => {
    throw err instanceof Error ? em.getDriver().convertException(err) : err;
  };
}

/**
 * PostgreSQL: runs `use` with a HotStore on a pooled connection of its own,
 * outside any transaction, so each statement commits by itself. For work
 * whose writes are one statement (atomic on its own): it saves the BEGIN and
 * COMMIT round trips and the ORM's transaction bookkeeping.
 */
export async function withAutocommitHotStore<T>(em: SqlEntityManager, use: (hot: HotStore) => Promise<T>): Promise<T> {
  if (!(em.getPlatform() instanceof PostgreSqlPlatform)) throw new Error("autocommit hot statements are for PostgreSQL");
  const { client } = em.getKnex();
  const connection = (await client.acquireConnection()) as PgClient;
  try {
    return await use(postgresHotStore(connection, converter(em)));
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * Runs `use` with a HotStore on a pooled connection outside any transaction,
 * on either dialect, each statement committing by itself: for reads of one
 * statement (consistent on their own) and single-statement writes, without
 * the BEGIN and COMMIT and the ORM's transaction bookkeeping. On
 * SQLite the pool's connection is taken for the duration, as a transaction
 * of the ORM would take it.
 */
export async function withHotAutocommit<T>(em: SqlEntityManager, use: (hot: HotStore) => Promise<T>): Promise<T> {
  if (em.getPlatform() instanceof PostgreSqlPlatform) return withAutocommitHotStore(em, use);
  const { client } = em.getKnex();
  const connection = (await client.acquireConnection()) as LibsqlDatabase;
  try {
    return await use(sqliteHotStore(connection, converter(em)));
  } finally {
    await client.releaseConnection(connection);
  }
}

/**
 * Runs `use` with a HotStore for reads of one statement each, outside any
 * transaction (each statement a consistent snapshot on its own). SQLite:
 * the database's read connection (orm.ts), used at once: no wait in the
 * pool's queue behind the one writing connection (and its timer), and never
 * inside another request's open transaction; WAL gives it every commit as
 * soon as it is made. PostgreSQL: a pooled connection (withAutocommitHotStore).
 */
export async function withHotReads<T>(db: Pick<Database, "orm" | "readConnection">, use: (hot: HotStore) => Promise<T>): Promise<T> {
  const connection = db.readConnection;
  if (!connection) return withHotAutocommit(db.orm.em, use);
  let store = readStores.get(connection);
  if (!store) readStores.set(connection, (store = sqliteHotStore(connection, converter(db.orm.em))));
  return use(store);
}
const readStores = new WeakMap<LibsqlDatabase, HotStore>();

/** A read of one row at once (see readFirstNow). */
export type FirstRowNow = <R>(sql: { sqlite: string }, params: unknown[]) => R | undefined;

/**
 * SQLite: the first row of a read of one statement on the read connection
 * (withHotReads), returned at once rather than through a promise per layer
 * (the statement runs on the event loop either way); null on PostgreSQL,
 * whose reads go through withHotReads.
 */
export function readFirstNow(db: Pick<Database, "orm" | "readConnection">): FirstRowNow | null {
  const connection = db.readConnection;
  if (!connection) return null;
  let read = readsNow.get(connection);
  if (!read) {
    const convert = converter(db.orm.em);
    readsNow.set(connection, (read = (sql, params) => firstRowNow(connection, convert, sql, params)));
  }
  return read;
}
const readsNow = new WeakMap<LibsqlDatabase, FirstRowNow>();

/** The first row of a read (undefined when none): HotStore.first where the store has it, else the first of select's rows. */
export async function firstRow<R>(store: HotStore, sql: { postgresql: string; sqlite: string }, params: unknown[]): Promise<R | undefined> {
  if (store.first) return store.first<R>(sql, params);
  const [row] = await store.select<R>(sql, params);
  return row;
}

/**
 * A read for both dialects from one template; `inList(column)` is the
 * condition "column is one of the array bound here": `= any(?::text[])` on
 * PostgreSQL, `in (select value from json_each(?))` on SQLite (which binds
 * the array as JSON text), so the statement text never depends on the count.
 */
export function bothDialects(make: (inList: (column: string) => string) => string): { postgresql: string; sqlite: string } {
  return {
    postgresql: make((column) => `${column} = any(?::text[])`),
    sqlite: make((column) => `${column} in (select value from json_each(?))`),
  };
}

/** The shape of an entity's table (cached), for HotStore.insert. */
export function shapeOf<T extends object>(em: SqlEntityManager, entity: EntityName<T>): TableShape {
  return tableShape(em.getMetadata().get(entity as EntityName<object>));
}
