import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/*
 * WAL checkpoints of the embedded SQLite file, off the event loop.
 *
 * In WAL mode a commit appends the pages it changed to the -wal file, and a
 * checkpoint copies them back into the database file (reading each frame,
 * writing each page, two fsyncs). SQLite's automatic checkpoint runs inside
 * the COMMIT that crosses wal_autocheckpoint (1,000 pages): on the one
 * connection the server has, so on the event loop, in a request's
 * transaction: nearly every batch paid a whole checkpoint before answering
 * (docs/performance-log.md#sqlite-checkpoints).
 *
 * Here a worker thread holds a second connection to the file and runs a
 * PASSIVE checkpoint every CHECKPOINT_EVERY_MS: it never blocks the writer
 * (PASSIVE copies what no reader still needs and gives up on a busy lock),
 * and it runs on another core. The writer keeps a far-off automatic
 * checkpoint (SERVER_AUTOCHECKPOINT_PAGES) as a bound on the WAL should the
 * worker fall behind or stop. Durability is unchanged: a commit is durable
 * once its WAL frames are synced (synchronous=FULL), and a checkpoint syncs
 * the database file before the WAL may be reused.
 */

/** How often the worker checkpoints; a checkpoint of an already copied WAL only reads the WAL index. */
const CHECKPOINT_EVERY_MS = 100;

/** The writer's own automatic checkpoint threshold (pages: 80 MB of WAL at 8 KiB pages, 160 MB at 16 KiB): a bound, not the usual path. */
export const SERVER_AUTOCHECKPOINT_PAGES = 10_000;

// CommonJS run by the worker: `require` resolves nothing relative to the bundle, so libsql comes as a path.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.libsql);
const db = new Database(workerData.file);
db.exec("PRAGMA synchronous = FULL");
const checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
const timer = setInterval(() => {
  try { checkpoint.all([]); } catch { /* busy or the file is going away: the next tick tries again */ }
}, workerData.everyMs);
parentPort.on("message", () => { clearInterval(timer); db.close(); process.exit(0); });
`;

export interface SqliteCheckpoints {
  stop(): Promise<void>;
}

/** Starts checkpointing `file` (a WAL-mode SQLite database) in a worker thread; `stop` ends it. */
export function startSqliteCheckpoints(file: string): SqliteCheckpoints {
  const libsql = createRequire(import.meta.url).resolve("libsql");
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, libsql, everyMs: CHECKPOINT_EVERY_MS },
    // It allocates next to nothing: a small heap leaves the process's memory budget to the server.
    // Why: docs/performance-log.md#sqlite-checkpoint-worker-heap
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
  });
  // Never what keeps a process alive; a failure only costs the writer its own checkpoints.
  worker.unref();
  worker.on("error", (err) => process.stderr.write(`clube: SQLite checkpoint worker failed (${err.message}); the writer checkpoints itself\n`));
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  return {
    async stop() {
      worker.postMessage("stop");
      await exited;
    },
  };
}
