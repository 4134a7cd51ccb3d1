import type { components } from "../../../../generated/types.js";
import { changing } from "../../cache/changes.js";
import { ApiKey } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { hashKey, keyLast4, keyPrefix, newApiKey } from "./api-key-format.js";
import { notFound, validationFailed } from "../shared/errors.js";
import { olderThan, pageOf } from "../shared/paging.js";

export type ApiKeyView = components["schemas"]["ApiKey"];
export type ApiKeyWithSecret = components["schemas"]["ApiKeyWithSecret"];

/**
 * Secret-key management for one club and environment (GET/POST /v1/keys,
 * roll, revoke, and `clube keys …`). Only hashes are stored, so a key's text
 * exists only in the answer that creates it. Every change makes all processes
 * forget the keys they cached (cache/changes.ts): a revoked key stops at once.
 */

function view(row: ApiKey): ApiKeyView {
  return {
    id: row.id,
    env: row.env,
    key_prefix: row.prefix,
    last4: row.last4 ?? null,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt ? row.expiresAt.toISOString() : null,
    revoked_at: row.revokedAt ? row.revokedAt.toISOString() : null,
  };
}

/** A new key row and its text (the caller persists it in its transaction). */
function mint(scope: Scope, now: Date) {
  const raw = newApiKey(scope.env);
  return {
    raw,
    row: { id: newId("key"), ...scope, prefix: keyPrefix(raw), last4: keyLast4(raw), hash: hashKey(raw), createdAt: now },
  };
}

export async function listApiKeys(
  db: Database,
  scope: Scope,
  page: { limit?: number; starting_after?: string },
): Promise<{ data: ApiKeyView[]; has_more: boolean }> {
  const em = db.em();
  const limit = page.limit ?? 20;
  const where: Record<string, unknown> = { ...scope };
  if (page.starting_after) {
    const after = await em.findOne(ApiKey, { ...scope, id: page.starting_after });
    if (!after) throw validationFailed("query.starting_after is not a key of this club and environment");
    Object.assign(where, olderThan("createdAt", after));
  }
  const rows = await em.find(ApiKey, where, { orderBy: [{ createdAt: "desc" }, { id: "desc" }], limit: limit + 1 });
  return pageOf(rows, limit, view);
}

export async function createApiKey(db: Database, scope: Scope, now: Date): Promise<ApiKeyWithSecret> {
  const { row, raw } = mint(scope, now);
  const created = await changing(db, { what: "keys", ...scope }, async (em) => em.create(ApiKey, row));
  return { ...view(created), secret: raw };
}

/**
 * Replaces a key: a new key now, the old one ends after the overlap (at once
 * for 0). A key already due to expire sooner keeps its earlier end, so a roll
 * never extends a key's life. Revoked or expired keys cannot be rolled (404).
 */
export async function rollApiKey(
  db: Database,
  scope: Scope,
  id: string,
  expireOldAfterSeconds: number,
  now: Date,
): Promise<{ key: ApiKeyWithSecret; previous: ApiKeyView }> {
  return changing(db, { what: "keys", ...scope }, async (em) => {
    const old = await em.findOne(ApiKey, { ...scope, id, revokedAt: null });
    if (!old || (old.expiresAt && old.expiresAt <= now)) throw notFound(`Key '${id}'`);
    const end = new Date(now.getTime() + expireOldAfterSeconds * 1000);
    if (!old.expiresAt || end < old.expiresAt) old.expiresAt = end;
    const { row, raw } = mint(scope, now);
    const created = em.create(ApiKey, row);
    await em.flush();
    return { key: { ...view(created), secret: raw }, previous: view(old) };
  });
}

/** Revokes a key at once; a revoked key is answered unchanged. */
export async function revokeApiKey(db: Database, scope: Scope, id: string, now: Date): Promise<ApiKeyView> {
  return changing(db, { what: "keys", ...scope }, async (em) => {
    const key = await em.findOne(ApiKey, { ...scope, id });
    if (!key) throw notFound(`Key '${id}'`);
    if (!key.revokedAt) key.revokedAt = now;
    await em.flush();
    return view(key);
  });
}
