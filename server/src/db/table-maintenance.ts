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
 * on, nothing is done here. SQLite keeps no such statistics to go stale.
 */

/** Autovacuum's defaults (autovacuum_analyze_threshold / _scale_factor, autovacuum_vacuum_threshold / _scale_factor). */
const ANALYZE_BASE = 50;
const ANALYZE_SCALE = 0.1;
const VACUUM_BASE = 50;
const VACUUM_SCALE = 0.2;

interface TableActivity {
  table: string;
  rows: number;
  changedSinceAnalyze: number;
  dead: number;
}

export interface MaintenancePlan {
  analyze: string[];
  vacuum: string[];
}

/** Which tables need an ANALYZE or a VACUUM, by autovacuum's thresholds (pure). */
export function maintenancePlan(tables: TableActivity[]): MaintenancePlan {
  const rowsOf = (table: TableActivity) => Math.max(table.rows, 0); // -1: never analysed
  return {
    analyze: tables.filter((table) => table.changedSinceAnalyze > ANALYZE_BASE + ANALYZE_SCALE * rowsOf(table)).map((table) => table.table),
    vacuum: tables.filter((table) => table.dead > VACUUM_BASE + VACUUM_SCALE * rowsOf(table)).map((table) => table.table),
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
  const activity = await connection.execute<{ table: string; rows: number | string; changed: number | string; dead: number | string }[]>(
    `select s.relname as "table", c.reltuples as "rows", s.n_mod_since_analyze as changed, s.n_dead_tup as dead
       from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = current_schema()`,
  );
  const plan = maintenancePlan(activity.map((row) => ({ table: row.table, rows: Number(row.rows), changedSinceAnalyze: Number(row.changed), dead: Number(row.dead) })));
  // Outside any transaction: VACUUM refuses to run in one.
  if (plan.vacuum.length > 0) await connection.execute(`vacuum (skip_locked, analyze) ${plan.vacuum.map(quoted).join(", ")}`);
  const analyzeOnly = plan.analyze.filter((table) => !plan.vacuum.includes(table));
  if (analyzeOnly.length > 0) await connection.execute(`analyze (skip_locked) ${analyzeOnly.map(quoted).join(", ")}`);
  return plan;
}
