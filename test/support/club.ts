import type { Database } from "../../server/src/db/orm.js";
import type { Scope } from "../../server/src/db/scope.js";
import type { Clock } from "../../server/src/services.js";
import { createClub } from "../../server/src/usecases/club/clubs.js";
import { startApi, type TestApi } from "./api.js";
import { demoConfig } from "./club-config.js";
import { openTestDatabase, type DatabaseKind } from "./databases.js";
import type { RateLimits } from "../../server/src/http/rate-limit.js";

/**
 * The one way the suites get a club: a fresh database of the chosen kind
 * (SQLite or PostgreSQL) holding a club whose configuration is the demo
 * casino's (club-config.ts, with a variant when a test needs one), published
 * in test and live. With `api: true` the real server listens on it too
 * (api.ts); `clock` is then the server's clock.
 */

export interface ClubOptions {
  /** The published configuration; `demoConfig()` when omitted. */
  config?: Record<string, any>;
  /** The club's name. */
  name?: string;
  /** When the club is created (its first published version); `clock.now()` or 2026-11-01T12:00Z when omitted. */
  now?: Date;
  /** The server's clock (with `api: true`); also the creation time when `now` is omitted. */
  clock?: Clock;
}

export interface ApiClubOptions extends ClubOptions {
  api: true;
  /** Settings variables for the server on top of the process's (e.g. `AMQP_URL`). */
  env?: Record<string, string>;
  rateLimits?: RateLimits;
}

export interface DatabaseClub {
  db: Database;
  /** The club's test environment. */
  scope: Scope;
  clubId: string;
  /** The keys createClub showed once. */
  keys: { test: string; live: string };
  /** Another club on the same database (the demo configuration unless `config`). */
  newClub(options?: Omit<ClubOptions, "clock">): Promise<{ scope: Scope; clubId: string; keys: { test: string; live: string } }>;
  /** Closes the database and drops it. */
  close(): Promise<void>;
}

export type ApiClub = TestApi & { scope: Scope };

/** When a club is made if a test does not say. */
export const CLUB_CREATED_AT = new Date("2026-11-01T12:00:00Z");

export function openTestClub(kind: DatabaseKind, options: ApiClubOptions): Promise<ApiClub>;
export function openTestClub(kind: DatabaseKind, options?: ClubOptions & { api?: false }): Promise<DatabaseClub>;
export async function openTestClub(
  kind: DatabaseKind,
  options: ClubOptions & { api?: boolean; env?: Record<string, string>; rateLimits?: RateLimits } = {},
): Promise<ApiClub | DatabaseClub> {
  if (options.api) {
    const api = await startApi(kind, { clock: options.clock, env: options.env, rateLimits: options.rateLimits, config: options.config });
    return Object.assign(api, { scope: { clubId: api.clubId, env: "test" as const } });
  }
  const { db, close } = await openTestDatabase(kind);
  const newClub = async (club: Omit<ClubOptions, "clock"> = {}) => {
    const now = club.now ?? options.clock?.now() ?? CLUB_CREATED_AT;
    const created = await createClub(db, { name: club.name ?? "Cassino Teste", config: club.config ?? demoConfig() }, now);
    return { scope: { clubId: created.club_id, env: "test" as const }, clubId: created.club_id, keys: created.keys };
  };
  try {
    const club = await newClub(options);
    return { db, ...club, newClub, close };
  } catch (err) {
    await close();
    throw err;
  }
}
