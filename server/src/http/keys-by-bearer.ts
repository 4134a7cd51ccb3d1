import { createHash } from "node:crypto";
import type { CachedKey } from "../cache/registry.js";
import type { TtlCache } from "../cache/ttl-cache.js";
import type { ResolvedKey } from "./auth.js";

/**
 * Secret keys by their bearer text, in front of the keys cache (cache/registry.ts, by the key's SHA-256):
 * a request with a key seen before skips the hash and the cache's promise. An entry copies a live entry of
 * that cache, ends when it ends and is dropped by any `forget` of it, so a revoked or rolled key is trusted
 * no longer than there; a rolled key's end is checked on every use, as there. Only known keys are kept.
 */
export function keysByBearer(
  byHash: TtlCache<CachedKey | null>,
  resolve: (raw: string) => Promise<ResolvedKey | null>,
  now: () => Date,
  maxEntries = 1_000,
): (raw: string) => ResolvedKey | null | Promise<ResolvedKey | null> {
  const entries = new Map<string, { key: CachedKey; resolved: ResolvedKey; until: number; generation: number }>();
  return (raw) => {
    const entry = entries.get(raw);
    if (entry) {
      if (entry.generation === byHash.generation && entry.until > byHash.clock()) {
        return entry.key.expiresAt !== null && entry.key.expiresAt <= now() ? null : entry.resolved;
      }
      entries.delete(raw);
    }
    return resolve(raw).then((resolved) => {
      // The keys cache's entry of this key, found by the hash it is kept under (none when caching is off).
      const live = resolved ? byHash.peek(sha256(raw)) : undefined;
      if (resolved && live?.value && live.value.keyId === resolved.keyId) {
        if (entries.size >= maxEntries) entries.clear();
        const copy: ResolvedKey = { clubId: resolved.clubId, env: resolved.env, keyId: resolved.keyId };
        entries.set(raw, { key: live.value, resolved: copy, until: live.until, generation: byHash.generation });
      }
      return resolved;
    });
  };
}

function sha256(raw: string): string {
  return createHash("sha256").update(raw).digest("hex");
}
