import { createHmac, timingSafeEqual } from "node:crypto";
import type { WebhookEvent } from "./types.js";

export type WebhookVerificationReason = "missing_header" | "bad_format" | "too_old" | "no_match" | "invalid_json";

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

/**
 * `t=<unix seconds>,v1=<hex>[,v1=<hex>…]` exactly: no spaces, lowercase hex,
 * `t` first. Several `v1` appear while an endpoint's secret is being rotated;
 * one valid signature is enough.
 */
const SIGNATURE_HEADER = /^t=(\d+)((?:,v1=[0-9a-f]{64})+)$/;

export interface ParsedSignatureHeader {
  /** The timestamp exactly as sent: it is part of the signed string. */
  timestamp: string;
  signatures: string[];
}

/** Splits a signature header; `null` when it is not in the documented format. */
export function parseSignatureHeader(header: string): ParsedSignatureHeader | null {
  const match = SIGNATURE_HEADER.exec(header);
  if (!match) return null;
  return { timestamp: match[1], signatures: match[2].slice(1).split(",").map((part) => part.slice("v1=".length)) };
}

/**
 * Checks a webhook's `X-Clube-Signature` and returns its parsed envelope.
 * `rawBody` must be the body exactly as received (string or bytes): the
 * signature covers `t + "." + rawBody`, so a body re-serialised after JSON
 * parsing does not verify. Throws `WebhookVerificationError` on any failure.
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
    throw new WebhookVerificationError("bad_format", "The X-Clube-Signature header is not of the form t=<unix seconds>,v1=<64 lowercase hex>");
  }

  // Checked before the HMAC, in the same order as the server's verifier: a
  // replayed old capture is refused without computing anything.
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(nowSeconds - Number(parsed.timestamp)) > toleranceSeconds) {
    throw new WebhookVerificationError("too_old", `The signature timestamp is more than ${toleranceSeconds} seconds away from now`);
  }

  const expected = createHmac("sha256", secret).update(`${parsed.timestamp}.`).update(rawBody).digest();
  // Constant-time, and every candidate is compared: timing reveals neither how
  // much of a forged signature was right nor which candidate matched.
  let matched = false;
  for (const signature of parsed.signatures) matched = timingSafeEqual(Buffer.from(signature, "hex"), expected) || matched;
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
