import type { Database } from "./orm.js";

/*
 * PostgreSQL plans the event path's lookups (participants by external id,
 * events by idempotency key, rule runs by participant) from each table's
 * statistics. Autovacuum keeps them current, but where it is off (as on the
 * machines this runs on) the statistics stay as the migrations' ANALYZE left
 * them — empty tables — and the planner keeps choosing plans for empty
 * tables as a club grows to millions of rows. Nor are dead rows (updated
 * participants, relayed and purged outbox rows) ever reclaimed.
 *
 * So a worker does autovacuum's job when autovacuum is off, with its
 * thresholds: ANALYZE a table once the rows changed since its last analyze
 * exceed 50 + 10 % of its rows, VACUUM it once its dead rows exceed
 * 50 + 20 %. SKIP_LOCKED: several workers may pass at once, and a table
 * another one is already analysing is simply left to it. When autovacuum is
 * on, nothing is done here.
 *
 * The check is frequent (every few seconds, worker.ts) so that a fresh
 * install under load is planned for its size within seconds, not after
 * half a minute of plans made for empty tables: a table whose statistics
 * count fewer than YOUNG_ROWS rows is acted on at every check. A bigger one
 * at most every MIN_INTERVAL_S: under load its share of changed rows comes
 * every few seconds, and its ANALYZE is not free
 * (docs/performance-log.md#table-maintenance-interval).
 * (The event path's plans do not hang on fresh statistics anyway, see
 * db/hot/scoped-reads.ts; this keeps the rest of the service's plans sane.)
 *
 * SQLite: no ANALYZE is run, so it plans without sqlite_stat1 — the event
 * path's statements are shaped to plan the same with or without it
 * (test/db/query-plans.test.ts), and MikroORM's schema reader cannot map
 * that table.
 */

/** Autovacuum's defaults (autovacuum_analyze_threshold / _scale_factor, autovacuum_vacuum_threshold / _scale_factor). */
const ANALYZE_BASE = 50;
const ANALYZE_SCALE = 0.1;
const VACUUM_BASE = 50;
const VACUUM_SCALE = 0.2;
/** Statistics counting fewer rows than this are acted on at every check; the others at most every MIN_INTERVAL_S. */
const YOUNG_ROWS = 1000;
const MIN_INTERVAL_S = 30;

interface TableActivity {
  table: string;
  rows: number;
  changedSinceAnalyze: number;
  dead: number;
  /** Seconds since the table's last ANALYZE / VACUUM (manual or automatic); undefined or null: never. */
  sinceAnalyze?: number | null;
  sinceVacuum?: number | null;
}

export interface MaintenancePlan {
  analyze: string[];
  vacuum: string[];
}

/** Which tables need an ANALYZE or a VACUUM, by autovacuum's thresholds, young tables at once and the others not too often (pure). */
export function maintenancePlan(tables: TableActivity[]): MaintenancePlan {
  const rowsOf = (table: TableActivity) => Math.max(table.rows, 0); // -1: never analysed
  const mayRun = (table: TableActivity, since: number | null | undefined) => rowsOf(table) < YOUNG_ROWS || since == null || since >= MIN_INTERVAL_S;
  return {
    analyze: tables
      .filter((table) => table.changedSinceAnalyze > ANALYZE_BASE + ANALYZE_SCALE * rowsOf(table) && mayRun(table, table.sinceAnalyze))
      .map((table) => table.table),
    vacuum: tables.filter((table) => table.dead > VACUUM_BASE + VACUUM_SCALE * rowsOf(table) && mayRun(table, table.sinceVacuum)).map((table) => table.table),
  };
}

/** Double quotes a table name read from the catalog. */
function quoted(table: string): string {
  return `"${table.replace(/"/g, '""')}"`;
}

/**
 * One pass (see above): the tables analysed and vacuumed, or nothing on
 * SQLite and where autovacuum is on.
 */
export async function maintainTables(db: Database): Promise<MaintenancePlan> {
  const none: MaintenancePlan = { analyze: [], vacuum: [] };
  if (db.dialect !== "postgresql") return none;
  const connection = db.em().getConnection();
  const [setting] = await connection.execute<{ autovacuum: string }[]>("select current_setting('autovacuum') as autovacuum");
  if (setting?.autovacuum === "on") return none;
  const activity = await connection.execute<
    {
      table: string;
      rows: number | string;
      changed: number | string;
      dead: number | string;
      since_analyze: number | string | null;
      since_vacuum: number | string | null;
    }[]
  >(
    `select s.relname as "table", c.reltuples as "rows", s.n_mod_since_analyze as changed, s.n_dead_tup as dead,
            extract(epoch from now() - greatest(s.last_analyze, s.last_autoanalyze)) as since_analyze,
            extract(epoch from now() - greatest(s.last_vacuum, s.last_autovacuum)) as since_vacuum
       from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = current_schema()`,
  );
  const seconds = (value: number | string | null) => (value === null ? null : Number(value));
  const plan = maintenancePlan(
    activity.map((row) => ({
      table: row.table,
      rows: Number(row.rows),
      changedSinceAnalyze: Number(row.changed),
      dead: Number(row.dead),
      sinceAnalyze: seconds(row.since_analyze),
      sinceVacuum: seconds(row.since_vacuum),
    })),
  );
  // Outside any transaction: VACUUM refuses to run in one.
  if (plan.vacuum.length > 0) await connection.execute(`vacuum (skip_locked, analyze) ${plan.vacuum.map(quoted).join(", ")}`);
  const analyzeOnly = plan.analyze.filter((table) => !plan.vacuum.includes(table));
  if (analyzeOnly.length > 0) await connection.execute(`analyze (skip_locked) ${analyzeOnly.map(quoted).join(", ")}`);
  return plan;
}
