import { open, type FileHandle } from "node:fs/promises";

/*
 * Durable answers without syncing on the event loop (the embedded SQLite
 * database of a long-running process).
 *
 * With synchronous=FULL every COMMIT writes its WAL frames and then waits,
 * inside the statement, on the event loop, for fdatasync: nothing else runs
 * meanwhile (docs/performance-log.md#wal-sync-off-the-event-loop).
 *
 * So such a process commits with synchronous=NORMAL (WAL frames are written
 * at COMMIT, synced only here and by checkpoints: a crash may lose the last
 * commits but never corrupts the file) and makes its commits durable before
 * anything can depend on them outside the database: an HTTP answer
 * (app.ts) and an outbox message handed on (jobs/outbox.ts: the queue, and
 * the webhooks its handlers send) each first await `durable()`. It syncs the WAL file
 * from libuv's thread pool (fdatasync on a descriptor of its own: the kernel
 * syncs the file, whichever descriptor wrote it), so the event loop goes on
 * with the next request while the disk works. Callers arriving while a sync
 * runs share the next one; nothing is answered before its commit is on disk,
 * and since WAL frames are only appended and recovery stops at the first
 * frame missing, what a crash can lose is never an answered commit.
 *
 * Whether anything was committed since the last sync is read off the
 * connection (`total_changes()` and `data_version`, cheap and synchronous): a
 * read-only request waits for nothing. Inside an open transaction the count includes changes
 * not yet committed, so a sync started then covers an unknown count and only
 * one started outside a transaction moves the mark.
 */

/** What the sync needs of the connection: its committed-changes count, and whether it is inside a transaction. */
export interface ChangeCounter {
  /** A count that moves whenever something is committed (SQLite's total_changes() + data_version); null when it cannot tell (a closed connection). */
  changes(): number | null;
  inTransaction(): boolean;
}

export interface WalSync {
  /** Resolves once everything committed before the call is on disk; rejects if syncing failed. */
  durable(): Promise<void>;
  close(): Promise<void>;
}

interface Running {
  done: Promise<void>;
  /** The change count the sync covers once done; null when it cannot tell (started inside a transaction). */
  covers: number | null;
}

const settled = Promise.resolve();

/** How one sync of the WAL is made, and how its file is let go. */
export interface FileSync {
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Syncs the WAL on demand through `file` (default: fdatasync of `walFile`
 * through the thread pool; tests pass their own to observe or hold a sync).
 */
export function walSync(walFile: string, counter: ChangeCounter, file: FileSync = walFileSync(walFile)): WalSync {
  /** The change count known to be on disk; -1 until the first sync (migrations committed before it). */
  let synced = -1;
  let running: Running | null = null;
  let next: Promise<void> | null = null;

  function start(): Promise<void> {
    const count = counter.inTransaction() ? null : counter.changes();
    const run: Running = {
      covers: count,
      done: file
        .sync()
        .then(() => {
          if (count !== null && count > synced) synced = count;
        })
        .finally(() => {
          if (running === run) running = null;
        }),
    };
    running = run;
    return run.done;
  }

  return {
    durable() {
      const count = counter.changes();
      if (count !== null && count === synced) return settled;
      if (running && count !== null && count === running.covers) return running.done;
      if (!running) return start();
      // The running sync may have started before the commits this caller must see on disk: one more after it,
      // shared by everyone who arrives until it starts. A failed sync fails its own callers; the next one tries anew.
      next ??= running.done
        .catch(() => undefined)
        .then(() => {
          next = null;
          return start();
        });
      return next;
    },
    async close() {
      await running?.done.catch(() => undefined);
      await next?.catch(() => undefined);
      await file.close();
    },
  };
}

/** fdatasync of `path` on a descriptor of its own, opened at the first sync; a file not created yet has nothing to sync. */
export function walFileSync(path: string): FileSync {
  let handle: FileHandle | null = null;
  return {
    async sync() {
      if (!handle) {
        try {
          handle = await open(path, "r");
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
          throw err;
        }
      }
      await handle.datasync();
    },
    async close() {
      await handle?.close();
      handle = null;
    },
  };
}
