import { checkSignature, signatureHeader, type SignatureCheck } from "../../../sdk-shared/src/webhook-signature.js";

/**
 * The webhook signature scheme of the contract (header
 * `X-Clube-Signature: t=<unix seconds>,v1=<hex>`), as the server uses it. The
 * scheme itself lives in sdk-shared/src/webhook-signature.ts, which @clube/node's
 * verifier uses too, so sender and verifier cannot drift apart.
 */
export type VerifyResult = SignatureCheck;

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
  return signatureHeader(secret, rawBody, timestampSeconds);
}

/** Checks a received header (the server's own receiver tests and the console's check use it). */
export function verifySignature(rawBody: string | Uint8Array, header: string | null | undefined, secret: string, options: VerifyOptions): VerifyResult {
  return checkSignature(rawBody, header, secret, options);
}
