import type { Database } from "../db/orm.js";
import type { Env } from "../db/scope.js";
import { cacheTtlFrom } from "../settings.js";
import type { PublishedConfig } from "../usecases/club/index.js";
import type { CacheChange } from "./changes.js";
import { TtlCache } from "./ttl-cache.js";

/** A secret key as the cache holds it: its end is checked on every use, so a rolled key stops at its end. */
export interface CachedKey {
  clubId: string;
  env: Env;
  keyId: string;
  prefix: string;
  expiresAt: Date | null;
}

/** The current signing secret, and the one before the last roll with the end of its overlap. */
export interface SigningSecrets {
  current: string;
  previous: { secret: string; expiresAt: Date } | null;
}

/**
 * The scope's active promotional codes, as far as "is one redeemable now?"
 * needs: whether one has no end, else the latest end. Their status changes
 * only by create and disable, which forget this; their ends pass by time, so
 * the answer is taken at each use (activeCodesAt).
 */
export interface ActiveCodes {
  unending: boolean;
  lastEnd: Date | null;
}

/** Whether a code of `codes` is active at `now` (the same test as the statement's `ends_at is null or ends_at > now`). */
export function activeCodesAt(codes: ActiveCodes, now: Date): boolean {
  return codes.unending || (codes.lastEnd !== null && codes.lastEnd.getTime() > now.getTime());
}

/**
 * What a process keeps in memory of one database so the event path does not
 * ask it on every request: secret keys by hash, the published configuration
 * per club and environment (one object per version, so what the engine builds
 * from it — e.g. the rules indexed by trigger — is built once per publish),
 * and the participant-token signing secrets.
 */
export class Caches {
  readonly apiKeys: TtlCache<CachedKey | null>;
  readonly configs: TtlCache<PublishedConfig | null>;
  readonly signingSecrets: TtlCache<SigningSecrets | null>;
  /** By scope (scopeKey): asked on every GET /v1/me/config. */
  readonly activeCodes: TtlCache<ActiveCodes>;
  /**
   * Filled configurations by club, environment and version. A version's
   * document never changes, so these need no TTL: a new publish is a new
   * version. Dropped with the scope's other entries on a publish.
   */
  readonly documents = new Map<string, PublishedConfig>();

  constructor(readonly ttlMs: number) {
    this.apiKeys = new TtlCache(ttlMs);
    this.configs = new TtlCache(ttlMs);
    this.signingSecrets = new TtlCache(ttlMs);
    this.activeCodes = new TtlCache(ttlMs);
  }

  /** Drops what `change` makes stale. */
  forget(change: CacheChange): void {
    const scope = scopeKey(change);
    if (change.what === "keys") this.apiKeys.forget((_hash, key) => key !== null && key.clubId === change.clubId && key.env === change.env);
    if (change.what === "secrets") this.signingSecrets.forget((key) => key === scope);
    if (change.what === "codes") this.activeCodes.forget((key) => key === scope);
    if (change.what === "config") {
      this.configs.forget((key) => key === scope);
      for (const key of this.documents.keys()) if (key.startsWith(`${scope}:`)) this.documents.delete(key);
    }
  }

  /** Drops everything (the change feed was interrupted: changes may have been missed). */
  forgetAll(): void {
    this.apiKeys.forget();
    this.configs.forget();
    this.signingSecrets.forget();
    this.activeCodes.forget();
  }
}

/** activeCodesAt of the scope's codes when they are in memory (no promise); undefined when they must be read. */
export function knownActiveCodesAt(db: Database, scope: { clubId: string; env: Env }, now: Date): boolean | undefined {
  const codes = cachesOf(db).activeCodes.peek(scopeKey(scope))?.value;
  return codes === undefined ? undefined : activeCodesAt(codes, now);
}

export function scopeKey(scope: { clubId: string; env: Env }): string {
  return `${scope.clubId}:${scope.env}`;
}

// Kept per Database so two databases in one process (tests) never share entries.
const registry = new WeakMap<Database, Caches>();

/**
 * The caches of `db`. The first call fixes the TTL: `openServices` passes the
 * process settings'; a database used without services (CLI commands, tests)
 * takes CLUBE_CACHE_TTL_MS from the environment.
 */
export function cachesOf(db: Database, ttlMs?: number): Caches {
  let caches = registry.get(db);
  if (!caches) registry.set(db, (caches = new Caches(ttlMs ?? cacheTtlFrom(process.env))));
  return caches;
}
