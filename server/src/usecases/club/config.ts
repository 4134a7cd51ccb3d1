import { requiredProbabilityVersion } from "../../engine/wheel/probability-version.js";
import type { WheelConfig } from "../../engine/wheel.js";
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import { schemaValidators } from "../../../../generated/validators.js";
import type { ClubConfig } from "../../engine/config.js";
import { changing } from "../../cache/changes.js";
import { cachesOf, scopeKey } from "../../cache/registry.js";
import { ConfigVersion } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { findInconsistencies } from "./config-consistency.js";
import { ApiError, notFound, validationFailedAll } from "../shared/errors.js";
import { checkSchema } from "../shared/schema-check.js";

/** The configuration in force for a club and environment, every default filled. */
export interface PublishedConfig {
  version: number;
  publishedAt: Date;
  config: ClubConfig;
}

type Schemas = components["schemas"];
/** The contract's views, with the configuration typed as filled. */
export type ConfigDraftView = Omit<Schemas["ConfigDraft"], "config"> & { config: ClubConfig };
export type ConfigVersionDetailView = Omit<Schemas["ConfigVersionDetail"], "config"> & { config: ClubConfig };
export type ConfigVersionView = Omit<Schemas["ConfigVersion"], "config"> & { config: ClubConfig };
export type ConfigVersionList = Schemas["ConfigVersionList"];

/**
 * Checks a configuration as a whole: the schema (bounds, patterns, closed
 * objects; defaults filled) and then the cross-field rules. Returns the filled
 * copy; throws 422 `validation_failed` listing every problem (`details`; the
 * cross-field rules only read a document the schema accepted, so they are
 * listed once the schema problems are fixed), naming fields from `root`: `body`
 * when the configuration is a request body (PUT /v1/config/draft, matching
 * the HTTP layer's own messages), `config` otherwise (a file given to the CLI).
 */
export function validateClubConfig(input: unknown, root = "config"): ClubConfig {
  const config = checkSchema<ClubConfig>(schemaValidators.ClubConfig, input, root);
  const problems = findInconsistencies(config, root);
  if (problems.length > 0) throw validationFailedAll(problems);
  return config;
}

/**
 * The published configuration, or null when the club has none in this
 * environment (clubs made by createClub always have one). Kept in memory per
 * club and environment for the cache TTL and forgotten by every process on a
 * publish (cache/changes.ts), so the event path usually asks the database
 * nothing. On a miss, one indexed lookup of the version number; the document
 * is read and filled (a whole validation) once per version, and the same
 * object is returned for a version every time, which lets the engine memoize
 * per config (rules by trigger). Pass the caller's transaction as `em` inside
 * a transaction: another connection could wait for the one it holds.
 */
export async function getPublishedConfig(db: Database, scope: Scope, em?: SqlEntityManager): Promise<PublishedConfig | null> {
  // The EntityManager is forked only on a miss: a fork costs more than a cache hit.
  return cachesOf(db).configs.get(
    scopeKey(scope),
    () => readPublishedConfig(db, scope, em ?? db.em()),
    (found) => found !== null,
  );
}

async function readPublishedConfig(db: Database, scope: Scope, em: SqlEntityManager): Promise<PublishedConfig | null> {
  // Read around the identity map: a partially loaded row must never stand in for a full one.
  const current = await em.findOne(ConfigVersion, { ...scope, status: "published" }, { fields: ["version"], disableIdentityMap: true });
  if (!current) return null;
  const documents = cachesOf(db).documents;
  const key = `${scopeKey(scope)}:${current.version}`;
  const cached = documents.get(key);
  if (cached) return cached;
  const row = await em.findOne(ConfigVersion, { ...scope, version: current.version }, { disableIdentityMap: true });
  // Republished between the two reads: read again, which sees the new version.
  if (!row || !row.publishedAt) return readPublishedConfig(db, scope, em);
  const published: PublishedConfig = { version: row.version, publishedAt: row.publishedAt, config: filledPublished(row) };
  documents.set(key, published);
  return published;
}

/** The published configuration, for operations that cannot work without one. */
export async function requirePublishedConfig(db: Database, scope: Scope, em?: SqlEntityManager): Promise<PublishedConfig> {
  const published = await getPublishedConfig(db, scope, em);
  if (!published) throw notFound(`A published configuration for the ${scope.env} environment`);
  return published;
}

/**
 * requirePublishedConfig, at once (no promise) when the configuration is in
 * memory: every participant read asks for it, and each promise costs the
 * promise hooks that stay on once an AsyncLocalStorage was entered.
 */
