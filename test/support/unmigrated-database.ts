import type { Migrator } from "@mikro-orm/migrations";
import { afterAll, beforeAll } from "vitest";
import { openDatabase, type Database } from "../../server/src/db/orm.js";
import { createTestDatabase, type DatabaseKind, type TestDatabase } from "./databases.js";

/** A suite's fresh database with no migration applied, which the suite migrates step by step. */
export interface UnmigratedDatabase {
  /** Runs raw SQL on it; the rows. */
  execute(sql: string): Promise<unknown[]>;
  migrator(): Migrator;
}

/**
 * Opens a fresh database of `kind` without applying migrations before the
 * suite's tests (a migration test stores rows in the schema as it was, then
 * applies the migration under test), and closes and drops it after them.
 */
export function unmigratedDatabase(kind: DatabaseKind): UnmigratedDatabase {
  let target: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    target = await createTestDatabase(kind);
    db = await openDatabase({ databaseUrl: target.url, dataDir: target.dataDir, migrate: false });
  });
  afterAll(async () => {
    await db?.close();
    await target?.drop();
  });
  return {
    execute: (sql) => db.em().getConnection().execute(sql, [], "all"),
    migrator: () => db.orm.getMigrator<Migrator>(),
  };
}
