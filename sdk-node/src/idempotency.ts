import { randomUUID } from "node:crypto";

/**
 * The key sent with every write whose operation takes an `Idempotency-Key`:
 * the caller's, or a fresh random one. The transport then retries such a
 * write safely, since the server answers a repeated key with the stored result.
 */
export function idempotencyKey(given?: string): string {
  return given ?? randomUUID();
}
