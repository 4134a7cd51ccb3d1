import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { schemaValidators } from "../../../generated/validators.js";
import type { ClubConfig } from "../engine/config.js";
import { ConfigVersion } from "../db/entities/index.js";
import { newId } from "../db/ids.js";
import type { Database } from "../db/orm.js";
import type { Scope } from "../db/scope.js";
import { findInconsistency } from "./config-consistency.js";
import { ApiError, notFound, validationFailed } from "./errors.js";
import { checkSchema } from "./schema-check.js";

/** The configuration in force for a club and environment, every default filled. */
export interface PublishedConfig {
  version: number;
  publishedAt: Date;
  config: ClubConfig;
}

export interface ConfigDraftView {
  version: number;
  config: ClubConfig;
  updated_at: string;
}

export interface ConfigVersionView {
  version: number;
  published_at: string;
  config: ClubConfig;
}

export interface ConfigVersionSummary {
  version: number;
  status: ConfigVersion["status"];
  created_at: string;
  published_at: string | null;
}

/**
 * Checks a configuration as a whole: the schema (bounds, patterns, closed
 * objects; defaults filled) and then the cross-field rules. Returns the filled
 * copy; throws 422 `validation_failed` naming the field as `config.<path>`.
 */
export function validateClubConfig(input: unknown): ClubConfig {
  const config = checkSchema<ClubConfig>(schemaValidators.ClubConfig, input, "config");
  const problem = findInconsistency(config);
  if (problem) throw validationFailed(problem);
  return config;
}

// Filling defaults means validating the whole document, so the filled config
// is kept per published version. Keyed by version, a cache entry can never be
// stale: another process publishing makes readers look up a new version. Kept
// per Database so two databases in one process never share entries. The same
// object is returned every time, which also lets the engine memoize per config.
const publishedCache = new WeakMap<Database, Map<string, PublishedConfig>>();

function cacheOf(db: Database): Map<string, PublishedConfig> {
  let cache = publishedCache.get(db);
  if (!cache) publishedCache.set(db, (cache = new Map()));
  return cache;
}

const cacheKey = (scope: Scope, version: number) => `${scope.clubId}:${scope.env}:${version}`;

function forgetPublished(db: Database, scope: Scope): void {
  const prefix = `${scope.clubId}:${scope.env}:`;
  const cache = cacheOf(db);
  for (const key of cache.keys()) if (key.startsWith(prefix)) cache.delete(key);
}

/**
 * The published configuration, or null when the club has none in this
 * environment (clubs made by createClub always have one). One indexed lookup
 * of the version number per call; the document is read and filled once per
 * version. Pass the caller's transaction as `em` inside a transaction: another
 * connection could wait for the one the transaction holds.
 */
export async function getPublishedConfig(db: Database, scope: Scope, em: SqlEntityManager = db.em()): Promise<PublishedConfig | null> {
  // Read around the identity map: a partially loaded row must never stand in for a full one.
  const current = await em.findOne(ConfigVersion, { ...scope, status: "published" }, { fields: ["version"], disableIdentityMap: true });
  if (!current) return null;
  const key = cacheKey(scope, current.version);
  const cached = cacheOf(db).get(key);
  if (cached) return cached;
  const row = await em.findOne(ConfigVersion, { ...scope, version: current.version }, { disableIdentityMap: true });
  // Republished between the two reads: the next call sees the new version.
  if (!row || !row.publishedAt) return getPublishedConfig(db, scope, em);
  const published: PublishedConfig = { version: row.version, publishedAt: row.publishedAt, config: filledPublished(row) };
  cacheOf(db).set(key, published);
  return published;
}

/** The published configuration, for operations that cannot work without one. */
export async function requirePublishedConfig(db: Database, scope: Scope, em?: SqlEntityManager): Promise<PublishedConfig> {
  const published = await getPublishedConfig(db, scope, em);
  if (!published) throw notFound(`A published configuration for the ${scope.env} environment`);
  return published;
}

