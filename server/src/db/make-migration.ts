/**
 * `tsx server/src/db/make-migration.ts <name> [--fresh]` (npm run db:migration -- <name>)
 *
 * Writes the next migration of BOTH dialects from the entity definitions: for
 * each dialect it applies the committed migrations to a scratch database (a
 * temporary SQLite file; a temporary PostgreSQL database it creates and
 * drops), diffs that schema against the entities and writes the difference as
 * `migrations/<dialect>/Migration<timestamp>_<name>.ts`, then rewrites the
 * dialect's `index.ts` listing. Diffing against a real database (not a
 * snapshot file) means the committed migrations are the only schema history.
 *
 * `--fresh` deletes the committed migrations first and writes one initial
 * migration: allowed only while no database that matters has applied them.
 *
 * PostgreSQL scratch databases are made through `CLUBE_ADMIN_PG_URL`
 * (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { MikroORM, type MigrationObject } from "@mikro-orm/core";
import type { AbstractSqlDriver } from "@mikro-orm/knex";
import type { Migrator } from "@mikro-orm/migrations";
import { randomBase62 } from "./ids.js";
import { committedMigrations } from "./orm.js";
import { ormOptions, type DatabaseTarget, type Dialect } from "./options.js";
import { createPostgresDatabase, dropPostgresDatabase } from "./postgres-admin.js";

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), "migrations");
const ADMIN_PG_URL = process.env.CLUBE_ADMIN_PG_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const MIGRATION_FILE = /^(Migration\d{14}(?:_\w+)?)\.ts$/;

interface Scratch {
  target: DatabaseTarget;
  drop(): Promise<void>;
}

async function scratchDatabase(dialect: Dialect): Promise<Scratch> {
  if (dialect === "sqlite") {
    const dir = await mkdtemp(join(tmpdir(), "clube-migration-"));
    return { target: { dialect, file: join(dir, "scratch.sqlite") }, drop: () => rm(dir, { recursive: true, force: true }) };
  }
  const name = `clube_migration_${randomBase62(10).toLowerCase()}`;
  const url = await createPostgresDatabase(ADMIN_PG_URL, name);
  return { target: { dialect, url }, drop: () => dropPostgresDatabase(ADMIN_PG_URL, name) };
}

async function migrationFiles(dialect: Dialect): Promise<string[]> {
  const names = (await readdir(join(MIGRATIONS_DIR, dialect))).flatMap((file) => MIGRATION_FILE.exec(file)?.[1] ?? []);
  return names.sort();
}

/** The listing orm.ts imports: explicit, so no file globbing happens at run time. */
async function writeIndex(dialect: Dialect): Promise<void> {
  const names = await migrationFiles(dialect);
  const imports = names.map((name) => `import { ${name} } from "./${name}.js";\n`).join("");
  const entries = names.map((name) => `  { name: "${name}", class: ${name} },\n`).join("");
  const list = names.length > 0 ? `[\n${entries}]` : "[]";
  await writeFile(
    join(MIGRATIONS_DIR, dialect, "index.ts"),
    `// Written by server/src/db/make-migration.ts: the committed migrations, oldest first.\n` +
      `import type { MigrationObject } from "@mikro-orm/core";\n${imports}\n` +
      `export const migrations: MigrationObject[] = ${list};\n`,
  );
}

async function makeMigration(dialect: Dialect, name: string, existing: MigrationObject[]): Promise<string | null> {
  const scratch = await scratchDatabase(dialect);
  try {
    const orm = await MikroORM.init<AbstractSqlDriver>(ormOptions(scratch.target, existing));
    try {
      const migrator = orm.getMigrator<Migrator>();
      await migrator.up();
      const result = await migrator.createMigration(join(MIGRATIONS_DIR, dialect), false, false, name);
      return result.fileName || null;
    } finally {
      await orm.close(true);
    }
  } finally {
    await scratch.drop();
  }
}

/**
 * The generator stamps each file with the second it ran in, so the two
 * dialects' files could differ by a second; one stamp for both keeps a
 * migration's name the same on SQLite and PostgreSQL.
 */
async function restamp(dialect: Dialect, fileName: string, migrationName: string): Promise<string> {
  const generated = fileName.replace(/\.ts$/, "");
  const dir = join(MIGRATIONS_DIR, dialect);
  const code = await readFile(join(dir, fileName), "utf8");
  await rm(join(dir, fileName));
  await writeFile(join(dir, `${migrationName}.ts`), code.replaceAll(generated, migrationName));
  return `${migrationName}.ts`;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { fresh: { type: "boolean" } } });
  const name = positionals[0];
  if (positionals.length !== 1 || !/^[a-z][a-z0-9_]*$/.test(name)) {
    throw new Error("usage: make-migration.ts <name> [--fresh]   (name: lower case, digits, underscores)");
  }
  const migrationName = `Migration${new Date().toISOString().replace(/\D/g, "").slice(0, 14)}_${name}`;
  for (const dialect of ["sqlite", "postgresql"] as const) {
    if (values.fresh) {
      for (const file of await migrationFiles(dialect)) await rm(join(MIGRATIONS_DIR, dialect, `${file}.ts`));
    }
    const generated = await makeMigration(dialect, name, values.fresh ? [] : committedMigrations[dialect]);
    const written = generated && (await restamp(dialect, generated, migrationName));
    await writeIndex(dialect);
    process.stdout.write(written ? `${dialect}: wrote ${written}\n` : `${dialect}: the entities match the migrations; nothing to write\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
