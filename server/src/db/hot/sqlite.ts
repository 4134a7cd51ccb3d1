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
 * Rows per statement of the multi-row writes: a table's rows go in
 * statements of these many rows, the largest first (at most three of each
 * smaller), so that a table needs at most four prepared statements whatever
 * the batch. A statement of n rows saves n - 1 runs (a native call, a VM
 * reset and start) and binds the same values: a batch of 500 events writes
 * ~2,700 rows, and its writes took ~20 % less CPU than one run per row (16 ms
 * → 13 ms, a stored batch's writes replayed). 64: larger statements saved
 * no more; SQLite binds up to 32,766 values (64 rows of ≤ 500 columns).
 */
const ROWS_PER_STATEMENT = [64, 16, 4, 1];

/**
 * Runs the statements of `textOf(size)` over `rows` in ROWS_PER_STATEMENT
 * chunks; `bind` writes a row's `width` values into the chunk's array at
 * `at`. The texts are cached by the caller's key and the size. With
 * `returned`, each statement's rows (a RETURNING clause) are handed to it.
 */
function runChunked<R>(
  db: LibsqlDatabase, rows: readonly R[], key: string, textOf: (size: number) => string, width: number,
  bind: (row: R, values: unknown[], at: number) => void, returned?: (rows: unknown[]) => void,
): void {
  let next = 0;
  for (const size of ROWS_PER_STATEMENT) {
    while (rows.length - next >= size) {
      const values: unknown[] = new Array(size * width);
      for (let r = 0; r < size; r++) bind(rows[next + r], values, r * width);
      const stmt = statement(db, chunkText(key, size, textOf));
      if (returned) returned(stmt.all(values));
      else stmt.run(values);
      next += size;
    }
  }
}

const texts = new Map<string, string>();
function chunkText(key: string, size: number, textOf: (size: number) => string): string {
  const cacheKey = `${key}|${size}`;
  let text = texts.get(cacheKey);
  if (text === undefined) texts.set(cacheKey, (text = textOf(size)));
  return text;
}

/** `count` copies of `row` (a parenthesized list of placeholders), comma-separated: a VALUES list. */
function valuesList(row: string, count: number): string {
  return Array.from({ length: count }, () => row).join(", ");
}

function placeholders(count: number): string {
  return `(${Array.from({ length: count }, () => "?").join(", ")})`;
}

function insertText(shape: TableShape, size: number, conflict: string): string {
  return `insert into "${shape.table}" (${shape.columns.map((column) => `"${column.field}"`).join(", ")}) values ${valuesList(placeholders(shape.columns.length), size)}${conflict}`;
}

function upsertClause(upsert?: Upsert): string {
  return upsert ? ` on conflict (${upsert.conflict.map((field) => `"${field}"`).join(", ")}) do update set ${upsert.set}` : "";
}

/** A row's values in the shape's column order, as SQLite stores them, into `values` from `at`. */
function bindRow(shape: TableShape): (row: object, values: unknown[], at: number) => void {
  const { columns } = shape;
  return (row, values, at) => {
    for (let c = 0; c < columns.length; c++) values[at + c] = bound(columns[c].kind, (row as Record<string, unknown>)[columns[c].property]);
  };
}

/**
 * An UPDATE of many rows by id in one statement: the new values as a VALUES
 * list named `u` (its columns `columns`, the id last), joined by id
 * (UPDATE … FROM, SQLite ≥ 3.33); `set` reads `u.<column>`. Each id comes
 * once (the callers gather one row per id), so no row is updated twice.
 */
function updateFromValues(table: string, columns: string[], set: string): (size: number) => string {
  return (size) => `with u(${columns.join(", ")}) as (values ${valuesList(placeholders(columns.length), size)})
    update ${table} set ${set} from u where ${table}.id = u.id`;
}

const UPDATE_PARTICIPANTS = updateFromValues(
  "participants",
  ["xp", "level", "tier_code", "tags", "event_counts", "has_peak", "peak_month", "peak_level", "prior_month_peak_level", "updated_at", "id"],
  `xp = participants.xp + u.xp, level = u.level, tier_code = u.tier_code, tags = u.tags, event_counts = u.event_counts,
    peak_month = case when u.has_peak then u.peak_month else participants.peak_month end,
    peak_level = case when u.has_peak then u.peak_level else participants.peak_level end,
    prior_month_peak_level = case when u.has_peak then u.prior_month_peak_level else participants.prior_month_peak_level end,
    updated_at = u.updated_at`,
);

const MARK_EVENTS_PROCESSED = updateFromValues(
  "events", ["effects", "effects_count", "processed_at", "id"],
  "status = 'processed', effects = u.effects, effects_count = u.effects_count, processed_at = u.processed_at",
);

const SPEND_LOTS = updateFromValues("currency_lots", ["amount", "id"], "remaining = currency_lots.remaining - u.amount");

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
  const guarded = (write: () => void) => {
    try {
      write();
    } catch (err) {
      convert(err);
    }
  };
  return {
    dialect: "sqlite",
    async insert(shape, rows, upsert) {
      if (rows.length === 0) return;
      const conflict = upsertClause(upsert);
      guarded(() => runChunked(db, rows, `insert|${shape.table}|${conflict}`, (size) => insertText(shape, size, conflict), shape.columns.length, bindRow(shape)));
    },
    async insertAbsent(shape, rows, conflict) {
      const inserted = new Set<string>();
      if (rows.length === 0) return inserted;
      // RETURNING lists the rows inserted, not those DO NOTHING skipped.
      const clause = ` on conflict (${conflict.map((field) => `"${field}"`).join(", ")}) do nothing returning id`;
      guarded(() => runChunked(db, rows, `absent|${shape.table}|${clause}`, (size) => insertText(shape, size, clause), shape.columns.length, bindRow(shape), (returned) => {
        for (const row of returned) inserted.add((row as { id: string }).id);
      }));
      return inserted;
    },
    async updateParticipants(rows: ParticipantUpdate[]) {
      guarded(() => runChunked(db, rows, "participants", UPDATE_PARTICIPANTS, 11, (row, values, at) => {
        values[at] = row.xp;
        values[at + 1] = row.level;
        values[at + 2] = row.tierCode;
        values[at + 3] = JSON.stringify(row.tags);
        values[at + 4] = JSON.stringify(row.eventCounts);
        values[at + 5] = row.peak === null ? 0 : 1;
        values[at + 6] = row.peak?.peakMonth ?? null;
        values[at + 7] = row.peak?.peakLevel ?? null;
        values[at + 8] = row.peak?.priorMonthPeakLevel ?? null;
        values[at + 9] = row.updatedAt.getTime();
        values[at + 10] = row.id;
      }));
    },
    async spendLots(rows) {
      guarded(() => runChunked(db, rows, "lots", SPEND_LOTS, 2, (row, values, at) => {
        values[at] = row.amount;
        values[at + 1] = row.id;
      }));
    },
    async markEventsProcessed(rows: ProcessedEvent[], processedAt: Date) {
      const at = processedAt.getTime();
      guarded(() => runChunked(db, rows, "processed", MARK_EVENTS_PROCESSED, 4, (row, values, i) => {
        values[i] = JSON.stringify(row.effects);
        values[i + 1] = row.effects.length;
        values[i + 2] = at;
        values[i + 3] = row.id;
      }));
    },
    async run(sql: { sqlite: string }, params: unknown[]) {
      guarded(() => statement(db, sql.sqlite).run(params.map(selectParam)));
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
