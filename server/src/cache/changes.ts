import type { SqlEntityManager } from "@mikro-orm/knex";
import type { Database } from "../db/orm.js";
import type { Env } from "../db/scope.js";
import { cachesOf } from "./registry.js";

/**
 * What changed in a club's environment that processes may hold in memory:
 * its secret keys (create, roll, revoke), its published configuration, its
 * participant-token signing secrets, or its promotional codes (create, disable).
 */
export interface CacheChange {
  what: "keys" | "config" | "secrets" | "codes";
  clubId: string;
  env: Env;
}

/** The one PostgreSQL NOTIFY channel every process listens on (cache/listener.ts). */
export const CHANGES_CHANNEL = "clube_cache_changes";

export function encodeChange(change: CacheChange): string {
  return JSON.stringify([change.what, change.clubId, change.env]);
}

/** The change a NOTIFY payload carries, or null for anything else. */
export function decodeChange(payload: string | undefined): CacheChange | null {
  try {
    const [what, clubId, env] = JSON.parse(payload ?? "") as unknown[];
    const knownWhat = what === "keys" || what === "config" || what === "secrets" || what === "codes";
    const knownEnv = env === "test" || env === "live";
    return knownWhat && knownEnv && typeof clubId === "string" ? { what, clubId, env } : null;
  } catch {
    return null;
  }
}

/**
 * Runs `work` in a transaction that changes what `change` names, and makes
 * every process forget its cached copy: on PostgreSQL a NOTIFY sent inside
 * the transaction (delivered only if it commits, to every listening process,
 * this one included); in this process at once after the commit (SQLite has no
 * NOTIFY: other processes on the file see the change when their entries expire).
 * Forgetting after the commit, not before, keeps a concurrent read from
 * caching the old row again.
 */
export async function changing<T>(db: Database, change: CacheChange, work: (em: SqlEntityManager) => Promise<T>): Promise<T> {
  const result = await db.em().transactional(async (em) => {
    const value = await work(em);
    if (db.dialect === "postgresql") await em.execute("select pg_notify(?, ?)", [CHANGES_CHANNEL, encodeChange(change)]);
    return value;
  });
  cachesOf(db).forget(change);
  return result;
}
