/**
 * A worker process for the crash test: it consumes one queue of the embedded
 * queue and never finishes a job, printing `started <id> <attempt>` so the
 * test knows when to kill it. Configured through the environment:
 * CLUBE_TEST_DATABASE_URL (empty for SQLite), CLUBE_TEST_DATA_DIR,
 * CLUBE_TEST_QUEUE, CLUBE_TEST_LEASE_MS.
 */
import { openDatabase } from "../../../server/src/db/orm.js";
import { openEmbeddedQueue } from "../../../server/src/jobs/embedded.js";

const env = process.env;
const db = await openDatabase({ databaseUrl: env.CLUBE_TEST_DATABASE_URL || undefined, dataDir: env.CLUBE_TEST_DATA_DIR! });
const queue = openEmbeddedQueue({ db, leaseMs: Number(env.CLUBE_TEST_LEASE_MS), pollIntervalMs: 50 });
await queue.consume(env.CLUBE_TEST_QUEUE!, async (_payload, meta) => {
  process.stdout.write(`started ${meta.id} ${meta.attempt}\n`);
  await new Promise(() => undefined);
});
process.stdout.write("ready\n");
