import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The webhook signature scheme of the contract: header
 * `X-Clube-Signature: t=<unix seconds>,v1=<hex>` where the hex is
 * HMAC-SHA256(key = the endpoint secret string exactly as shown to the client,
 * message = `t + "." + raw body`). The SDK's verifier mirrors `verifySignature`
 * case by case, so both must change together.
 */

/** The seed's signature age limit: 5 minutes either way. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/**
 * The only accepted shape: `t` first, then one or more `v1` values, comma
 * separated with no spaces, hex in lower case. Several `v1` values exist so a
 * sender can sign with an old and a new secret while a secret is rotated.
 */
const HEADER_FORMAT = /^t=(\d+)((?:,v1=[0-9a-f]{64})+)$/;

export type VerifyFailure = "missing_header" | "bad_format" | "too_old" | "no_match";
export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure };

export interface VerifyOptions {
  /** The verifier's clock (injected so tests and replays control it). */
  now: Date;
  /** Maximum distance between `t` and `now`, in seconds, in either direction. */
  toleranceSeconds?: number;
}

/** The header value for `rawBody` signed at `timestampSeconds`. */
export function signPayload(secret: string, rawBody: string | Uint8Array, timestampSeconds: number): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`timestampSeconds must be a non-negative integer, got ${timestampSeconds}`);
  }
  const t = String(timestampSeconds);
  return `t=${t},v1=${signatureHex(secret, rawBody, t)}`;
}

/**
 * Checks a received header. The checks run cheapest first — presence, format,
 * age, then the HMAC — so a replayed old request is refused without computing
 * anything and the reason reported is always the first one that fails.
 */
export function verifySignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  options: VerifyOptions,
): VerifyResult {
  if (header === undefined || header === null || header === "") return { ok: false, reason: "missing_header" };
  const match = HEADER_FORMAT.exec(header);
  if (!match) return { ok: false, reason: "bad_format" };

  const timestamp = Number(match[1]);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor(options.now.getTime() / 1000);
  if (!Number.isSafeInteger(timestamp) || Math.abs(nowSeconds - timestamp) > tolerance) {
    return { ok: false, reason: "too_old" };
  }

  // The signed string holds `t` exactly as sent (leading zeros included), not as re-printed.
  const expected = Buffer.from(signatureHex(secret, rawBody, match[1]), "utf8");
  const candidates = match[2].slice(1).split(",").map((part) => Buffer.from(part.slice("v1=".length), "utf8"));
  // Every candidate is compared (no early exit) so timing does not reveal which one matched.
  let matched = false;
  for (const candidate of candidates) matched = timingSafeEqual(candidate, expected) || matched;
  return matched ? { ok: true } : { ok: false, reason: "no_match" };
}

function signatureHex(secret: string, rawBody: string | Uint8Array, t: string): string {
  return createHmac("sha256", secret).update(`${t}.`).update(rawBody).digest("hex");
}
