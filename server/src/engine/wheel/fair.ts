import { createHash, createHmac } from "node:crypto";
import { pickSlice, type WheelSliceConfig } from "../wheel.js";

/*
 * The provably fair wheel (commit–reveal), pure and deterministic: the same
 * server seed, client seed and nonce always land on the same slice, so anyone
 * holding the revealed server seed can recompute every spin. The exact mapping
 * (documented in spec/surface/wheel.tsp, `WheelFairness`, and implemented
 * again with WebCrypto in sdk-browser/src/fair-wheel.ts):
 *
 *   digest = HMAC-SHA256(key = UTF-8 of the server seed as written (64 hex
 *            characters), message = UTF-8 of `${clientSeed}:${nonce}`)
 *   draw   = the first 13 hex digits of the digest (52 bits) as an integer / 2^52, in [0, 1)
 *   slice  = walk the slices in configuration order, skipping weight 0,
 *            adding weights; the first whose running sum exceeds draw × total weight
 *            (the last positive slice when rounding leaves the draw past every boundary)
 */

/** A server seed's public commitment: lower-case hex SHA-256 of its text. */
export function seedHash(serverSeed: string): string {
  return createHash("sha256").update(serverSeed, "utf8").digest("hex");
}

/** The spin's uniform draw in [0, 1) from its seeds and nonce (52 bits: exact in a double). */
export function fairDraw(serverSeed: string, clientSeed: string, nonce: number): number {
  const digest = createHmac("sha256", Buffer.from(serverSeed, "utf8")).update(`${clientSeed}:${nonce}`, "utf8").digest("hex");
  return Number.parseInt(digest.slice(0, 13), 16) / 2 ** 52;
}

/** The slice index the seeds and nonce land on; null when no slice has a positive weight. */
export function fairSlice(slices: readonly Pick<WheelSliceConfig, "weight">[], serverSeed: string, clientSeed: string, nonce: number): number | null {
  const draw = fairDraw(serverSeed, clientSeed, nonce);
  return pickSlice(slices as WheelSliceConfig[], () => draw);
}
