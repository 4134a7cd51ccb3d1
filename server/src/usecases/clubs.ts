import { randomBytes } from "node:crypto";
import type { components } from "../../../generated/types.js";
import { ApiKey, Club, ClubSecret, ConfigVersion } from "../db/entities/index.js";
import { newId } from "../db/ids.js";
import type { Database } from "../db/orm.js";
import { ENVS, type Env, type Scope } from "../db/scope.js";
import { hashKey, keyEnv, keyLast4, keyPrefix, newApiKey, sameHash } from "./api-keys.js";
import { validateClubConfig } from "./config.js";
import { notFound, validationFailed } from "./errors.js";
import { starterConfig } from "./starter-config.js";

export interface CreatedClub {
  club_id: string;
  /** The secret keys, shown only now: only their hashes are stored. */
  keys: Record<Env, string>;
}

export interface ResolvedKey {
  clubId: string;
  env: Env;
  keyId: string;
  prefix: string;
}

export type KeyInfo = components["schemas"]["KeyInfo"];

const CLUB_NAME_MAX = 120;

/**
 * Creates a club with a secret key and a token signing secret per
 * environment, and publishes its configuration as version 1 in both
 * environments: `config` when given (validated like a draft, 422 naming
 * `config.<path>`), otherwise the starter configuration.
 */
export async function createClub(db: Database, input: { name: string; config?: unknown }, now = new Date()): Promise<CreatedClub> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > CLUB_NAME_MAX) throw validationFailed(`name must have 1 to ${CLUB_NAME_MAX} characters`);
  const config = input.config === undefined ? starterConfig(name) : input.config;
  validateClubConfig(config);

  const clubId = newId("club");
  const keys = { test: newApiKey("test"), live: newApiKey("live") };
  await db.em().transactional(async (em) => {
    em.create(Club, { id: clubId, name, createdAt: now });
    for (const env of ENVS) {
      em.create(ApiKey, { id: newId("key"), clubId, env, prefix: keyPrefix(keys[env]), last4: keyLast4(keys[env]), hash: hashKey(keys[env]), createdAt: now });
      em.create(ClubSecret, { id: newId("sec"), clubId, env, tokenSigningSecret: randomBytes(32).toString("base64url"), createdAt: now });
      em.create(ConfigVersion, {
        id: newId("cfg"), clubId, env, version: 1, status: "published", config: config as Record<string, unknown>,
        createdAt: now, updatedAt: now, publishedAt: now,
      });
    }
  });
  return { club_id: clubId, keys };
}

/**
 * The club and environment a secret key belongs to, or null when the key is
 * malformed, unknown, revoked or past the end a roll gave it. The format is
 * checked before any lookup; the prefix finds the candidates and the hashes
 * are compared in constant time.
 */
export async function resolveApiKey(db: Database, raw: string, now = new Date()): Promise<ResolvedKey | null> {
  const env = keyEnv(raw);
  if (!env) return null;
  const prefix = keyPrefix(raw);
  const hash = hashKey(raw);
  const candidates = await db.em().find(ApiKey, { prefix, env, revokedAt: null });
  const key = candidates.find((candidate) => sameHash(candidate.hash, hash) && (!candidate.expiresAt || candidate.expiresAt > now));
  return key ? { clubId: key.clubId, env: key.env, keyId: key.id, prefix: key.prefix } : null;
}

/** GET /v1/key: what the calling key is. */
export async function getKeyInfo(db: Database, scope: Scope, keyId: string): Promise<KeyInfo> {
  const em = db.em();
  const key = await em.findOne(ApiKey, { id: keyId, ...scope });
  const club = key && (await em.findOne(Club, { id: key.clubId }));
  if (!key || !club) throw notFound("The key");
  return { club_id: club.id, club_name: club.name, env: key.env, mode: "secret", key_prefix: key.prefix, created_at: key.createdAt.toISOString() };
}

/** The participant-token signing secret of a club and environment, or null when the club has none. */
export async function getSigningSecret(db: Database, scope: Scope): Promise<string | null> {
  return (await getSigningSecrets(db, scope))?.current ?? null;
}

/** The current signing secret, and the one before the last roll with the end of its overlap. */
export interface SigningSecrets {
  current: string;
  previous: { secret: string; expiresAt: Date } | null;
}

export async function getSigningSecrets(db: Database, scope: Scope): Promise<SigningSecrets | null> {
  const row = await db.em().findOne(ClubSecret, scope, { fields: ["tokenSigningSecret", "previousTokenSigningSecret", "previousExpiresAt"] });
  if (!row) return null;
  const previous =
    row.previousTokenSigningSecret && row.previousExpiresAt ? { secret: row.previousTokenSigningSecret, expiresAt: row.previousExpiresAt } : null;
  return { current: row.tokenSigningSecret, previous };
}
