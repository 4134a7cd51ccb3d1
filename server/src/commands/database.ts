import { openDatabase, type Database } from "../db/orm.js";
import { Club } from "../db/entities/index.js";
import type { Settings } from "../settings.js";
import { CliError } from "./cli-errors.js";

/** Opens the configured database (migrating it), runs `work`, and always closes it. */
export async function withDatabase<T>(settings: Settings, work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({ databaseUrl: settings.databaseUrl, dataDir: settings.dataDir });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

/** Like withDatabase, for commands that act on one club: an unknown club id is an operator error, not a silent insert. */
export async function withClub<T>(settings: Settings, clubId: string, work: (db: Database) => Promise<T>): Promise<T> {
  return withDatabase(settings, async (db) => {
    if ((await db.em().count(Club, { id: clubId })) === 0) {
      throw new CliError(`error: no club ${clubId} in this database (see \`clube club create\`)`);
    }
    return work(db);
  });
}
