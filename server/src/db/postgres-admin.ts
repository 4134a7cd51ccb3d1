import { knex } from "@mikro-orm/knex";

/**
 * Creating and dropping whole PostgreSQL databases, for scratch databases (the
 * migration generator, the test suites). Statements run on an admin
 * connection (usually to the `postgres` database), never on the target.
 */

const DATABASE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The URL of database `name` on the same server as `adminUrl`. */
function databaseUrlFor(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withAdmin<T>(adminUrl: string, work: (admin: ReturnType<typeof knex>) => Promise<T>): Promise<T> {
  const admin = knex({ client: "pg", connection: adminUrl, pool: { min: 0, max: 1 } });
  try {
    return await work(admin);
  } finally {
    await admin.destroy();
  }
}

function checkedName(name: string): string {
  // Identifiers cannot be bound as parameters, so only plain names are accepted.
  if (!DATABASE_NAME.test(name)) throw new Error(`not a plain database name: ${JSON.stringify(name)}`);
  return name;
}

export async function createPostgresDatabase(adminUrl: string, name: string): Promise<string> {
  await withAdmin(adminUrl, (admin) => admin.raw(`CREATE DATABASE "${checkedName(name)}"`));
  return databaseUrlFor(adminUrl, name);
}

/** Drops the database even when connections are still open (WITH FORCE, PostgreSQL 13+). */
export async function dropPostgresDatabase(adminUrl: string, name: string): Promise<void> {
  await withAdmin(adminUrl, (admin) => admin.raw(`DROP DATABASE IF EXISTS "${checkedName(name)}" WITH (FORCE)`));
}