export function publishedConfigNow(db: Database, scope: Scope): PublishedConfig | Promise<PublishedConfig> {
  const known = cachesOf(db).configs.peek(scopeKey(scope))?.value;
  return known ?? requirePublishedConfig(db, scope);
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
 * PUT /v1/config/draft: saves the configuration as a new draft version, one
 * above the highest (versions are never edited, so the history shows what was
 * in force when). Stored as sent — defaults are filled when read, so a later
 * release's new default applies to old versions too — and answered filled.
 */
export async function saveDraft(db: Database, scope: Scope, input: unknown, now = new Date()): Promise<ConfigDraftView> {
  const config = validateClubConfig(input, "body");
  try {
    const draft = await db.em().transactional(async (em) =>
      em.create(ConfigVersion, {
        id: newId("cfg"),
        ...scope,
        version: (await highestVersion(em, scope)) + 1,
        status: "draft",
        config: input as Record<string, unknown>,
        createdAt: now,
        updatedAt: now,
      }),
    );
    return { version: draft.version, config, updated_at: draft.createdAt.toISOString() };
  } catch (err) {
    // Two saves at the same moment picked the same number; the other one won.
    if (err instanceof UniqueConstraintViolationException) {
      throw new ApiError(409, "conflict", "Another draft was saved at the same moment; send this one again.");
    }
    throw err;
  }
}

async function highestVersion(em: SqlEntityManager, scope: Scope): Promise<number> {
  const latest = await em.findOne(ConfigVersion, scope, { orderBy: { version: "desc" }, fields: ["version"], disableIdentityMap: true });
  return latest?.version ?? 0;
}

async function latestDraft(em: SqlEntityManager, scope: Scope): Promise<ConfigVersion | null> {
  return em.findOne(ConfigVersion, { ...scope, status: "draft" }, { orderBy: { version: "desc" } });
}

/** GET /v1/config/draft: the newest draft (drafts older than the published version are superseded), filled; 404 when none. */
export async function getDraft(db: Database, scope: Scope): Promise<ConfigDraftView> {
  const draft = await latestDraft(db.em(), scope);
  if (!draft) throw notFound("A configuration draft");
  return { version: draft.version, config: validateClubConfig(draft.config), updated_at: draft.createdAt.toISOString() };
}

/**
 * POST /v1/config/publish: makes a draft (`version`, default the newest draft)
 * the configuration in force; the previously published version and every
 * older draft become `superseded`, newer drafts stay drafts. 404 when there is
 * no such draft or version, 409 `version_not_draft` when the version named is
 * published or superseded. The draft is checked again as a whole (422
 * `validation_failed`, fields named from `config`): a draft saved before a
 * rule was added (e.g. rule expressions that must compile) cannot go live.
 */
export async function publish(db: Database, scope: Scope, version?: number, now = new Date()): Promise<ConfigVersionView> {
  // Every process forgets its copy of the published configuration once this commits.
  const published = await changing(db, { what: "config", ...scope }, async (em) => {
    const target = version === undefined ? await latestDraft(em, scope) : await em.findOne(ConfigVersion, { ...scope, version });
    if (!target) throw notFound(version === undefined ? "A configuration draft" : `Configuration version ${version}`);
    if (target.status !== "draft") throw new ApiError(409, "version_not_draft", `Version ${target.version} is ${target.status}, not a draft.`);
    validateClubConfig(target.config);
    await bumpProbabilityVersion(em, scope, target);
    await em.nativeUpdate(
      ConfigVersion,
      { ...scope, $or: [{ status: "published" }, { status: "draft", version: { $lt: target.version } }] },
      { status: "superseded", updatedAt: now },
    );
    target.status = "published";
    target.publishedAt = now;
    target.updatedAt = now;
    return target;
  });
  return { version: published.version, published_at: now.toISOString(), config: validateClubConfig(published.config) };
}

/** GET /v1/config/versions: every version, newest first, paged by version number. */
export async function listVersions(db: Database, scope: Scope, page: { limit?: number; starting_after?: number } = {}): Promise<ConfigVersionList> {
  const limit = page.limit ?? 20;
  const rows = await db.em().find(ConfigVersion, page.starting_after === undefined ? scope : { ...scope, version: { $lt: page.starting_after } }, {
    orderBy: { version: "desc" },
    limit: limit + 1,
    fields: ["version", "status", "createdAt", "publishedAt"],
  });
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

/** GET /v1/config/versions/{version}: one version of the history with its configuration, filled; 404 when there is none. */
export async function getVersion(db: Database, scope: Scope, version: number): Promise<ConfigVersionDetailView> {
  const row = await db.em().findOne(ConfigVersion, { ...scope, version });
  if (!row) throw notFound(`Configuration version ${version}`);
  return {
    version: row.version,
    status: row.status,
    created_at: row.createdAt.toISOString(),
    published_at: row.publishedAt?.toISOString() ?? null,
    config: validateClubConfig(row.config),
  };
}

/**
 * A draft whose wheel odds (weights, prizes) differ from the published
 * wheel's without a higher `probabilityVersion` is published with the
 * published version + 1 (see requiredProbabilityVersion).
 */
async function bumpProbabilityVersion(em: SqlEntityManager, scope: Scope, target: ConfigVersion): Promise<void> {
  const draftWheel = (target.config as { wheel?: Record<string, unknown> }).wheel;
  if (!draftWheel) return;
  const current = await em.findOne(ConfigVersion, { ...scope, status: "published" }, { disableIdentityMap: true });
  const previous = current ? (validateClubConfig(current.config).wheel as WheelConfig | undefined) : undefined;
  const next = validateClubConfig(target.config).wheel as WheelConfig;
  const required = requiredProbabilityVersion(previous, next);
  if (required !== next.probabilityVersion) target.config = { ...target.config, wheel: { ...draftWheel, probabilityVersion: required } };
}
