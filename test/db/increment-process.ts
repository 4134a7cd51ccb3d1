/**
 * A second process for the concurrency test in schema.test.ts: opens the
 * database given on the command line and adds 1 to a balance `count` times,
 * each in its own transaction, as a worker process would. Prints `ready` once
 * the database is open so the parent can start writing at the same time.
 * Usage: increment-process.ts <databaseUrl|""> <dataDir> <balanceId> <count>
 */
import { raw } from "@mikro-orm/core";
import { Balance } from "../../server/src/db/entities/index.js";
import { openDatabase } from "../../server/src/db/orm.js";

const [databaseUrl, dataDir, balanceId, count] = process.argv.slice(2);
const db = await openDatabase({ databaseUrl: databaseUrl || undefined, dataDir, migrate: false });
process.stdout.write("ready\n");
try {
  for (let i = 0; i < Number(count); i++) {
    await db.em().transactional((em) => em.nativeUpdate(Balance, { id: balanceId }, { amount: raw("amount + ?", [1]) }));
  }
} finally {
  await db.close();
}
