/*
 * Reads of a club environment's rows by a list of keys (parameters: club id,
 * env, the keys as an array), written so that their plans cannot depend on
 * statistics.
 *
 * PostgreSQL plans a named prepared statement once for any parameters after
 * five runs (a generic plan: the club is unknown, the array's length
 * guessed), and where autovacuum is off it plans from the statistics of
 * tables analysed while empty; a new club is also missing from a big table's
 * most common values for hours. Both make `club_id = ? and env = ? and
 * key = any(?)` look cheaper as a scan of the whole club's range with the key
 * as a Filter than as one index probe per key (PostgreSQL 15 costs an array
 * condition of an index as that many scans; docs/performance-log.md#plans).
 * So each statement leaves the planner a single sensible
 * index (test/db/query-plans.test.ts asserts the shapes):
 * - byScopedKeys: one probe per key of the unique index over (club_id, env,
 *   key) — in any column order: events' leads with idempotency_key — a
 *   lateral subquery the planner may not flatten (`offset 0`). It must be
 *   the only index the probe can use: where the planner believes the club
 *   has about one row, another index starting with (club_id, env) costs the
 *   same and the smaller one wins (hence the events' received_at index is
 *   partial, see entities/event.ts);
 * - byIdsInScope: the primary key alone, the scope checked on the rows found
 *   (fenced by `offset 0`, else the planner pushes it back into the scan and
 *   may prefer an index starting with club_id, env).
 * The key columns keep the database's collation rather than COLLATE "C":
 * every id and key column would have to change together. Why, and what "C"
 * would save: docs/performance-log.md#postgresql-collation-c
 * SQLite plans the list as `in (select value from json_each(?))`: it probes
 * (club_id, env, key) per key by itself, and with `+club_id`/`+env` (which
 * keeps those columns out of index choice) the primary key for ids.
 */

interface Read {
  table: string;
  columns: string[];
}

/** Rows of `table` whose (club_id, env, `key`) is one of the keys; `where` (optional) narrows them further. */
export function byScopedKeys({ table, columns, key, where }: Read & { key: string; where?: string }): { postgresql: string; sqlite: string } {
  const also = where ? ` and ${where}` : "";
  return {
    postgresql: `select ${columns.map((column) => `x.${column}`).join(", ")} from (select ?::text as club_id, ?::text as env) as s cross join unnest(?::text[]) as k(key)
      cross join lateral (select ${columns.join(", ")} from ${table} where club_id = s.club_id and env = s.env and ${key} = k.key${also} offset 0) as x`,
    sqlite: `select ${columns.join(", ")} from ${table} where club_id = ? and env = ? and ${key} in (select value from json_each(?))${also}`,
  };
}

/** Rows of `table` whose primary key `id` is one of the ids, those of the club environment only. */
export function byIdsInScope({ table, columns }: Read): { postgresql: string; sqlite: string } {
  return {
    postgresql: `select ${columns.map((column) => `x.${column}`).join(", ")} from (select ?::text as club_id, ?::text as env) as s
      cross join lateral (select ${[...new Set([...columns, "club_id", "env"])].join(", ")} from ${table} where id = any(?::text[]) offset 0) as x
      where x.club_id = s.club_id and x.env = s.env`,
    sqlite: `select ${columns.join(", ")} from ${table} where +club_id = ? and +env = ? and id in (select value from json_each(?))`,
  };
}
