import { randomFillSync } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** The prefixes in use, so a stray id in a log says what it points at. */
export type IdPrefix =
  | "club"
  | "key"
  | "sec"
  | "cfg"
  | "cbp"
  | "par"
  | "bal"
  | "led"
  | "lot"
  | "evt"
  | "run"
  | "msp"
  | "rwd"
  | "dlv"
  | "bdg"
  | "lbe"
  | "red"
  | "rfl"
  | "aff"
  | "att"
  | "ntf"
  | "chk"
  | "spn"
  | "gam"
  | "wrn"
  | "we"
  | "out"
  | "whd"
  | "job"
  | "cbk"
  | "trv"
  | "tst"
  | "tse"
  | "wsd"
  | "clk"
  | "btr"
  | "pcd"
  | "cre"
  | "stf"
  | "sess"
  | "aud"
  | "snr";

/**
 * Random base62 characters are drawn from a pool refilled from the crypto
 * RNG 4 KiB of bytes at a time: one RNG call per ~160 ids instead of one per
 * id (the event path mints several ids per event). Bytes ≥ 248 are discarded
 * so every character is equally likely (248 = 4 × 62); each character is
 * handed out once.
 *
 * The pool is kept as one string, made once per refill, and an id's random
 * part is a slice of it: one flat piece per id, without a call into the
 * runtime per id nor a chain of string pieces held until the batch writes.
 * Why: docs/performance-log.md#id-pool
 */
const POOL_SIZE = 4096;
const bytes = Buffer.alloc(POOL_SIZE);
const chars = Buffer.alloc(POOL_SIZE);
const BASE62_CODES = Buffer.from(BASE62, "latin1");
let pool = "";
let poolOffset = 0;

function refill(): void {
  randomFillSync(bytes);
  let length = 0;
  for (let i = 0; i < POOL_SIZE; i++) {
    const byte = bytes[i];
    if (byte < 248) chars[length++] = BASE62_CODES[byte % 62];
  }
  pool = chars.toString("latin1", 0, length);
  poolOffset = 0;
}

/** `length` random base62 characters from the crypto RNG (see the pool above). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    // The characters left unused at the end of a pool are dropped: each is still handed out at most once.
    if (poolOffset === pool.length || (out.length === 0 && pool.length - poolOffset < length && pool.length > length)) refill();
    const take = Math.min(length - out.length, pool.length - poolOffset);
    out += pool.slice(poolOffset, poolOffset + take);
    poolOffset += take;
  }
  return out;
}

/** A new opaque id such as `par_4kT9…`: 24 base62 characters ≈ 143 bits, so collisions are not a concern. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(24)}`;
}

/** Date.now() as 8 base62 characters, most significant first (fixed width, so text order is time order until the year 8,000,000). */
function timeBase62(ms: number): string {
  let out = "";
  for (let i = 0; i < 8; i++) {
    out = BASE62[ms % 62] + out;
    ms = Math.floor(ms / 62);
  }
  return out;
}
let lastMs = -1;
let lastTime = "";

/**
 * A new id of the same shape as newId's (`evt_` + 24 base62 characters)
 * whose first 8 characters are the creation time in milliseconds and the
 * other 16 random (≈ 95 bits per millisecond, so collisions are still not a
 * concern). For the rows the event path inserts by the hundred per batch
 * (events, rule runs, ledger entries, outbox messages, notifications): their
 * primary-key index then grows at its end, where a random id puts every
 * insert on a different page of an ever larger index — one page written to
 * the SQLite WAL (and read back, and checkpointed) per row, a scattered
 * b-tree insert on PostgreSQL. Not for ids that must be unguessable.
 */
export function newTimeOrderedId(prefix: IdPrefix): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastTime = timeBase62(now);
  }
  return `${prefix}_${lastTime}${randomBase62(16)}`;
}
