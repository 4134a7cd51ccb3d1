import { describe, expect, it } from "vitest";
import { RateLimiterMemory } from "rate-limiter-flexible";
import { FixedWindows } from "../../server/src/http/rate-limit.js";

/*
 * FixedWindows counts in this process what RateLimiterMemory counted before
 * (http/rate-limit.ts): the same windows, the same counts and the same time
 * left, answered without a promise.
 */
describe("FixedWindows", () => {
  const limit = { points: 3, seconds: 10 };

  it("counts a key's requests in a window that starts at its first request, and counts refused ones too", () => {
    let now = 1_000_000;
    const windows = new FixedWindows(() => now);
    expect(windows.consume("k", "a", limit)).toEqual({ consumedPoints: 1, remainingPoints: 2, msBeforeNext: 10_000 });
    now += 4_000;
    expect(windows.consume("k", "a", limit)).toEqual({ consumedPoints: 2, remainingPoints: 1, msBeforeNext: 6_000 });
    windows.consume("k", "a", limit);
    // Over the points: refused by the caller, still counted.
    expect(windows.consume("k", "a", limit)).toEqual({ consumedPoints: 4, remainingPoints: 0, msBeforeNext: 6_000 });
    // Other ids and other prefixes have windows of their own.
    expect(windows.consume("k", "b", limit).consumedPoints).toBe(1);
    expect(windows.consume("other", "a", limit).consumedPoints).toBe(1);
    // The window ends 10 s after its first request; the next request starts a new one.
    now += 6_000;
    expect(windows.consume("k", "a", limit)).toEqual({ consumedPoints: 1, remainingPoints: 2, msBeforeNext: 10_000 });
  });

  it("drops ended windows, so a key seen once does not stay in memory", () => {
    let now = 0;
    const windows = new FixedWindows(() => now);
    for (let i = 0; i < 100; i++) windows.consume("k", `once-${i}`, limit);
    now += 10_000;
    windows.consume("k", "later", limit);
    expect((windows as unknown as { windows: Map<string, unknown> }).windows.size).toBe(1);
  });

  it("agrees with RateLimiterMemory on counts and refusals", async () => {
    const windows = new FixedWindows();
    const memory = new RateLimiterMemory({ points: limit.points, duration: limit.seconds, keyPrefix: "k" });
    for (let i = 0; i < 6; i++) {
      const ours = windows.consume("k", "a", limit);
      const theirs = await memory.consume("a").catch((refused: { consumedPoints: number; remainingPoints: number }) => refused);
      expect([ours.consumedPoints, ours.remainingPoints]).toEqual([theirs.consumedPoints, theirs.remainingPoints]);
    }
  });
});
