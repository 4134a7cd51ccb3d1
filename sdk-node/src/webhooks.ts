import { createHmac, timingSafeEqual } from "node:crypto";
import type { WebhookEvent } from "./types.js";

export type WebhookVerificationReason = "missing_header" | "bad_format" | "too_old" | "too_new" | "no_match" | "invalid_json";

/** Why a webhook was refused; answer such a request with 400 and do not process it. */
export class WebhookVerificationError extends Error {
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.name = "WebhookVerificationError";
    this.reason = reason;
  }
}

export interface VerifyWebhookOptions {
  /** Largest accepted distance between the signature's `t` and now, either way. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The current time; defaults to the system clock. */
  now?: Date;
}

export interface ParsedSignatureHeader {
  /** The timestamp exactly as sent: it is part of the signed string. */
  timestamp: string;
  /** Every `v1` value, in order (several while an endpoint's secret is rotated). */
  signatures: string[];
}

/**
 * Splits a signature header the way Stripe's verifier does: comma-separated
 * `scheme=value` pairs in any order; `t` is the timestamp, every `v1` a
 * candidate signature, and other schemes (`v0`, a future `v2`) are ignored,
 * so a sender may add a scheme without breaking deployed verifiers.
 * `null` when there is no numeric `t` or no `v1`.
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

function signatureHex(secret: string, timestamp: string, rawBody: string | Uint8Array): string {
  return createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest("hex");
}

export interface SignTestOptions {
  /** The signing time in Unix seconds; defaults to now. */
  timestamp?: number;
}

/**
 * A valid `X-Clube-Signature` for `payload` signed with `secret`, for your own
 * tests of a webhook receiver. An object payload is signed as
 * `JSON.stringify(payload)`: send exactly that string as the body.
 */
export function signTestWebhook(payload: string | object, secret: string, options: SignTestOptions = {}): string {
  if (!secret) throw new TypeError("secret must be the endpoint's signing secret (whsec_…)");
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new RangeError("timestamp must be Unix seconds");
  const body = typeof payload === "string" ? payload : JSON.stringify(payload);
  return `t=${timestamp},v1=${signatureHex(secret, String(timestamp), body)}`;
}

/**
 * Checks a webhook's `X-Clube-Signature` and returns its parsed envelope.
 * `rawBody` must be the body exactly as received (string or bytes): the
 * signature covers `t + "." + rawBody`, so a body re-serialised after JSON
 * parsing does not verify. Accepts what Stripe's `constructEvent` accepts for
 * the same header, and refuses a timestamp too far in the future as well as
 * too old. Throws `WebhookVerificationError` on any failure.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  signatureHeader: string | null | undefined,
  secret: string,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  if (typeof rawBody !== "string" && !(rawBody instanceof Uint8Array)) {
    // A common mistake is passing the body after a JSON body parser ran.
    throw new TypeError("rawBody must be the raw request body (a string or a Buffer), read before any JSON parsing");
  }
  if (!secret) throw new TypeError("secret must be the endpoint's signing secret (whsec_…)");
  if (!signatureHeader) throw new WebhookVerificationError("missing_header", "The X-Clube-Signature header is missing");

  const parsed = parseSignatureHeader(signatureHeader);
  if (!parsed) {
    throw new WebhookVerificationError("bad_format", "The X-Clube-Signature header has no t=<unix seconds> or no v1=<hex> signature");
  }

  // Checked before the HMAC: a replayed old capture is refused without computing anything.
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const age = nowSeconds - Number(parsed.timestamp);
  if (age > toleranceSeconds) {
    throw new WebhookVerificationError("too_old", `The signature timestamp is more than ${toleranceSeconds} seconds old`);
  }
  if (-age > toleranceSeconds) {
    throw new WebhookVerificationError("too_new", `The signature timestamp is more than ${toleranceSeconds} seconds in the future`);
  }

  const expected = Buffer.from(signatureHex(secret, parsed.timestamp, rawBody), "hex");
  // Constant-time, and every candidate is compared: timing reveals neither how
  // much of a forged signature was right nor which candidate matched.
  let matched = false;
  for (const signature of parsed.signatures) {
    if (!/^[0-9a-f]{64}$/.test(signature)) continue;
    matched = timingSafeEqual(Buffer.from(signature, "hex"), expected) || matched;
  }
  if (!matched) {
    throw new WebhookVerificationError("no_match", "No v1 signature matches this body and secret");
  }

  return parseEnvelope(rawBody);
}

function parseEnvelope(rawBody: string | Uint8Array): WebhookEvent {
  let value: unknown;
  try {
    value = JSON.parse(typeof rawBody === "string" ? rawBody : new TextDecoder("utf-8", { fatal: true }).decode(rawBody));
  } catch (err) {
    throw new WebhookVerificationError("invalid_json", `The body is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new WebhookVerificationError("invalid_json", "The body is not a JSON object");
  }
  return value as WebhookEvent;
}
