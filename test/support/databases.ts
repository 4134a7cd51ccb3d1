import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe } from "vitest";
import { randomBase62 } from "../../server/src/db/ids.js";
import { openDatabase, type Database } from "../../server/src/db/orm.js";
import { createPostgresDatabase, dropPostgresDatabase } from "../../server/src/db/postgres-admin.js";

/**
 * Test databases. Every database-backed suite runs on both dialects, each in
 * a database of its own made fresh for it, so files can run in parallel.
 * PostgreSQL is on by default (CI has it); `CLUBE_TEST_PG=off` skips the
 * PostgreSQL suites, visibly (they show as skipped with the reason in the title).
 * `CLUBE_TEST_PG_URL` points at the server's admin database
 * (default postgres://postgres@127.0.0.1:5432/postgres).
 */
export const databaseKinds = ["sqlite", "postgresql"] as const;
export type DatabaseKind = (typeof databaseKinds)[number];

export const postgresEnabled = process.env.CLUBE_TEST_PG !== "off";
const ADMIN_URL = process.env.CLUBE_TEST_PG_URL || "postgres://postgres@127.0.0.1:5432/postgres";

export interface TestDatabase {
  /** Pass as `databaseUrl` to openDatabase: undefined for SQLite. */
  url: string | undefined;
  /** Pass as `dataDir`: a fresh temporary directory (holds the SQLite file). */
  dataDir: string;
  /** Removes the database and the directory. */
  drop(): Promise<void>;
}

export async function createTestDatabase(kind: DatabaseKind): Promise<TestDatabase> {
  const dataDir = await mkdtemp(join(tmpdir(), "clube-test-"));
  const removeDir = () => rm(dataDir, { recursive: true, force: true });
  if (kind === "sqlite") return { url: undefined, dataDir, drop: removeDir };
  if (!postgresEnabled) throw new Error("PostgreSQL test databases are off (CLUBE_TEST_PG=off); use describeEachDatabase to skip those suites");
  const name = `clube_test_${randomBase62(12).toLowerCase()}`;
  const url = await createPostgresDatabase(ADMIN_URL, name);
  return {
    url,
    dataDir,
    drop: async () => {
      await dropPostgresDatabase(ADMIN_URL, name);
      await removeDir();
    },
  };
}

/**
 * `describe` once per database kind, titled `<title> [<kind>]`. With
 * CLUBE_TEST_PG=off the PostgreSQL suite is registered as skipped, so the
 * run's summary shows what did not run and why.
 */
export function describeEachDatabase(title: string, body: (kind: DatabaseKind) => void): void {
  for (const kind of databaseKinds) {
    if (kind === "postgresql" && !postgresEnabled) {
      describe.skip(`${title} [${kind}: skipped, CLUBE_TEST_PG=off]`, () => body(kind));
    } else {
      describe(`${title} [${kind}]`, () => body(kind));
    }
  }
}

/** A migrated database of `kind` for one suite; `close()` closes it and drops it. */
export async function openTestDatabase(kind: DatabaseKind): Promise<{ db: Database; close(): Promise<void> }> {
  const target = await createTestDatabase(kind);
  const db = await openDatabase({ databaseUrl: target.url, dataDir: target.dataDir });
  return {
    db,
    close: async () => {
      await db.close();
      await target.drop();
    },
  };
}
