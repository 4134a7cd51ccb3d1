import { openDatabase, type Database } from "../db/orm.js";
import type { Settings } from "../settings.js";

/** Opens the configured database (migrating it), runs `work`, and always closes it. */
export async function withDatabase<T>(settings: Settings, work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({ databaseUrl: settings.databaseUrl, dataDir: settings.dataDir });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}
