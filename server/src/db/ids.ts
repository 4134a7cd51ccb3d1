import { randomBytes } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** The prefixes in use, so a stray id in a log says what it points at. */
export type IdPrefix =
  | "club" | "key" | "sec" | "cfg" | "cbp" | "par" | "bal" | "led" | "lot" | "evt" | "run" | "msp"
  | "rwd" | "dlv" | "bdg" | "lbe" | "red" | "rfl" | "aff" | "att" | "ntf" | "chk" | "spn" | "gam"
  | "wrn" | "we" | "out" | "whd" | "job" | "cbk" | "trv" | "tst" | "tse" | "wsd" | "clk" | "btr" | "pcd" | "cre";

/**
 * Random base62 characters from the crypto RNG. Bytes ≥ 248 are discarded so
 * every character is equally likely (248 = 4 × 62).
 */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

/** A new opaque id such as `par_4kT9…`: 24 base62 characters ≈ 143 bits, so collisions are not a concern. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(24)}`;
}
