import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { fairDraw, fairSlice, seedHash } from "../../server/src/engine/wheel/fair.js";
import { verifyWheelSpin, wheelDraw, wheelSeedHash } from "../../sdk-browser/src/fair-wheel.js";

const WEIGHTS = [30, 20, 15, 10, 10, 8, 5, 2];
const slices = WEIGHTS.map((weight) => ({ weight }));
/** Chi-square critical value for 7 degrees of freedom at p = 0.001: a statistic below it means p > 0.001. */
const CHI_SQUARE_7_DOF_P001 = 24.322;

/** Deterministic "server seeds": 64 hex characters each, like the service's. */
const serverSeed = (i: number) => createHash("sha256").update(`deterministic-seed-${i}`).digest("hex");

describe("provably fair wheel", () => {
  it("agrees with the shipped WebCrypto verifier on hash and draw", async () => {
    const seed = serverSeed(1);
    expect(await wheelSeedHash(seed)).toBe(seedHash(seed));
    expect(await wheelDraw(seed, "cliente", 7)).toBe(fairDraw(seed, "cliente", 7));
    expect(fairDraw(seed, "cliente", 7)).not.toBe(fairDraw(seed, "cliente", 8));
  });

  it("10,000 spins from revealed seeds all verify, and their distribution matches the weights (chi-square p > 0.001)", async () => {
    const counts = WEIGHTS.map(() => 0);
    const checks: Promise<boolean>[] = [];
    for (let s = 0; s < 100; s++) {
      const seed = serverSeed(s);
      const hash = seedHash(seed);
      const clientSeed = `player-${s}`;
      for (let nonce = 0; nonce < 100; nonce++) {
        const index = fairSlice(slices, seed, clientSeed, nonce)!;
        counts[index]++;
        checks.push(verifyWheelSpin({ serverSeed: seed, serverSeedHash: hash, clientSeed, nonce, weights: WEIGHTS, index }).then((check) => check.valid));
      }
    }
    const verified = await Promise.all(checks);
    expect(verified.filter(Boolean)).toHaveLength(10_000);

    const total = WEIGHTS.reduce((a, b) => a + b, 0);
    const chiSquare = WEIGHTS.reduce((sum, weight, i) => {
      const expected = (10_000 * weight) / total;
      return sum + (counts[i] - expected) ** 2 / expected;
    }, 0);
    expect(chiSquare).toBeLessThan(CHI_SQUARE_7_DOF_P001);
  });

  it("refuses a spin whose seed does not match its commitment or whose slice differs", async () => {
    const seed = serverSeed(3);
    const index = fairSlice(slices, seed, "c", 0)!;
    const honest = { serverSeed: seed, serverSeedHash: seedHash(seed), clientSeed: "c", nonce: 0, weights: WEIGHTS, index };
    expect((await verifyWheelSpin(honest)).valid).toBe(true);
    expect((await verifyWheelSpin({ ...honest, serverSeed: serverSeed(4) })).hashMatches).toBe(false);
    expect((await verifyWheelSpin({ ...honest, index: (index + 1) % WEIGHTS.length })).valid).toBe(false);
  });
});
