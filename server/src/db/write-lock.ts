import type { SqlEntityManager } from "@mikro-orm/knex";
import { dialectOf } from "./dialect.js";
import type { HotStore } from "./hot/index.js";

/*
 * SQLite has no row locks: the write lock on the whole database is the lock.
 * knex begins transactions DEFERRED, and a transaction that reads first and
 * writes later fails with SQLITE_BUSY, without waiting, when another process
 * on the same file (a worker, a CLI command) committed in between: its
 * snapshot is stale and busy_timeout cannot help. Writing first takes the
 * write lock at once and waits for it under busy_timeout, as `BEGIN
 * IMMEDIATE` would. An UPDATE that matches nothing takes it without
 * rewriting any row (and dirtying its page); already held, it costs one
 * statement step. PostgreSQL locks rows instead: nothing to do there.
 */
const SQLITE_WRITE_LOCK = "update participants set updated_at = updated_at where 0";

/** Makes the transaction of `on` (a HotStore, or an EntityManager inside em.transactional) SQLite's writer before its first read. */
export async function takeSqliteWriteLock(on: HotStore | SqlEntityManager): Promise<void> {
  if (isEntityManager(on)) {
    if (dialectOf(on) === "sqlite") await on.execute(SQLITE_WRITE_LOCK, [], "run");
  } else if (on.dialect === "sqlite") await on.run({ postgresql: "", sqlite: SQLITE_WRITE_LOCK }, []);
}

function isEntityManager(on: HotStore | SqlEntityManager): on is SqlEntityManager {
  return typeof (on as SqlEntityManager).getPlatform === "function";
}

/**
 * Serialises the transactions of one scope that write `what` as a whole (a catalog sync rewrites many rows in
 * the order of its request, and two such syncs would otherwise take the same rows in different orders and
 * deadlock): PostgreSQL a transaction-scoped advisory lock on the scope and `what`, SQLite its write lock.
 */
export async function takeScopeLock(em: SqlEntityManager, scope: { clubId: string; env: string }, what: string): Promise<void> {
  if (dialectOf(em) === "sqlite") return takeSqliteWriteLock(em);
  await em.execute("select pg_advisory_xact_lock(hashtextextended(? || ':' || ? || ':' || ?, 0))", [scope.clubId, scope.env, what], "get");
}