/** A published document failing today's schema is a server-side problem (a release broke old configs), not the caller's. */
function filledPublished(row: ConfigVersion): ClubConfig {
  try {
    return validateClubConfig(row.config);
  } catch (err) {
    const reason = err instanceof ApiError ? err.message : String(err);
    throw new Error(`published config version ${row.version} of ${row.clubId}/${row.env} no longer validates: ${reason}`);
  }
}

/**
 * Saves the working draft: the one `draft` version is replaced in place; when
 * there is none, a new version after the highest one is created. The document
 * is stored as sent (defaults are filled when read) and answered filled.
 */
export async function saveDraft(db: Database, scope: Scope, input: unknown, now = new Date()): Promise<ConfigDraftView> {
  const config = validateClubConfig(input);
  try {
    const draft = await db.em().transactional(async (em) => {
      const existing = await em.findOne(ConfigVersion, { ...scope, status: "draft" });
      if (existing) {
        existing.config = input as Record<string, unknown>;
        existing.updatedAt = now;
        return existing;
      }
      return em.create(ConfigVersion, {
        id: newId("cfg"),
        ...scope,
        version: (await highestVersion(em, scope)) + 1,
        status: "draft",
        config: input as Record<string, unknown>,
        createdAt: now,
        updatedAt: now,
      });
    });
    return { version: draft.version, config, updated_at: draft.updatedAt.toISOString() };
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) {
      throw new ApiError(409, "conflict", "The draft was being saved by another request at the same time; send it again.");
    }
    throw err;
  }
}

async function highestVersion(em: SqlEntityManager, scope: Scope): Promise<number> {
  const latest = await em.findOne(ConfigVersion, scope, { orderBy: { version: "desc" }, fields: ["version"] });
  return latest?.version ?? 0;
}

/** The working draft, filled; 404 when there is none. */
export async function getDraft(db: Database, scope: Scope): Promise<ConfigDraftView> {
  const draft = await db.em().findOne(ConfigVersion, { ...scope, status: "draft" });
  if (!draft) throw notFound("A configuration draft");
  return { version: draft.version, config: validateClubConfig(draft.config), updated_at: draft.updatedAt.toISOString() };
}

/**
 * Publishes a draft (`version`, default the current draft): it becomes the
 * configuration in force and the previously published version becomes
 * `superseded`. Publishing the version already in force answers it unchanged;
 * a superseded version cannot come back (save it again as a draft).
 */
export async function publish(db: Database, scope: Scope, version?: number, now = new Date()): Promise<ConfigVersionView> {
  const published = await db.em().transactional(async (em) => {
    const target = await em.findOne(ConfigVersion, version === undefined ? { ...scope, status: "draft" } : { ...scope, version });
    if (!target) throw notFound(version === undefined ? "A configuration draft" : `Configuration version ${version}`);
    if (target.status === "superseded") {
      throw new ApiError(409, "conflict", `Configuration version ${target.version} was superseded; save it again as a draft to publish it.`);
    }
    if (target.status === "draft") {
      await em.nativeUpdate(ConfigVersion, { ...scope, status: "published" }, { status: "superseded", updatedAt: now });
      target.status = "published";
      target.publishedAt = now;
      target.updatedAt = now;
    }
    return target;
  });
  forgetPublished(db, scope);
  return { version: published.version, published_at: published.publishedAt!.toISOString(), config: validateClubConfig(published.config) };
}

/** Every version, newest first, Stripe-style paged by version number. */
export async function listVersions(
  db: Database,
  scope: Scope,
  page: { limit?: number; starting_after?: number } = {},
): Promise<{ data: ConfigVersionSummary[]; has_more: boolean }> {
  const limit = page.limit ?? 20;
  const rows = await db.em().find(
    ConfigVersion,
    page.starting_after === undefined ? scope : { ...scope, version: { $lt: page.starting_after } },
    { orderBy: { version: "desc" }, limit: limit + 1, fields: ["version", "status", "createdAt", "publishedAt"] },
  );
  return {
    data: rows.slice(0, limit).map((row) => ({
      version: row.version,
      status: row.status,
      created_at: row.createdAt.toISOString(),
      published_at: row.publishedAt?.toISOString() ?? null,
    })),
    has_more: rows.length > limit,
  };
}
