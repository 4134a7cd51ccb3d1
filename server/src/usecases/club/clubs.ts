import { randomBytes } from "node:crypto";
import type { components } from "../../../../generated/types.js";
import { cachesOf, scopeKey, type CachedKey, type SigningSecrets } from "../../cache/registry.js";
import { ApiKey, Club, ClubSecret, ConfigVersion } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import { ENVS, type Env, type Scope } from "../../db/scope.js";
import { hashKey, keyEnv, keyLast4, keyPrefix, newApiKey, sameHash } from "./api-key-format.js";
import { validateClubConfig } from "./config.js";
import { notFound, validationFailed } from "../shared/errors.js";
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
export type { SigningSecrets };

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
        id: newId("cfg"),
        clubId,
        env,
        version: 1,
        status: "published",
        config: config as Record<string, unknown>,
        createdAt: now,
        updatedAt: now,
        publishedAt: now,
      });
    }
  });
  return { club_id: clubId, keys };
}

/**
 * The club and environment a secret key belongs to, or null when the key is
 * malformed, unknown, revoked or past the end a roll gave it. The format is
 * checked before any lookup. Known keys are kept in memory by hash for the
 * cache TTL (cache/registry.ts; forgotten at once on create/roll/revoke); the
 * end of a rolled key is checked on every call. Unknown keys are never
 * cached, so a key made by another process works at once.
 */
export async function resolveApiKey(db: Database, raw: string, now = new Date()): Promise<ResolvedKey | null> {
  const env = keyEnv(raw);
  if (!env) return null;
  const hash = hashKey(raw);
  const key = await cachesOf(db).apiKeys.get(
    hash,
    () => findApiKey(db, raw, env, hash),
    (found) => found !== null,
  );
  if (!key || (key.expiresAt && key.expiresAt <= now)) return null;
  return { clubId: key.clubId, env: key.env, keyId: key.keyId, prefix: key.prefix };
}

/** The unrevoked key with this text: the prefix finds the candidates and the hashes are compared in constant time. */
async function findApiKey(db: Database, raw: string, env: Env, hash: string): Promise<CachedKey | null> {
  const candidates = await db.em().find(ApiKey, { prefix: keyPrefix(raw), env, revokedAt: null });
  const key = candidates.find((candidate) => sameHash(candidate.hash, hash));
  return key ? { clubId: key.clubId, env: key.env, keyId: key.id, prefix: key.prefix, expiresAt: key.expiresAt ?? null } : null;
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

/**
 * The current signing secret and the previous one (during a roll's overlap),
 * or null when the club has none. Kept in memory for the cache TTL; a roll
 * (usecases/club/token-secret.ts) makes every process forget it.
 */
export async function getSigningSecrets(db: Database, scope: Scope): Promise<SigningSecrets | null> {
  return cachesOf(db).signingSecrets.get(
    scopeKey(scope),
    () => readSigningSecrets(db, scope),
    (found) => found !== null,
  );
}

async function readSigningSecrets(db: Database, scope: Scope): Promise<SigningSecrets | null> {
  const row = await db.em().findOne(ClubSecret, scope, { fields: ["tokenSigningSecret", "previousTokenSigningSecret", "previousExpiresAt"] });
  if (!row) return null;
  const previous =
    row.previousTokenSigningSecret && row.previousExpiresAt ? { secret: row.previousTokenSigningSecret, expiresAt: row.previousExpiresAt } : null;
  return { current: row.tokenSigningSecret, previous };
}
