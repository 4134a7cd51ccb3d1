import { createHash, timingSafeEqual } from "node:crypto";
import { randomBase62 } from "../../db/ids.js";
import type { Env } from "../../db/scope.js";

/**
 * Secret keys: `cf_test_` or `cf_live_` followed by 32 base62 characters
 * (≈190 bits). Only the SHA-256 of a key is stored — a key has enough entropy
 * that a slow hash would add nothing — and the first 12 characters are kept
 * in clear to find candidates and to show which key is which.
 */
const KEY_FORMAT = /^cf_(test|live)_[0-9A-Za-z]{32}$/;
export const KEY_PREFIX_LENGTH = 12;

export function newApiKey(env: Env): string {
  return `cf_${env}_${randomBase62(32)}`;
}

/** The environment a well-formed key selects, or null for anything else. */
export function keyEnv(raw: string): Env | null {
  const match = KEY_FORMAT.exec(raw);
  return match ? (match[1] as Env) : null;
}

export function keyPrefix(raw: string): string {
  return raw.slice(0, KEY_PREFIX_LENGTH);
}

/** The last 4 characters, shown beside the prefix so two keys with one prefix can be told apart. */
export function keyLast4(raw: string): string {
  return raw.slice(-4);
}

export function hashKey(raw: string): string {
  return createHash("sha256").update(raw).digest("hex");
}

/** Compares two hex SHA-256 digests in constant time. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
}
