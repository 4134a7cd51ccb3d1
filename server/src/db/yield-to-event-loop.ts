/**
 * A turn of the event loop. The embedded SQLite driver (libsql) can answer a
 * query without ever handing the loop a turn, so a long chain of queries (a
 * 500-event batch, a backlog of jobs) would starve timers, webhook sends and
 * every other request until it ends. Loops over many database calls await
 * this between items; on PostgreSQL it costs next to nothing.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
