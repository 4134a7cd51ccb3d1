import { MikroORM, type MigrationObject } from "@mikro-orm/core";
import type { AbstractSqlDriver, SqlEntityManager } from "@mikro-orm/knex";
import type { Migrator } from "@mikro-orm/migrations";
import { bindParameters } from "./bound-parameters.js";
import { migrations as postgresqlMigrations } from "./migrations/postgresql/index.js";
import { migrations as sqliteMigrations } from "./migrations/sqlite/index.js";
import { databaseTarget, ormOptions, SQLITE_BUSY_TIMEOUT_MS, type Dialect } from "./options.js";
import type { LibsqlDatabase } from "./hot/sqlite.js";
import { startSqliteCheckpoints } from "./sqlite-checkpoints.js";
import { oncePerTurn, walIndexCounter, walSync, type WalSync } from "./wal-sync.js";

export type { Dialect } from "./options.js";

export interface Database {
  orm: MikroORM<AbstractSqlDriver, SqlEntityManager>;
  dialect: Dialect;
  /** A fresh EntityManager (its own identity map); use one per request or job. */
  em(): SqlEntityManager;
  /**
   * Resolves once everything committed so far is on disk. Await it before
   * anything outside the database depends on a commit (an answer, an outbox
   * message handed on). At once unless the database was opened with
   * `syncEachCommit: false` (the embedded file of a long-running process: see
   * wal-sync.ts); PostgreSQL commits are durable when they return.
   */
  durable(): Promise<void>;
  /**
   * SQLite: a connection of its own for reads of one statement outside any
   * transaction (db/hot/index.ts withHotReads), read-only; undefined on
   * PostgreSQL, whose pool serves reads at once.
   */
  readConnection?: LibsqlDatabase;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** `postgres://…`, or unset for the embedded SQLite file. */
  databaseUrl?: string;
  /** Where the embedded SQLite file lives (created when missing). */
  dataDir: string;
  /** Log every query. */
  debug?: boolean;
  /** Apply pending migrations on open (default true). `clube migrate` and the tests use it; pass false to open as-is. */
  migrate?: boolean;
  /**
   * SQLite: whether each COMMIT syncs the WAL before it returns (default
   * true: a CLI command, a test). false: commits return unsynced and
   * `durable()` syncs them off the event loop; for processes that await it
   * before answering (`clube serve`, `clube worker`: services.ts).
   */
  syncEachCommit?: boolean;
}

/** The committed migrations of each dialect. */
export const committedMigrations: Record<Dialect, MigrationObject[]> = {
  sqlite: sqliteMigrations,
  postgresql: postgresqlMigrations,
};

/**
 * Opens the database the settings point at and brings its schema up to date.
 * Every process (server, worker, CLI) opens it the same way; migrations run in
 * one transaction, so a process that starts against an older schema either
 * applies all pending migrations or none.
 */
export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  const target = databaseTarget(opts);
  const syncEachCommit = opts.syncEachCommit !== false || target.dialect !== "sqlite";
  const orm = await MikroORM.init<AbstractSqlDriver, SqlEntityManager>(ormOptions(target, committedMigrations[target.dialect], opts.debug, syncEachCommit));
  bindParameters(orm);
  try {
    if (opts.migrate !== false) {
      const applied = await orm.getMigrator<Migrator>().up();
      // Fresh statistics after a schema change: autovacuum may be off, and an
      // un-analyzed table makes the planner pick the wrong index for the hot
      // queries. PostgreSQL only: SQLite's ANALYZE adds sqlite_stat1, an untyped
      // table MikroORM's schema reader cannot map.
      if (applied.length > 0 && target.dialect === "postgresql") await orm.em.getConnection().execute("ANALYZE");
    }
  } catch (err) {
    await orm.close(true);
    throw err;
  }
  // The embedded file's WAL is checkpointed off the event loop (see sqlite-checkpoints.ts).
  const checkpoints = target.dialect === "sqlite" ? startSqliteCheckpoints(target.file) : null;
  const wal = target.dialect === "sqlite" && !syncEachCommit ? sqliteWalSync(target.file) : null;
  const readConnection = target.dialect === "sqlite" ? await openReadConnection(orm) : undefined;
  return {
    orm,
    dialect: target.dialect,
    em: () => orm.em.fork(),
    durable: wal ? () => wal.durable() : () => Promise.resolve(),
    readConnection,
    close: async () => {
      readConnection?.close();
      await wal?.close();
      await checkpoints?.stop();
      await orm.close(true);
    },
  };
}

/**
 * A second connection to the embedded file for reads, opened as knex opens
 * its own (same driver and settings), that refuses writes. In WAL mode its
 * reads never wait for the writer and see each commit once it is made.
 */
async function openReadConnection(orm: MikroORM<AbstractSqlDriver, SqlEntityManager>): Promise<LibsqlDatabase & { close(): void }> {
  const { client } = orm.em.getKnex();
  const connection = (await client.acquireRawConnection()) as LibsqlDatabase & { exec(sql: string): void; close(): void };
  connection.exec(`PRAGMA query_only = true; PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS};`);
  return connection;
}

/**
 * A WalSync of the embedded file, its mark the WAL index's header: it moves
 * with every commit of this process and of any other on the same file (a
 * `clube worker`), so an answer that read another process's commit waits for
 * it to be on disk too. The mark is read once per turn of the event loop for
 * all the answers of the turn (oncePerTurn).
 */
function sqliteWalSync(file: string): WalSync {
  const index = walIndexCounter(`${file}-shm`);
  const wal = oncePerTurn(walSync(`${file}-wal`, index));
  return {
    durable: () => wal.durable(),
    async close() {
      await wal.close();
      index.close();
    },
  };
}
