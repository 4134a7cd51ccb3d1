import { statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../server/src/db/orm.js";
import { SQLITE_FILE } from "../../server/src/db/options.js";
import { createTestDatabase } from "../support/databases.js";

const size = (file: string) => {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
};

describe("SQLite WAL checkpoints (sqlite-checkpoints.ts)", () => {
  it("a worker thread copies the WAL into the database file, not the writer's commits", async () => {
    const target = await createTestDatabase("sqlite");
    const file = join(target.dataDir, SQLITE_FILE);
    const db = await openDatabase({ dataDir: target.dataDir });
    try {
      // The writer's own automatic checkpoint is far off: the migrations' pages are still only in the WAL…
      const connection = db.em().getConnection();
      const [{ wal_autocheckpoint }] = await connection.execute<{ wal_autocheckpoint: number }[]>("PRAGMA wal_autocheckpoint");
      expect(wal_autocheckpoint).toBeGreaterThan(1000);
      const [{ synchronous }] = await connection.execute<{ synchronous: number }[]>("PRAGMA synchronous");
      expect(synchronous).toBe(2); // FULL: a commit is synced before it returns
      // A new file gets 16 KiB pages (fewer WAL frames per batch), set before WAL mode made the page size final.
      const [{ page_size }] = await connection.execute<{ page_size: number }[]>("PRAGMA page_size");
      expect(page_size).toBe(16384);
      // …until the worker copies them into the database file.
      const deadline = Date.now() + 30_000; // generous: the worker thread may wait for a core on a loaded machine
      while (size(file) < 64 * 1024 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(size(file)).toBeGreaterThanOrEqual(64 * 1024);
    } finally {
      await db.close();
      await target.drop();
    }
  });
});
