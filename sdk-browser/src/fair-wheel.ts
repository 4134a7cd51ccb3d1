// Verifies provably fair wheel spins in any environment with WebCrypto
// (browsers, Node 20+). Self-contained: the exact mapping of the contract's
// `WheelFairness`:
//   digest = HMAC-SHA256(key = UTF-8 of the server seed, message = UTF-8 of `${clientSeed}:${nonce}`)
//   draw   = first 13 hex digits of the digest / 2^52, in [0, 1)
//   slice  = in wheel order, skipping weight 0, the first whose running sum of
//            weights exceeds draw × total (the last positive slice if rounding passes them all).

export interface FairSpin {
  /** The revealed server seed (after a seed rotation). */
  serverSeed: string;
  /** The SHA-256 commitment shown before the spin. */
  serverSeedHash: string;
  clientSeed: string;
  nonce: number;
  /** The slice weights of the spin's `probabilityVersion`, in wheel order. */
  weights: readonly number[];
  /** The slice index the service reported. */
  index: number;
}

export interface FairSpinCheck {
  /** True when the seed matches its commitment and the seeds land on `index`. */
  valid: boolean;
  hashMatches: boolean;
  /** The slice the seeds land on (null when no weight is positive). */
  index: number | null;
}

const encoder = new TextEncoder();

function hex(buffer: ArrayBuffer): string {
  return Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Lower-case hex SHA-256 of the server seed's text. */
export async function wheelSeedHash(serverSeed: string): Promise<string> {
  return hex(await crypto.subtle.digest("SHA-256", encoder.encode(serverSeed)));
}

/** The spin's uniform draw in [0, 1). */
export async function wheelDraw(serverSeed: string, clientSeed: string, nonce: number): Promise<number> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(serverSeed), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const digest = hex(await crypto.subtle.sign("HMAC", key, encoder.encode(`${clientSeed}:${nonce}`)));
  return Number.parseInt(digest.slice(0, 13), 16) / 2 ** 52;
}

/** The slice index a draw lands on for these weights; null when no weight is positive. */
export function wheelSliceForDraw(weights: readonly number[], draw: number): number | null {
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  if (total <= 0) return null;
  const target = draw * total;
  let cumulative = 0;
  let last: number | null = null;
  for (const [index, weight] of weights.entries()) {
    if (weight <= 0) continue;
    cumulative += weight;
    last = index;
    if (target < cumulative) return index;
  }
  return last;
}

/** Recomputes a spin from its revealed seeds: does the seed match its commitment, and do the seeds land on the reported slice? */
export async function verifyWheelSpin(spin: FairSpin): Promise<FairSpinCheck> {
  const hashMatches = (await wheelSeedHash(spin.serverSeed)) === spin.serverSeedHash.toLowerCase();
  const index = wheelSliceForDraw(spin.weights, await wheelDraw(spin.serverSeed, spin.clientSeed, spin.nonce));
  return { valid: hashMatches && index === spin.index, hashMatches, index };
}
