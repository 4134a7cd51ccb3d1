import { closeSync, openSync, readSync } from "node:fs";
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
 * Whether anything was committed since the last sync is read off the WAL
 * index (walIndexCounter): the header SQLite keeps in the `-shm` file, which
 * every commit of every connection and process updates before anyone can
 * read it, and which nothing else but a restart of the WAL changes. One
 * read of 96 bytes, no statement: a read-only request waits for nothing and
 * pays next to nothing (docs/performance-log.md#participant-read-costs).
 */

/** What the sync needs of the database: a mark of what is committed. */
export interface ChangeCounter {
  /** A value that changes whenever something is committed, and only then (compared with ===); null when it cannot tell (then every durable() syncs). */
  changes(): string | number | null;
}

export interface WalSync {
  /** Resolves once everything committed before the call is on disk; rejects if syncing failed. */
  durable(): Promise<void>;
  close(): Promise<void>;
}

interface Running {
  done: Promise<void>;
  /** The mark the sync covers once done; null when it could not be read. */
  covers: string | number | null;
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
  /** The mark known to be on disk; null until the first sync (migrations committed before it). */
  let synced: string | number | null = null;
  let running: Running | null = null;
  let next: Promise<void> | null = null;

  function start(): Promise<void> {
    const count = counter.changes();
    const run: Running = {
      covers: count,
      done: file
        .sync()
        .then(() => {
          // Whichever sync finishes last sets it: a mark a finished sync covers is on disk, so an older one only costs a sync more.
          if (count !== null) synced = count;
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
      if (count !== null && synced !== null && count === synced) return settled;
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

/**
 * `wal`, its mark read once per turn of the event loop for every caller of
 * that turn instead of once per caller: the callers share one promise,
 * settled after `wal.durable()` asked in the turn's check phase (setImmediate),
 * when every caller's reads of the turn are done, so the mark read then
 * covers them all. An answer waits at most until the end of its turn.
 */
export function oncePerTurn(wal: WalSync): WalSync {
  let turn: Promise<void> | null = null;
  const settle = (resolve: () => void, reject: (err: unknown) => void) => {
    turn = null;
    wal.durable().then(resolve, reject);
  };
  return {
    durable() {
      turn ??= new Promise<void>((resolve, reject) => setImmediate(settle, resolve, reject));
      return turn;
    },
    close: () => wal.close(),
  };
}

/**
 * The header of the WAL index (the `-shm` file of a database in WAL mode,
 * shared memory of every connection to it) as the change mark: SQLite
 * writes a commit's frames to the WAL first, then this header (its change
 * counter, last frame, salts and checksum), and a reader finds committed
 * frames only through it, so whatever any connection can have read is
 * covered by the header read after it. Uncommitted frames, PASSIVE
 * checkpoints and reads leave it as it is; a WAL restart changes it (a sync
 * more, never one less). The format is shared by every SQLite version that
 * opens the file at once (sqlite.org/walformat.html): two copies of a
 * 48-byte header, the second written first, so a read between the two
 * writes sees them differ. Null (every durable() syncs) while the file
 * cannot be read; it is opened at the first call that finds it.
 */
export function walIndexCounter(shmFile: string): ChangeCounter & { close(): void } {
  let fd: number | null = null;
  const header = Buffer.alloc(2 * WAL_INDEX_HEADER_BYTES);
  return {
    changes() {
      try {
        fd ??= openSync(shmFile, "r");
        if (readSync(fd, header, 0, header.length, 0) !== header.length) return null;
      } catch {
        return null;
      }
      const initialised = header[WAL_INDEX_IS_INIT] === 1;
      if (!initialised || header.compare(header, WAL_INDEX_HEADER_BYTES, header.length, 0, WAL_INDEX_HEADER_BYTES) !== 0) return null;
      return header.toString("latin1", 0, WAL_INDEX_HEADER_BYTES);
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}
/** The WalIndexHdr struct of SQLite's wal.c, and its isInit byte. */
const WAL_INDEX_HEADER_BYTES = 48;
const WAL_INDEX_IS_INIT = 12;

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
