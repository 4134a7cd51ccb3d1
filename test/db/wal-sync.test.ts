import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../server/src/db/orm.js";
import { oncePerTurn, walFileSync, walIndexCounter, walSync, type ChangeCounter, type FileSync } from "../../server/src/db/wal-sync.js";
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

/** A change mark the test moves by hand (null: unreadable). */
function counter(): ChangeCounter & { count: number | null } {
  return {
    count: 0,
    changes() {
      return this.count;
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

  it("a mark that cannot be read covers nothing: every caller syncs until one is read", async () => {
    const { file, changes, wal } = heldWal();
    changes.count = null;
    const first = wal.durable();
    file.finish();
    await first;
    const second = wal.durable();
    expect(file.started).toBe(2);
    file.finish();
    await second;
    changes.count = 5;
    const third = wal.durable();
    expect(file.started).toBe(3);
    file.finish();
    await third;
    await wal.durable();
    expect(file.started).toBe(3);
  });

  it("once per turn: the callers of one turn of the event loop share one look at the mark, taken after all of them", async () => {
    const file = heldSyncs();
    const changes = counter();
    let looks = 0;
    const wal = oncePerTurn(walSync("unused", { changes: () => (looks++, changes.changes()) }, file));
    changes.count = 1;
    const first = wal.durable();
    expect(wal.durable()).toBe(first);
    expect(looks).toBe(0);
    // A commit later in the same turn (another answer's) is covered by the same look.
    changes.count = 2;
    await tick();
    expect(file.started).toBe(1);
    const covered = looks;
    file.finish();
    await first;
    // The next turn looks again; nothing committed since: no sync.
    await wal.durable();
    expect(looks).toBeGreaterThan(covered);
    expect(file.started).toBe(1);
    changes.count = 3;
    const failing = wal.durable();
    await tick();
    file.finish(new Error("EIO"));
    await expect(failing).rejects.toThrow("EIO");
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

  it("on a real file: fdatasync of the WAL a libsql connection wrote, skipped when nothing was committed (the WAL index's header)", async () => {
    const target = await createTestDatabase("sqlite");
    const Database = createRequire(import.meta.url)("libsql");
    const path = join(target.dataDir, "wal.sqlite");
    const db = new Database(path);
    const other = new Database(path);
    const index = walIndexCounter(`${path}-shm`);
    try {
      db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; create table t (x integer)");
      const real = walFileSync(`${path}-wal`);
      let syncs = 0;
      const wal = walSync("unused", index, {
        sync: () => (syncs++, real.sync()),
        close: () => real.close(),
      });
      db.prepare("insert into t values (1), (2)").run([]);
      await wal.durable();
      expect(syncs).toBe(1);
      // Reads, of either connection, and a PASSIVE checkpoint commit nothing.
      db.prepare("select * from t").all([]);
      other.prepare("select * from t").all([]);
      other.prepare("PRAGMA wal_checkpoint(PASSIVE)").all([]);
      await wal.durable();
      expect(syncs).toBe(1);
      db.prepare("insert into t values (3)").run([]);
      await wal.durable();
      expect(syncs).toBe(2);
      // Another connection's commit (another process on the file) moves the mark too; an open transaction does not.
      other.exec("begin");
      other.prepare("insert into t values (4)").run([]);
      await wal.durable();
      expect(syncs).toBe(2);
      other.exec("commit");
      await wal.durable();
      expect(syncs).toBe(3);
      // A transaction rolled back commits nothing.
      db.exec("begin");
      db.prepare("insert into t values (5)").run([]);
      db.exec("rollback");
      await wal.durable();
      expect(syncs).toBe(3);
      await wal.close();
    } finally {
      index.close();
      other.close();
      db.close();
      await target.drop();
    }
  });

  it("the WAL index's mark is null while the file is missing or its two header copies differ", async () => {
    const target = await createTestDatabase("sqlite");
    const path = join(target.dataDir, "torn.sqlite-shm");
    const index = walIndexCounter(path);
    try {
      expect(index.changes()).toBeNull();
      const header = Buffer.alloc(96);
      header[12] = 1;
      header[48 + 12] = 1;
      header[16] = 7; // the first copy's last frame, the second not written yet
      writeFileSync(path, header);
      expect(index.changes()).toBeNull();
      header[48 + 16] = 7;
      writeFileSync(path, header);
      expect(index.changes()).not.toBeNull();
    } finally {
      index.close();
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
