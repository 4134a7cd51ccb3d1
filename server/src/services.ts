import { listenForChanges, type ChangeListener } from "./cache/listener.js";
import { cachesOf } from "./cache/registry.js";
import { openDatabase, type Database } from "./db/orm.js";
import type { AuthDeps } from "./http/auth.js";
import { keysByBearer } from "./http/keys-by-bearer.js";
import { openRateLimitStore, type RateLimitStore } from "./http/rate-limit-store.js";
import { getSigningSecrets, resolveApiKey } from "./usecases/club/index.js";
import { knownTestClockAt, testClockAt } from "./usecases/sandbox/index.js";
import type { Settings } from "./settings.js";
import { clockOverride } from "./usecases/sandbox/index.js";
import { resolveSession } from "./usecases/staff/index.js";

/** The clock every use case reads; tests pass a controllable one. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** What handlers and workers share within one process. */
export interface Services {
  settings: Settings;
  db: Database;
  /** The clock of the work under way: a test clock's time inside a clocked test environment's work. */
  clock: Clock;
  /** Real time (or the clock a test passed), never a test clock. */
  realClock?: Clock;
  auth: AuthDeps;
  /**
   * The shared store of the rate limits (Redis of `CLUBE_REDIS_URL`); null → each process counts in memory,
   * and always null in a process that serves no API (`servesApi: false`).
   */
  rateLimitStore: RateLimitStore | null;
  /**
   * Called after a transaction wrote outbox rows (webhooks, queued events), so
   * an in-process relay hands them to the queue now rather than on its next
   * tick. A no-op until workers run in this process (`onJobsChanged`).
   */
  jobsChanged(): void;
  onJobsChanged(listener: () => void): void;
  close(): Promise<void>;
}

export interface ServiceOverrides {
  clock?: Clock;
  /** An already open database (tests open their own). */
  db?: Database;
  /**
   * Whether this process answers API requests (default true). Only the API
   * checks rate limits, so a process that serves none (`clube worker`) opens
   * no Redis connection even when `CLUBE_REDIS_URL` is set.
   */
  servesApi?: boolean;
}

export async function openServices(settings: Settings, overrides: ServiceOverrides = {}): Promise<Services> {
  const base = overrides.clock ?? systemClock;
  // Inside a test-clocked scope's work the clock reads the test clock (usecases/sandbox/test-clock-context.ts).
  const clock: Clock = { now: () => clockOverride() ?? base.now() };
  // A long-running process syncs the embedded file's commits off the event loop, before it answers (db/wal-sync.ts).
  const db = overrides.db ?? (await openDatabase({ databaseUrl: settings.databaseUrl, dataDir: settings.dataDir, syncEachCommit: false }));
  // Keys, published configs and signing secrets are kept in memory (cache/registry.ts).
  // On PostgreSQL every process hears the changes others commit at once; on SQLite
  // (one host, no NOTIFY) another process's change shows when the entry expires.
  const caches = cachesOf(db, settings.cacheTtlMs);
  const clientUrl = db.orm.config.get("clientUrl");
  const listener: ChangeListener | null =
    db.dialect === "postgresql" && clientUrl && caches.ttlMs > 0
      ? await listenForChanges(clientUrl, {
          onChange: (change) => caches.forget(change),
          onGap: () => caches.forgetAll(),
          log: (message) => console.error(message),
        })
      : null;
  const auth: AuthDeps = {
    resolveApiKey: keysByBearer(
      caches.apiKeys,
      (raw) => resolveApiKey(db, raw, base.now()),
      () => base.now(),
    ),
    async signingSecret(clubId, env) {
      return (await getSigningSecrets(db, { clubId, env }))?.current ?? null;
    },
    async verificationSecrets(clubId, env) {
      const found = await getSigningSecrets(db, { clubId, env });
      if (!found) return null;
      return found.previous && found.previous.expiresAt > base.now() ? [found.current, found.previous.secret] : [found.current];
    },
    // Tokens expire in real time: they are checked before a test clock applies.
    now: () => base.now(),
    // At once when known: every request of a test environment asks.
    testClockAt: (clubId) => {
      const known = knownTestClockAt(clubId);
      return known === undefined ? testClockAt(db, clubId) : known;
    },
    staff: {
      // Sessions expire in real time, like tokens.
      resolve: (token) => resolveSession(db, token, base.now(), { idleMs: settings.staffSessionIdleMs, maxMs: settings.staffSessionMaxMs }),
      publicOrigin: new URL(settings.publicUrl).origin,
    },
  };
  const listeners: Array<() => void> = [];
  const rateLimitStore = settings.redisUrl && overrides.servesApi !== false ? openRateLimitStore(settings.redisUrl, settings.redisPrefix) : null;
  return {
    settings,
    db,
    clock,
    realClock: base,
    auth,
    rateLimitStore,
    jobsChanged: () => listeners.forEach((listener) => listener()),
    onJobsChanged: (listener) => void listeners.push(listener),
    async close() {
      await listener?.close();
      await rateLimitStore?.close();
      if (!overrides.db) await db.close();
    },
  };
}
