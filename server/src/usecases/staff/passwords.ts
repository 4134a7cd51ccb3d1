import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { validationFailed } from "../shared/errors.js";

/*
 * Staff passwords: scrypt from node:crypto, a fresh 16-byte salt each, the
 * parameters stored with the hash (`scrypt$N$r$p$salt$hash`, base64url) so
 * they can be raised later and old hashes still verify. N=2^15, r=8, p=3 is
 * one of OWASP's equivalent scrypt settings (32 MiB per hash).
 */
const PARAMS = { N: 2 ** 15, r: 8, p: 3 } as const;
const KEY_LENGTH = 32;

function scrypt(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize("NFC"), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, PARAMS);
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

/** A hash no password matches, verified when the account does not exist so both answers cost one scrypt run. */
const UNUSABLE_HASH = ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, randomBytes(16).toString("base64url"), randomBytes(KEY_LENGTH).toString("base64url")].join("$");

/** Whether `password` matches `stored`; with `stored` null it does the same work and answers false. */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = (stored ?? UNUSABLE_HASH).split("$");
  const [scheme, n, r, p, salt, hash] = parts.length === 6 ? parts : UNUSABLE_HASH.split("$");
  if (scheme !== "scrypt") return false;
  const expected = Buffer.from(hash, "base64url");
  const actual = await scrypt(password, Buffer.from(salt, "base64url"), { N: Number(n), r: Number(r), p: Number(p) });
  return stored !== null && actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A readable temporary password of 4 groups (about 95 bits), shown once. */
export function temporaryPassword(): string {
  const alphabet = "23456789abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ";
  const bytes = randomBytes(16);
  const chars = [...bytes].map((b) => alphabet[b % alphabet.length]);
  return [0, 4, 8, 12].map((i) => chars.slice(i, i + 4).join("")).join("-");
}

/** Passwords seen most in breaches, at least 12 characters long (shorter ones fail the length rule anyway). */
const COMMON = new Set([
  "123456789012",
  "1234567890123",
  "12345678901234",
  "123456789abc",
  "qwertyuiopas",
  "qwertyuiop123",
  "password1234",
  "password12345",
  "password123!",
  "passwordpassword",
  "iloveyou1234",
  "administrator",
  "adminadmin123",
  "letmein12345",
  "welcome12345",
  "changeme1234",
  "trustno11234",
  "111111111111",
  "000000000000",
  "aaaaaaaaaaaa",
  "abcdefghijkl",
  "abc123abc123",
  "qwerty123456",
  "1q2w3e4r5t6y",
  "1qaz2wsx3edc",
  "zaq12wsxcde3",
  "football1234",
  "baseball1234",
  "superman1234",
  "monkey123456",
  "dragon123456",
  "sunshine1234",
  "princess1234",
  "senha1234567",
  "senhasenha12",
  "mudar1234567",
  "clube1234567",
  "correcthorsebatterystaple",
]);

/**
 * The minimum strength, 422 naming `field` otherwise: 12 to 256 characters, not
 * a well-known password, not the e-mail or its local part, not one repeated character.
 */
export function checkPasswordStrength(password: string, email: string, field: string): void {
  if ([...password].length < 12) throw validationFailed(`${field} must have at least 12 characters`);
  if (password.length > 256) throw validationFailed(`${field} must have at most 256 characters`);
  const lower = password.toLowerCase();
  const mail = email.toLowerCase();
  const local = mail.split("@")[0];
  if (COMMON.has(lower.replace(/\s+/g, ""))) throw validationFailed(`${field} is a commonly used password; choose another`);
  if (lower === mail || lower === local || lower.includes(mail) || (local.length >= 6 && lower.includes(local))) {
    throw validationFailed(`${field} must not contain the e-mail address`);
  }
  if (new Set(lower).size < 4) throw validationFailed(`${field} must use more than 3 different characters`);
}
