import { join } from "node:path";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../server/src/db/orm.js";
import { walFileSync, walSync, type ChangeCounter, type FileSync } from "../../server/src/db/wal-sync.js";
import { createTestDatabase } from "../support/databases.js";

/** A sync the test finishes by hand, counting how many were started. */
function heldSyncs(): FileSync & { started: number; finish(error?: Error): void } {
  const pending: Array<{ resolve(): void; reject(error: Error): void }> = [];
  return {
    started: 0,
    sync() {
      this.started++;
      return new Promise<void>((resolve, reject) => pending.push({ resolve, reject }));
    },
    finish(error) {
      const next = pending.shift()!;
      if (error) next.reject(error);
      else next.resolve();
    },
    async close() {},
  };
}

/** A connection's change count the test moves by hand. */
function counter(): ChangeCounter & { count: number; transaction: boolean } {
  return {
    count: 0,
    transaction: false,
    changes() {
      return this.count;
    },
    inTransaction() {
      return this.transaction;
    },
  };
}

/** A WalSync over a counter and syncs the test moves by hand. */
function heldWal() {
  const file = heldSyncs();
  const changes = counter();
  return { file, changes, wal: walSync("unused", changes, file) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("durable answers: the WAL synced off the event loop (wal-sync.ts)", () => {
  it("syncs once for what was committed, and not again until something else is", async () => {
    const { file, changes, wal } = heldWal();
    changes.count = 3;
    const first = wal.durable();
    expect(file.started).toBe(1);
    file.finish();
    await first;
    // Nothing committed since: no sync at all.
    await wal.durable();
    expect(file.started).toBe(1);
    changes.count = 4;
    const second = wal.durable();
    expect(file.started).toBe(2);
    file.finish();
    await second;
  });

  it("callers arriving during a sync that may not cover their commits share one more, started after it", async () => {
    const { file, changes, wal } = heldWal();
    changes.count = 1;
    const first = wal.durable();
    // Same count as the running sync covers: it is enough.
    const sameCount = wal.durable();
    changes.count = 2;
    const later = [wal.durable(), wal.durable(), wal.durable()];
    expect(file.started).toBe(1);
    let laterDone = false;
    void Promise.all(later).then(() => (laterDone = true));
    file.finish();
    await Promise.all([first, sameCount]);
    await tick();
    expect(laterDone).toBe(false);
    expect(file.started).toBe(2);
    file.finish();
    await Promise.all(later);
    expect(file.started).toBe(2);
  });

  it("a sync started inside a transaction covers no known count: the next caller syncs again", async () => {
    const { file, changes, wal } = heldWal();
    changes.count = 5;
    changes.transaction = true; // 5 may include changes not committed yet
    const first = wal.durable();
    file.finish();
    await first;
    changes.transaction = false; // committed now, after that sync started
    const second = wal.durable();
    expect(file.started).toBe(2);
    file.finish();
    await second;
    await wal.durable();
    expect(file.started).toBe(2);
  });

  it("a failed sync fails its callers, and the next caller syncs anew", async () => {
    const { file, changes, wal } = heldWal();
    changes.count = 1;
    const failing = wal.durable();
    file.finish(new Error("EIO"));
    await expect(failing).rejects.toThrow("EIO");
    const retried = wal.durable();
    expect(file.started).toBe(2);
    file.finish();
    await retried;
  });

  it("on a real file: fdatasync of the WAL a libsql connection wrote, skipped when nothing changed", async () => {
    const target = await createTestDatabase("sqlite");
    const Database = createRequire(import.meta.url)("libsql");
    const db = new Database(join(target.dataDir, "wal.sqlite"));
    try {
      db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; create table t (x integer)");
      const totalChanges = db.prepare("select total_changes()").raw(true);
      const real = walFileSync(join(target.dataDir, "wal.sqlite-wal"));
      let syncs = 0;
      const wal = walSync(
        "unused",
        { changes: () => Number(totalChanges.get([])[0]), inTransaction: () => db.inTransaction },
        {
          sync: () => (syncs++, real.sync()),
          close: () => real.close(),
        },
      );
      db.prepare("insert into t values (1), (2)").run([]);
      await wal.durable();
      expect(syncs).toBe(1);
      await wal.durable();
      expect(syncs).toBe(1);
      db.prepare("insert into t values (3)").run([]);
      await wal.durable();
      expect(syncs).toBe(2);
      await wal.close();
    } finally {
      db.close();
      await target.drop();
    }
  });

  it("a database opened for a long-running process commits with synchronous=NORMAL and syncs on durable(); others with FULL", async () => {
    const target = await createTestDatabase("sqlite");
    try {
      for (const [syncEachCommit, expected] of [
        [false, 1],
        [true, 2],
      ] as const) {
        const db = await openDatabase({ dataDir: target.dataDir, syncEachCommit });
        try {
          const connection = db.em().getConnection();
          const [{ synchronous }] = await connection.execute<{ synchronous: number }[]>("PRAGMA synchronous");
          expect(synchronous).toBe(expected);
          await connection.execute("create table if not exists probe (x integer)");
          await connection.execute("insert into probe values (1)");
          await db.durable();
        } finally {
          await db.close();
        }
      }
    } finally {
      await target.drop();
    }
  });
});
