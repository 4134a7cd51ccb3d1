import { openDatabase, type Database } from "./db/orm.js";
import type { AuthDeps } from "./http/auth.js";
import { openRateLimitStore, type RateLimitStore } from "./http/rate-limit-store.js";
import { getSigningSecrets, resolveApiKey, type SigningSecrets } from "./usecases/clubs.js";
import { testClockAt } from "./usecases/test-clocks/clock.js";
import type { Settings } from "./settings.js";
import { clockOverride } from "./usecases/test-clocks/context.js";

/** The clock every use case reads; tests pass a controllable one. */
export interface Clock {
  now(): Date;
}

/** How long a process reuses a club's signing secrets before reading them again. */
const SECRET_CACHE_MS = 5_000;

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
  /** The shared store of the rate limits (Redis of `CLUBE_REDIS_URL`); null → each process counts in memory. */
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
}

export async function openServices(settings: Settings, overrides: ServiceOverrides = {}): Promise<Services> {
  const base = overrides.clock ?? systemClock;
  // Inside a test-clocked scope's work the clock reads the test clock (usecases/test-clocks/context.ts).
  const clock: Clock = { now: () => clockOverride() ?? base.now() };
  const db = overrides.db ?? (await openDatabase({ databaseUrl: settings.databaseUrl, dataDir: settings.dataDir }));
  // Signing secrets change only when rolled, so they are cached per club and
  // environment for a few seconds rather than read on every token request. A
  // roll in this process drops its entry at once; other processes see it within
  // SECRET_CACHE_MS (a roll's overlap should exceed that, which the contract's
  // overlap makes easy; a token signed meanwhile with the previous secret still
  // verifies during the overlap).
  const secrets = new Map<string, { value: SigningSecrets | null; until: number }>();
  const secretsOf = async (clubId: string, env: "test" | "live"): Promise<SigningSecrets | null> => {
    const cacheKey = `${clubId}:${env}`;
    const cached = secrets.get(cacheKey);
    if (cached && cached.until > Date.now()) return cached.value;
    const value = await getSigningSecrets(db, { clubId, env });
    if (value) secrets.set(cacheKey, { value, until: Date.now() + SECRET_CACHE_MS });
    return value;
  };
  const auth: AuthDeps = {
    resolveApiKey: (raw) => resolveApiKey(db, raw, base.now()),
    async signingSecret(clubId, env) {
      return (await secretsOf(clubId, env))?.current ?? null;
    },
    async verificationSecrets(clubId, env) {
      const found = await secretsOf(clubId, env);
      if (!found) return null;
      return found.previous && found.previous.expiresAt > base.now() ? [found.current, found.previous.secret] : [found.current];
    },
    forgetSigningSecrets: (clubId, env) => void secrets.delete(`${clubId}:${env}`),
    // Tokens expire in real time: they are checked before a test clock applies.
    now: () => base.now(),
    testClockAt: (clubId) => testClockAt(db, clubId),
  };
  const listeners: Array<() => void> = [];
  const rateLimitStore = settings.redisUrl ? openRateLimitStore(settings.redisUrl, settings.redisPrefix) : null;
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
      await rateLimitStore?.close();
      if (!overrides.db) await db.close();
    },
  };
}
