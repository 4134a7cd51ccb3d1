import { openDatabase } from "../db/orm.js";
import type { Settings } from "../settings.js";

/** `clube migrate`: applies pending migrations (opening the database does it) and reports where. */
export async function migrate(settings: Settings): Promise<void> {
  const db = await openDatabase({ databaseUrl: settings.databaseUrl, dataDir: settings.dataDir });
  await db.close();
  const where = settings.databaseUrl ? "PostgreSQL" : `SQLite in ${settings.dataDir}`;
  process.stdout.write(`Migrations applied (${where}).\n`);
}
