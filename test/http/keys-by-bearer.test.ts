import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { CachedKey } from "../../server/src/cache/registry.js";
import { TtlCache } from "../../server/src/cache/ttl-cache.js";
import { keysByBearer } from "../../server/src/http/keys-by-bearer.js";

const RAW = "cf_test_0123456789abcdefghijABCDEFGHIJ01";
const hash = (raw: string) => createHash("sha256").update(raw).digest("hex");
const KEY: CachedKey = { clubId: "club_a", env: "test", keyId: "key_1", prefix: RAW.slice(0, 12), expiresAt: null };

/** A keys cache on a clock the test moves, and a resolver that reads through it as resolveApiKey does, counting reads. */
function setup(key: CachedKey | null = KEY, ttlMs = 5_000) {
  let clock = 0;
  let reads = 0;
  let row = key;
  const cache = new TtlCache<CachedKey | null>(ttlMs, 10_000, () => clock);
  const resolve = async (raw: string) => {
    const found = await cache.get(
      hash(raw),
      async () => (reads++, row),
      (value) => value !== null,
    );
    return found ? { clubId: found.clubId, env: found.env, keyId: found.keyId } : null;
  };
  let now = new Date("2026-11-27T12:00:00Z");
  const lookup = keysByBearer(cache, resolve, () => now);
  return {
    cache,
    lookup: async (raw = RAW) => await lookup(raw),
    sync: (raw = RAW) => lookup(raw),
    reads: () => reads,
    advance: (ms: number) => void (clock += ms),
    setRow: (next: CachedKey | null) => void (row = next),
    setNow: (at: Date) => void (now = at),
  };
}

describe("secret keys by bearer text", () => {
  it("answers a known key from memory, without a promise, after the first resolution", async () => {
    const keys = setup();
    expect(await keys.lookup()).toEqual({ clubId: "club_a", env: "test", keyId: "key_1" });
    const again = keys.sync();
    expect(again).not.toBeInstanceOf(Promise);
    expect(again).toEqual({ clubId: "club_a", env: "test", keyId: "key_1" });
    expect(keys.reads()).toBe(1);
  });

  it("never keeps an unknown key", async () => {
    const keys = setup(null);
    expect(await keys.lookup()).toBeNull();
    expect(keys.sync()).toBeInstanceOf(Promise);
    expect(await keys.lookup()).toBeNull();
    expect(keys.reads()).toBe(2);
  });

  it("trusts a key no longer than the keys cache's entry it copied", async () => {
    const keys = setup();
    await keys.lookup();
    keys.advance(4_999);
    expect(keys.sync()).not.toBeInstanceOf(Promise);
    keys.setRow(null); // revoked by another process, which this one hears of only when the entry ends
    keys.advance(1);
    expect(await keys.lookup()).toBeNull();
  });

  it("drops every entry when the keys cache forgets (a revoke, a roll, a missed change)", async () => {
    const keys = setup();
    await keys.lookup();
    keys.setRow(null);
    keys.cache.forget((_hash, key) => key !== null && key.clubId === "club_a");
    expect(await keys.lookup()).toBeNull();
  });

  it("checks a rolled key's end on every use", async () => {
    const keys = setup({ ...KEY, expiresAt: new Date("2026-11-27T12:00:01Z") });
    expect(await keys.lookup()).not.toBeNull();
    keys.setNow(new Date("2026-11-27T12:00:01Z"));
    expect(keys.sync()).toBeNull();
  });

  it("keeps nothing while caching is off", async () => {
    const keys = setup(KEY, 0);
    await keys.lookup();
    expect(keys.sync()).toBeInstanceOf(Promise);
    await keys.lookup();
    expect(keys.reads()).toBe(3);
  });
});
