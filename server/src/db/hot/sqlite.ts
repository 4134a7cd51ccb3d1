import type { HotStore, ParticipantUpdate, ProcessedEvent, Upsert } from "./index.js";
import type { ColumnKind, TableShape } from "./table-shape.js";

/** The part of a `libsql` Database (the connection knex holds) the hot path uses. */
export interface LibsqlDatabase {
  prepare(sql: string): LibsqlStatement;
}
interface LibsqlStatement {
  run(params: unknown[]): { changes: number };
  all(params: unknown[]): unknown[];
}

/**
 * Statements prepared once per connection and run again with new values
 * (knex re-prepares every query). Keyed by the connection object: knex
 * replaces the connection now and then, and the new one prepares its own.
 */
const prepared = new WeakMap<LibsqlDatabase, Map<string, LibsqlStatement>>();
function statement(db: LibsqlDatabase, sql: string): LibsqlStatement {
  let statements = prepared.get(db);
  if (!statements) prepared.set(db, (statements = new Map()));
  let stmt = statements.get(sql);
  if (!stmt) statements.set(sql, (stmt = db.prepare(sql)));
  return stmt;
}

/** A value as SQLite stores it through MikroORM: datetimes as epoch milliseconds, JSON as text, booleans as 0/1. */
function bound(kind: ColumnKind, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (kind === "json") return JSON.stringify(value);
  if (kind === "datetime") return value instanceof Date ? value.getTime() : value;
  if (kind === "boolean") return value ? 1 : 0;
  return value;
}

/**
 * Runs `stmt` once per row with the row's values in the shape's column
 * order, bound into one array reused for every row (libsql copies the
 * values when it binds them): a batch inserts thousands of rows, and an
 * array (and closure) per row and column adds up. `onRun` sees each row's
 * outcome.
 */
function runPerRow(stmt: LibsqlStatement, shape: TableShape, rows: object[], onRun?: (row: object, changes: number) => void): void {
  const { columns } = shape;
  const values: unknown[] = new Array(columns.length);
  for (const row of rows) {
    for (let c = 0; c < columns.length; c++) values[c] = bound(columns[c].kind, (row as Record<string, unknown>)[columns[c].property]);
    const { changes } = stmt.run(values);
    onRun?.(row, changes);
  }
}

const texts = new Map<string, string>();
function insertText(shape: TableShape, upsert?: Upsert): string {
  const key = `${shape.table}|${upsert?.conflict.join(",") ?? ""}|${upsert?.set ?? ""}`;
  let text = texts.get(key);
  if (text === undefined) {
    const columns = shape.columns.map((column) => `"${column.field}"`).join(", ");
    const conflict = upsert ? ` on conflict (${upsert.conflict.map((field) => `"${field}"`).join(", ")}) do update set ${upsert.set}` : "";
    text = `insert into "${shape.table}" (${columns}) values (${shape.columns.map(() => "?").join(", ")})${conflict}`;
    texts.set(key, text);
  }
  return text;
}

const UPDATE_PARTICIPANT = `update participants set
  xp = xp + ?, level = ?, tier_code = ?, tags = ?, event_counts = ?,
  peak_month = case when ? then ? else peak_month end,
  peak_level = case when ? then ? else peak_level end,
  prior_month_peak_level = case when ? then ? else prior_month_peak_level end,
  updated_at = ?
where id = ?`;

const MARK_EVENT_PROCESSED = "update events set status = 'processed', effects = ?, effects_count = ?, processed_at = ? where id = ?";

const SPEND_LOT = "update currency_lots set remaining = remaining - ? where id = ?";

/** An array parameter is bound as JSON text: read it with `json_each(?)`. */
function selectParam(value: unknown): unknown {
  if (Array.isArray(value)) return JSON.stringify(value);
  return value instanceof Date ? value.getTime() : value;
}

export function sqliteHotStore(db: LibsqlDatabase, convert: (err: unknown) => never): HotStore {
  const store = sqliteStatements(db, convert);
  return {
    ...store,
    async writeAll(writes) {
      for (const write of writes) {
        if ("insert" in write) await store.insert(write.insert, write.rows, write.upsert);
        else if ("updateParticipants" in write) await store.updateParticipants(write.updateParticipants);
        else await store.spendLots(write.spendLots);
      }
    },
  };
}

function sqliteStatements(db: LibsqlDatabase, convert: (err: unknown) => never): Omit<HotStore, "writeAll"> {
  // Synchronous calls: a failure is thrown here and converted like the ORM's.
  const each = (sql: string, rows: unknown[][]) => {
    try {
      const stmt = statement(db, sql);
      for (const values of rows) stmt.run(values);
    } catch (err) {
      convert(err);
    }
  };
  return {
    dialect: "sqlite",
    async insert(shape, rows, upsert) {
      if (rows.length === 0) return;
      try {
        runPerRow(statement(db, insertText(shape, upsert)), shape, rows);
      } catch (err) {
        convert(err);
      }
    },
    async insertAbsent(shape, rows, conflict) {
      const inserted = new Set<string>();
      if (rows.length === 0) return inserted;
      const text = `${insertText(shape)} on conflict (${conflict.map((field) => `"${field}"`).join(", ")}) do nothing`;
      try {
        runPerRow(statement(db, text), shape, rows, (row, changes) => {
          if (changes > 0) inserted.add((row as { id: string }).id);
        });
      } catch (err) {
        convert(err);
      }
      return inserted;
    },
    async updateParticipants(rows: ParticipantUpdate[]) {
      each(UPDATE_PARTICIPANT, rows.map((row) => {
        const peak = row.peak === null ? 0 : 1;
        return [
          row.xp, row.level, row.tierCode, JSON.stringify(row.tags), JSON.stringify(row.eventCounts),
          peak, row.peak?.peakMonth ?? null, peak, row.peak?.peakLevel ?? null, peak, row.peak?.priorMonthPeakLevel ?? null,
          row.updatedAt.getTime(), row.id,
        ];
      }));
    },
    async spendLots(rows) {
      each(SPEND_LOT, rows.map((row) => [row.amount, row.id]));
    },
    async markEventsProcessed(rows: ProcessedEvent[], processedAt: Date) {
      each(MARK_EVENT_PROCESSED, rows.map((row) => [JSON.stringify(row.effects), row.effects.length, processedAt.getTime(), row.id]));
    },
    async select<R>(sql: { sqlite: string }, params: unknown[]) {
      try {
        return statement(db, sql.sqlite).all(params.map(selectParam)) as R[];
      } catch (err) {
        return convert(err);
      }
    },
  };
}
