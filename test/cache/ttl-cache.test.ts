import { describe, expect, it } from "vitest";
import { decodeChange, encodeChange } from "../../server/src/cache/changes.js";
import { Caches } from "../../server/src/cache/registry.js";
import { TtlCache } from "../../server/src/cache/ttl-cache.js";

/** A cache on a clock the test moves by hand, and a read that counts its calls. */
function fixture(ttlMs = 1_000) {
  let now = 0;
  const cache = new TtlCache<string | null>(ttlMs, 100, () => now);
  let reads = 0;
  const read = (value: string | null) => async () => {
    reads += 1;
    return value;
  };
  return { cache, read, reads: () => reads, advance: (ms: number) => void (now += ms) };
}

/** A read the test finishes when it wants, to interleave it with a forget. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe("TtlCache", () => {
  it("answers from memory within the TTL and reads again after it", async () => {
    const { cache, read, reads, advance } = fixture();
    expect(await cache.get("a", read("one"))).toBe("one");
    advance(999);
    expect(await cache.get("a", read("two"))).toBe("one");
    expect(reads()).toBe(1);
    advance(1);
    expect(await cache.get("a", read("two"))).toBe("two");
    expect(reads()).toBe(2);
  });

  it("does not store what `keep` refuses (a key not found stays unknown, so a new key works at once)", async () => {
    const { cache, read, reads } = fixture();
    expect(await cache.get("a", read(null), (value) => value !== null)).toBeNull();
    expect(await cache.get("a", read("made"), (value) => value !== null)).toBe("made");
    expect(reads()).toBe(2);
  });

  it("forgets the entries a change selects, and only those", async () => {
    const { cache, read } = fixture();
    await cache.get("club_a:test", read("a"));
    await cache.get("club_b:test", read("b"));
    cache.forget((key) => key.startsWith("club_a:"));
    expect(await cache.get("club_a:test", read("a2"))).toBe("a2");
    expect(await cache.get("club_b:test", read("b2"))).toBe("b");
  });

  it("never stores a read that was under way when the data changed (it may hold the old row)", async () => {
    const { cache, read } = fixture();
    const slow = deferred<string>();
    const before = cache.get("a", () => slow.promise);
    cache.forget();
    slow.resolve("old");
    expect(await before).toBe("old");
    expect(await cache.get("a", read("new"))).toBe("new");
  });

  it("shares one read between concurrent misses; a failed shared read makes the others read for themselves", async () => {
    const { cache, read, reads } = fixture();
    const first = deferred<string>();
    const answers = [cache.get("a", () => first.promise), cache.get("a", read("unused")), cache.get("a", read("unused"))];
    first.resolve("shared");
    expect(await Promise.all(answers)).toEqual(["shared", "shared", "shared"]);
    expect(reads()).toBe(0);

    const failing = deferred<string>();
    const failed = cache.get("b", () => failing.promise);
    const waiter = cache.get("b", read("own"));
    failing.reject(new Error("transaction ended"));
    await expect(failed).rejects.toThrow("transaction ended");
    expect(await waiter).toBe("own");
  });

  it("reads every time with a TTL of 0 (caching off)", async () => {
    const { cache, read, reads } = fixture(0);
    await cache.get("a", read("one"));
    await cache.get("a", read("one"));
    expect(reads()).toBe(2);
    expect(cache.size).toBe(0);
  });

  it("stays bounded", async () => {
    const { cache, read } = fixture();
    for (let i = 0; i < 250; i++) await cache.get(`k${i}`, read("v"));
    expect(cache.size).toBeLessThanOrEqual(100);
  });
});

describe("Caches", () => {
  it("a key change forgets that club environment's keys only; a publish forgets its config and documents", async () => {
    const caches = new Caches(60_000);
    const key = (clubId: string, env: "test" | "live") => async () => ({ clubId, env, keyId: `key_${clubId}_${env}`, prefix: "cf_test_abcd", expiresAt: null });
    await caches.apiKeys.get("hash-a-test", key("club_a", "test"));
    await caches.apiKeys.get("hash-a-live", key("club_a", "live"));
    await caches.apiKeys.get("hash-b-test", key("club_b", "test"));
    caches.forget({ what: "keys", clubId: "club_a", env: "test" });
    let reread = 0;
    const counted = (clubId: string, env: "test" | "live") => async () => (reread++, await key(clubId, env)());
    await caches.apiKeys.get("hash-a-test", counted("club_a", "test"));
    await caches.apiKeys.get("hash-a-live", counted("club_a", "live"));
    await caches.apiKeys.get("hash-b-test", counted("club_b", "test"));
    expect(reread).toBe(1);

    caches.documents.set("club_a:test:1", { version: 1, publishedAt: new Date(0), config: {} as never });
    caches.documents.set("club_a:live:1", { version: 1, publishedAt: new Date(0), config: {} as never });
    caches.forget({ what: "config", clubId: "club_a", env: "test" });
    expect([...caches.documents.keys()]).toEqual(["club_a:live:1"]);
  });
});

describe("change messages", () => {
  it("round-trip, and anything else on the channel is ignored", () => {
    const change = { what: "config", clubId: "club_x", env: "live" } as const;
    expect(decodeChange(encodeChange(change))).toEqual(change);
    for (const payload of [undefined, "", "not json", "[]", '["config","club_x","prod"]', '["drop","club_x","test"]', '["keys",1,"test"]']) {
      expect(decodeChange(payload)).toBeNull();
    }
  });
});
