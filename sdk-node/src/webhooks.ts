// The scheme (parsing, HMAC, checks) is shared with the server's sender: sdk-shared/src/webhook-signature.ts.
import {
  checkSignature,
  DEFAULT_TOLERANCE_SECONDS,
  parseSignatureHeader,
  signatureHeader as buildSignatureHeader,
  type SignatureFailure,
} from "../../sdk-shared/src/webhook-signature.js";
import type { WebhookEvent } from "./types.js";

export type WebhookVerificationReason = SignatureFailure | "invalid_json";

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

export { parseSignatureHeader };

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
  return buildSignatureHeader(secret, body, timestamp);
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
  const toleranceSeconds = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const check = checkSignature(rawBody, signatureHeader, secret, { now: options.now ?? new Date(), toleranceSeconds });
  if (!check.ok) throw new WebhookVerificationError(check.reason, FAILURE_MESSAGES[check.reason](toleranceSeconds));

  return parseEnvelope(rawBody);
}

const FAILURE_MESSAGES: Record<SignatureFailure, (toleranceSeconds: number) => string> = {
  missing_header: () => "The X-Clube-Signature header is missing",
  bad_format: () => "The X-Clube-Signature header has no t=<unix seconds> or no v1=<hex> signature",
  too_old: (tolerance) => `The signature timestamp is more than ${tolerance} seconds old`,
  too_new: (tolerance) => `The signature timestamp is more than ${tolerance} seconds in the future`,
  no_match: () => "No v1 signature matches this body and secret",
};

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
