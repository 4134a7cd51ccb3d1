import { describe, expect, it } from "vitest";
import { decodeChange, encodeChange } from "../../server/src/cache/changes.js";
import { activeCodesAt, Caches, scopeKey } from "../../server/src/cache/registry.js";

describe("the active promotional codes kept in memory", () => {
  const now = new Date("2026-11-27T12:00:00Z");

  it("answers as the statement did: a code without end, or an end still ahead of the request's time", () => {
    expect(activeCodesAt({ unending: false, lastEnd: null }, now)).toBe(false);
    expect(activeCodesAt({ unending: true, lastEnd: null }, now)).toBe(true);
    expect(activeCodesAt({ unending: false, lastEnd: new Date(now.getTime() + 1) }, now)).toBe(true);
    expect(activeCodesAt({ unending: false, lastEnd: now }, now)).toBe(false);
  });

  it("is forgotten by a `codes` change of its scope only, which travels between processes", async () => {
    const caches = new Caches(60_000);
    const scope = { clubId: "club_a", env: "test" as const };
    await caches.activeCodes.get(scopeKey(scope), async () => ({ unending: true, lastEnd: null }));
    await caches.activeCodes.get(scopeKey({ ...scope, env: "live" }), async () => ({ unending: true, lastEnd: null }));
    const change = decodeChange(encodeChange({ what: "codes", ...scope }));
    expect(change).toEqual({ what: "codes", ...scope });
    caches.forget(change!);
    let read = 0;
    await caches.activeCodes.get(scopeKey(scope), async () => (read++, { unending: false, lastEnd: null }));
    await caches.activeCodes.get(scopeKey({ ...scope, env: "live" }), async () => (read++, { unending: false, lastEnd: null }));
    expect(read).toBe(1);
  });
});
