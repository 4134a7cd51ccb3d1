import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The webhook signature scheme of the contract, in one place for the sender
 * (server/src/webhooks/signature.ts) and the verifier of @clube/node
 * (sdk-node/src/webhooks.ts): header `X-Clube-Signature: t=<unix seconds>,v1=<hex>`
 * where the hex is HMAC-SHA256(key = the endpoint secret string exactly as
 * shown to the client, message = `t + "." + raw body`).
 *
 * Node only (node:crypto): @clube/browser never imports it, so its bundle
 * stays free of Node built-ins.
 */

/** The seed's signature age limit: 5 minutes either way. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type SignatureFailure = "missing_header" | "bad_format" | "too_old" | "too_new" | "no_match";
export type SignatureCheck = { ok: true } | { ok: false; reason: SignatureFailure };

export interface ParsedSignatureHeader {
  /** The timestamp exactly as sent: it is part of the signed string. */
  timestamp: string;
  /** Every `v1` value, in order (several while an endpoint's secret is rotated). */
  signatures: string[];
}

/**
 * Splits a header as Stripe's verifier does: comma-separated `scheme=value`
 * pairs in any order; `t` is the timestamp, each `v1` a candidate, any other
 * scheme (`v0`, a future `v2`) is ignored so a scheme can be added without
 * breaking deployed verifiers. `null` without a numeric `t` or any `v1`.
 */
export function parseSignatureHeader(header: string): ParsedSignatureHeader | null {
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

/** The lowercase hex `v1` of `rawBody` signed at `timestamp` (the string exactly as it goes in the header). */
function signatureHex(secret: string, timestamp: string, rawBody: string | Uint8Array): string {
  return createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest("hex");
}

/**
 * The header value for `rawBody` signed at `timestampSeconds`: one `v1` per
 * secret, in the order given (the new and the old secret while one is rotated:
 * any one matching `v1` is enough for a receiver).
 */
export function signatureHeader(secrets: string | readonly string[], rawBody: string | Uint8Array, timestampSeconds: number): string {
  if (!Number.isSafeInteger(timestampSeconds) || timestampSeconds < 0) {
    throw new RangeError(`timestampSeconds must be a non-negative integer, got ${timestampSeconds}`);
  }
  const list = typeof secrets === "string" ? [secrets] : secrets;
  if (list.length === 0) throw new RangeError("at least one secret is needed");
  const t = String(timestampSeconds);
  return [`t=${t}`, ...list.map((secret) => `v1=${signatureHex(secret, t, rawBody)}`)].join(",");
}

/**
 * Checks a received header. The checks run cheapest first — presence, format,
 * age, then the HMAC — so a replayed old capture is refused without computing
 * anything and the reason is always the first check that fails.
 */
export function checkSignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  options: { now: Date; toleranceSeconds?: number },
): SignatureCheck {
  if (header === undefined || header === null || header === "") return { ok: false, reason: "missing_header" };
  const parsed = parseSignatureHeader(header);
  if (!parsed) return { ok: false, reason: "bad_format" };

  const timestamp = Number(parsed.timestamp);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const age = Math.floor(options.now.getTime() / 1000) - timestamp;
  if (!Number.isSafeInteger(timestamp) || age > tolerance) return { ok: false, reason: "too_old" };
  if (-age > tolerance) return { ok: false, reason: "too_new" };

  const expected = Buffer.from(signatureHex(secret, parsed.timestamp, rawBody), "hex");
  // Constant-time, and every candidate is compared (no early exit): timing
  // reveals neither how much of a forged signature was right nor which candidate matched.
  let matched = false;
  for (const candidate of parsed.signatures) {
    if (!/^[0-9a-f]{64}$/.test(candidate)) continue;
    matched = timingSafeEqual(Buffer.from(candidate, "hex"), expected) || matched;
  }
  return matched ? { ok: true } : { ok: false, reason: "no_match" };
}
