/*
 * The event path's reads by natural key — events by idempotency key,
 * participants by external id — written so that each key is one probe of
 * the one index that holds it, whatever the statistics say and whether the
 * prepared statement runs a custom or a generic plan.
 *
 * Why by structure: `club_id = $1 and env = $2 and key = any($3)` lets the
 * planner choose an index on (club_id, env, …) with the keys as a Filter when
 * it believes the club small — a table analyzed while nearly empty, or a new
 * club missing from a big table's club_id statistics (ANALYZE waits for 10 %
 * of the whole table to change). Each batch then read every row of the club
 * once per key (seen: 500 × 20,000 rows, 2–3 s per batch of 500). Here the
 * keys are spread by `unnest` and each is looked up by equality inside a
 * fenced subquery (`offset 0`: never flattened, the outer quals never pushed
 * in), so the inner scan has a single usable index and always uses the key as
 * its Index Cond; one row per key cannot become a scan of the club.
 *
 * Every statement takes its parameters in the same order: keys, club id, env.
 */

/**
 * The `columns` (of `events`, unqualified) of the scope's events stored under
 * the keys. PostgreSQL: the inner probe has the key alone, so the unique
 * (idempotency_key, club_id, env) index is its only index (the club's
 * (club_id, env, received_at) index cannot serve it); club and env are
 * checked on the row found. SQLite: `+club_id`/`+env` likewise leave the key
 * index as the only one the planner may search.
 */
export function eventsByKey(columns: string): { postgresql: string; sqlite: string } {
  const list = columns.split(",").map((column) => column.trim());
  return {
    postgresql: `select ${list.map((column) => `e.${column}`).join(", ")} from unnest(?::text[]) as k(key)
      cross join lateral (select ${list.join(", ")}, club_id, env from events where idempotency_key = k.key offset 0) as e
      where e.club_id = ? and e.env = ?`,
    sqlite: `select ${list.join(", ")} from events where idempotency_key in (select value from json_each(?)) and +club_id = ? and +env = ?`,
  };
}

/**
 * The `columns` (of `participants`, unqualified) of the scope's participants
 * with the external ids. The (club_id, env, external_id) unique index is the
 * only index led by the club (the referral code one is partial), so the
 * equality per key is always its whole Index Cond.
 */
export function participantsByExternalId(columns: string): { postgresql: string; sqlite: string } {
  const list = columns.split(",").map((column) => column.trim());
  return {
    postgresql: `select ${list.map((column) => `p.${column}`).join(", ")} from unnest(?::text[]) as k(external_id)
      cross join lateral (select ${list.join(", ")} from participants where club_id = ? and env = ? and external_id = k.external_id offset 0) as p`,
    sqlite: `select ${list.join(", ")} from participants where external_id in (select value from json_each(?)) and club_id = ? and env = ?`,
  };
}
