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

export type VerifyFailure = "missing_header" | "bad_format" | "too_old" | "too_new" | "no_match";
export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure };

export interface VerifyOptions {
  /** The verifier's clock (injected so tests and replays control it). */
  now: Date;
  /** Maximum distance between `t` and `now`, in seconds, in either direction. */
  toleranceSeconds?: number;
}

/**
 * The header value for `rawBody` signed at `timestampSeconds`: one `v1` per
 * secret, in the order given. While an endpoint's secret is being rotated the
 * sender passes the new and the old secret, so a receiver still holding the
 * old one keeps verifying (any one matching `v1` is enough).
 */
export function signPayload(secret: string | readonly string[], rawBody: string | Uint8Array, timestampSeconds: number): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`timestampSeconds must be a non-negative integer, got ${timestampSeconds}`);
  }
  const t = String(timestampSeconds);
  const secrets = typeof secret === "string" ? [secret] : secret;
  if (secrets.length === 0) throw new RangeError("at least one secret is needed");
  return [`t=${t}`, ...secrets.map((s) => `v1=${signatureHex(s, rawBody, t)}`)].join(",");
}

/**
 * Splits a header as Stripe's verifier does: comma-separated `scheme=value`
 * pairs in any order; `t` is the timestamp, each `v1` a candidate, any other
 * scheme (`v0`, a future `v2`) is ignored so a scheme can be added without
 * breaking deployed verifiers. `null` without a numeric `t` or any `v1`.
 */
export function parseSignatureHeader(header: string): { timestamp: string; signatures: string[] } | null {
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const item of header.split(",")) {
    const at = item.indexOf("=");
    if (at < 0) continue;
    const scheme = item.slice(0, at);
    const value = item.slice(at + 1);
    if (scheme === "t") timestamp = value;
    else if (scheme === "v1") signatures.push(value);
  }
  if (timestamp === undefined || !/^\d+$/.test(timestamp) || signatures.length === 0) return null;
  return { timestamp, signatures };
}

/**
 * Checks a received header (the reference the SDK verifier mirrors). The
 * checks run cheapest first — presence, format, age, then the HMAC — so a
 * replayed old request is refused without computing anything and the reason
 * reported is always the first one that fails.
 */
export function verifySignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  options: VerifyOptions,
): VerifyResult {
  if (header === undefined || header === null || header === "") return { ok: false, reason: "missing_header" };
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, reason: "bad_format" };

  const timestamp = Number(parsed.timestamp);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const age = Math.floor(options.now.getTime() / 1000) - timestamp;
  if (!Number.isSafeInteger(timestamp) || age > tolerance) return { ok: false, reason: "too_old" };
  if (-age > tolerance) return { ok: false, reason: "too_new" };

  // The signed string holds `t` exactly as sent (leading zeros included), not as re-printed.
  const expected = Buffer.from(signatureHex(secret, rawBody, parsed.timestamp), "hex");
  // Every candidate is compared (no early exit) so timing does not reveal which one matched.
  let matched = false;
  for (const candidate of parsed.signatures) {
    if (!/^[0-9a-f]{64}$/.test(candidate)) continue;
    matched = timingSafeEqual(Buffer.from(candidate, "hex"), expected) || matched;
  }
  return matched ? { ok: true } : { ok: false, reason: "no_match" };
}

function signatureHex(secret: string, rawBody: string | Uint8Array, t: string): string {
  return createHmac("sha256", secret).update(`${t}.`).update(rawBody).digest("hex");
}
