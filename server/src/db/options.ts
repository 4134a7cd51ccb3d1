import { join } from "node:path";
import type { MigrationObject, Options } from "@mikro-orm/core";
import type { AbstractSqlDriver } from "@mikro-orm/knex";
import { LibSqlDriver } from "@mikro-orm/libsql";
import { PostgreSqlDriver } from "@mikro-orm/postgresql";
import { Migrator } from "@mikro-orm/migrations";
import { allEntities } from "./entities/index.js";
import { SERVER_AUTOCHECKPOINT_PAGES } from "./sqlite-checkpoints.js";

export type Dialect = "sqlite" | "postgresql";

/** Where the data lives: the embedded SQLite file, or a PostgreSQL database. */
export type DatabaseTarget = { dialect: "sqlite"; file: string } | { dialect: "postgresql"; url: string };

/** The embedded database's file name inside the data directory. */
export const SQLITE_FILE = "clube.sqlite";

/**
 * No URL → the embedded SQLite file `<dataDir>/clube.sqlite`; a
 * `postgres://`/`postgresql://` URL → PostgreSQL. Anything else is refused
 * rather than silently falling back to SQLite.
 */
export function databaseTarget(opts: { databaseUrl?: string; dataDir: string }): DatabaseTarget {
  if (!opts.databaseUrl) return { dialect: "sqlite", file: join(opts.dataDir, SQLITE_FILE) };
  if (/^postgres(ql)?:\/\//.test(opts.databaseUrl)) return { dialect: "postgresql", url: opts.databaseUrl };
  throw new Error(`DATABASE_URL must be a postgres:// URL (or unset for the embedded SQLite file); got scheme "${opts.databaseUrl.split(":")[0]}"`);
}

/** How long a SQLite writer waits for another process's write lock before failing. */
export const SQLITE_BUSY_TIMEOUT_MS = 10_000;

interface SqliteConnection {
  exec(sql: string): unknown;
  /** When knex's libsql dialect made the connection; it replaces connections older than 10 s. */
  __created?: number;
}

/**
 * The page cache of the embedded database's connection (KiB): larger than
 * SQLite's default, within the process's memory budget.
 * Why 8 MiB: docs/performance-log.md#sqlite-page-cache
 */
const SQLITE_CACHE_KIB = 8 * 1024;

/**
 * The page size of a new embedded database: fewer, larger WAL frames per
 * batch. Set before WAL mode, it applies to a file with no tables yet only:
 * an existing database keeps its page size (changing it takes a VACUUM
 * outside WAL mode).
 * Why 16 KiB pages: docs/performance-log.md#sqlite-page-size
 */
const SQLITE_PAGE_SIZE = 16384;

/**
 * Per-connection SQLite settings. WAL lets readers work while one process
 * writes; busy_timeout makes a second writer (another process on the same
 * file: the server and a worker) wait for the lock instead of failing with
 * SQLITE_BUSY. synchronous=FULL: in WAL mode every commit syncs the WAL
 * before it returns, so what was answered survives a power loss (NORMAL
 * syncs only at checkpoints and may lose the last commits) — except where the
 * process syncs the WAL itself before anything depends on a commit
 * (`syncEachCommit` false: wal-sync.ts), which then commits with NORMAL. The page cache
 * holds the index pages the event path's inserts land on all over each table
 * (docs/performance-log.md#sqlite-page-cache). The automatic checkpoint is pushed far out: a
 * worker thread checkpoints (sqlite-checkpoints.ts). Runs on every new
 * pooled connection (knex recycles them).
 */
function prepareSqliteConnection(conn: SqliteConnection, done: (err: Error | null, conn: SqliteConnection) => void, syncEachCommit: boolean): void {
  try {
    conn.exec(
      `PRAGMA page_size = ${SQLITE_PAGE_SIZE}; PRAGMA journal_mode = WAL; PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS};` +
        ` PRAGMA synchronous = ${syncEachCommit ? "FULL" : "NORMAL"};` +
        ` PRAGMA cache_size = -${SQLITE_CACHE_KIB}; PRAGMA wal_autocheckpoint = ${SERVER_AUTOCHECKPOINT_PAGES};`,
    );
    // Kept for the life of the process: the dialect replaces a connection
    // older than 10 s, and closing the file's last connection checkpoints the
    // WAL (seconds under load) and throws away every prepared statement.
    conn.__created = Number.POSITIVE_INFINITY;
    done(null, conn);
  } catch (err) {
    done(err as Error, conn);
  }
}

/**
 * Bounds on waiting for PostgreSQL, so a request during an outage fails soon
 * (a 503 the client retries) instead of hanging: a new connection that gets no
 * answer gives up after `connectionTimeoutMillis` (a host gone behind a
 * firewall never refuses), and a request waits for a pooled connection at
 * most `acquireConnectionTimeout` (knex's default is a minute).
 */
const POSTGRES_OUTAGE_TIMEOUTS = { acquireConnectionTimeout: 10_000, connection: { connectionTimeoutMillis: 5_000 } };

/**
 * The MikroORM options for a target: entities defined with `defineEntity`
 * (no decorator metadata under tsx), the committed migrations listed
 * explicitly (no file globbing, so it works from any working directory), and
 * no schema snapshot files (migrations are generated against a scratch
 * database instead; see make-migration.ts).
 */
export function ormOptions(target: DatabaseTarget, migrations: MigrationObject[], debug = false, syncEachCommit = true): Options<AbstractSqlDriver> {
  const common = {
    entities: allEntities,
    extensions: [Migrator],
    debug,
    discovery: { disableDynamicFileAccess: true },
    metadataCache: { enabled: false },
    migrations: {
      migrationsList: migrations,
      snapshot: false,
      transactional: true,
      allOrNothing: true,
      silent: true,
      emit: "ts" as const,
    },
  };
  if (target.dialect === "sqlite") {
    return {
      ...common,
      driver: LibSqlDriver,
      dbName: target.file,
      pool: {
        afterCreate: (conn: SqliteConnection, done: (err: Error | null, conn: SqliteConnection) => void) => prepareSqliteConnection(conn, done, syncEachCommit),
      },
    } as Options<AbstractSqlDriver>;
  }
  return { ...common, driver: PostgreSqlDriver, clientUrl: target.url, driverOptions: POSTGRES_OUTAGE_TIMEOUTS } as Options<AbstractSqlDriver>;
}
