import type { HotStore, ParticipantUpdate, ProcessedEvent, Upsert } from "./index.js";
import type { ColumnKind, TableShape } from "./table-shape.js";

/** The part of a `libsql` Database (the connection knex holds) the hot path uses. */
export interface LibsqlDatabase {
  prepare(sql: string): LibsqlStatement;
  /** Whether a transaction is open (BEGIN … not yet committed): autocommit otherwise. */
  readonly inTransaction: boolean;
}
interface LibsqlStatement {
  run(params: unknown[]): { changes: number };
  all(params: unknown[]): unknown[];
  get(params: unknown[]): unknown;
  raw(toggle: boolean): LibsqlStatement;
  columns(): { name: string }[];
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

/**
 * A read statement in raw mode (rows as arrays) and its column names. libsql
 * builds an object row property by property through N-API (a native call
 * and a key string per value); arrays, made into objects here with the same
 * keys in the same order, cost less (docs/performance-log.md#sqlite-raw-reads).
 */
interface Reader {
  stmt: LibsqlStatement;
  names: string[];
}
const readers = new WeakMap<LibsqlDatabase, Map<string, Reader>>();
function reader(db: LibsqlDatabase, sql: string): Reader {
  let statements = readers.get(db);
  if (!statements) readers.set(db, (statements = new Map()));
  let found = statements.get(sql);
  if (!found) {
    const stmt = db.prepare(sql).raw(true);
    statements.set(sql, (found = { stmt, names: stmt.columns().map((column) => column.name) }));
  }
  return found;
}

/**
 * The rows of a raw read as objects keyed by column name, as libsql's own
 * rows: a repeated name keeps its first place and its last value, and a blob
 * (a Buffer in raw rows) is an ArrayBuffer.
 */
function rowObjects(rows: unknown[], names: string[]): Record<string, unknown>[] {
  const objects: Record<string, unknown>[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) objects[r] = rowObject(rows[r] as unknown[], names);
  return objects;
}

function rowObject(row: unknown[], names: string[]): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (let c = 0; c < names.length; c++) {
    const value = row[c];
    object[names[c]] = typeof value === "object" && value !== null ? arrayBufferOf(value as Uint8Array) : value;
  }
  return object;
}

function arrayBufferOf(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
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
 * smaller), so that a table needs few prepared statements whatever the
 * batch. A statement of n rows saves n - 1 runs (a native call, a VM reset
 * and start); larger statements saved no more, and binding the rows as one
 * JSON array cost more than it saved. SQLite binds up to 32,766 values (64
 * rows of ≤ 500 columns).
 * Why 64, and what was tried: docs/performance-log.md#sqlite-multi-row-statements
 */
const ROWS_PER_STATEMENT = [64, 16, 4, 1];

/**
 * Statement texts per table (or update) key beyond which a write stops
 * binding shared columns once (see runChunked): a bound on the prepared
 * statements kept (a 64-row statement's program is tens of KB), should the
 * columns the rows share keep changing; the bench's mix stays well under it
 * (docs/performance-log.md#sqlite-multi-row-statements).
 */
const TEXTS_PER_KEY = 16;

/**
 * Writes `count` rows, their values in `values` (row after row, `width`
 * each, as bound), with statements of ROWS_PER_STATEMENT rows whose VALUES
 * list `textOf` wraps. A column whose value is the same in every row (the
 * club and environment, the time of the batch, columns left null…) is bound
 * once per statement as a numbered parameter `?N` that every row repeats:
 * binding a value costs the native call as much as SQLite's own work, and
 * many of a batch's values are such repeats
 * (docs/performance-log.md#sqlite-shared-parameters). Parameters are all
 * numbered, shared ones first: SQLite gives a bare `?` the number after the
 * largest used so far, which a repeated `?N` would throw off. With
 * `returned`, each statement's rows (a RETURNING clause) are handed to it.
 */
function runChunked(
  db: LibsqlDatabase,
  key: string,
  textOf: (valuesList: string) => string,
  width: number,
  count: number,
  values: unknown[],
  returned?: (rows: unknown[]) => void,
): void {
  const shared = sharedColumns(values, width, count);
  const sharedValues: unknown[] = [];
  for (let c = 0; c < width; c++) if (shared[c]) sharedValues.push(values[c]);
  let next = 0;
  for (const size of ROWS_PER_STATEMENT) {
    while (count - next >= size) {
      const text = chunkText(key, size, width, shared, textOf);
      const own = text.shared ? width - sharedValues.length : width;
      const chunk: unknown[] = text.shared ? sharedValues.slice() : [];
      let at = chunk.length;
      chunk.length = at + size * own;
      for (let r = next * width, end = (next + size) * width; r < end; r += width) {
        for (let c = 0; c < width; c++) if (!text.shared || !shared[c]) chunk[at++] = values[r + c];
      }
      const stmt = statement(db, text.sql);
      if (returned) returned(stmt.all(chunk));
      else stmt.run(chunk);
      next += size;
    }
  }
}

/** Which of the `width` columns hold the same value in all `count` rows of `values`. */
function sharedColumns(values: unknown[], width: number, count: number): boolean[] {
  const shared: boolean[] = new Array(width);
  for (let c = 0; c < width; c++) {
    const first = values[c];
    let same = true;
    for (let r = 1; r < count && same; r++) same = values[r * width + c] === first;
    shared[c] = same;
  }
  return shared;
}

interface ChunkText {
  sql: string;
  /** Whether the text binds the shared columns once (else every value of every row, in order). */
  shared: boolean;
}

const texts = new Map<string, ChunkText>();
const textsPerKey = new Map<string, number>();
function chunkText(key: string, size: number, width: number, shared: boolean[], textOf: (valuesList: string) => string): ChunkText {
  let mask = "";
  for (let c = 0; c < width; c++) mask += shared[c] ? "1" : "0";
  let text = texts.get(`${key}|${size}|${mask}`);
  if (text !== undefined) return text;
  const none = "0".repeat(width);
  if ((textsPerKey.get(key) ?? 0) >= TEXTS_PER_KEY && mask !== none) return chunkText(key, size, width, new Array<boolean>(width).fill(false), textOf);
  text = { sql: textOf(valuesList(size, width, shared)), shared: mask !== none };
  texts.set(`${key}|${size}|${mask}`, text);
  textsPerKey.set(key, (textsPerKey.get(key) ?? 0) + 1);
  return text;
}

/** `size` rows of `width` numbered placeholders, the shared columns' numbers (1…) the same in every row. */
function valuesList(size: number, width: number, shared: boolean[]): string {
  const numbers: number[] = new Array(width);
  let n = 0;
  for (let c = 0; c < width; c++) if (shared[c]) numbers[c] = ++n;
  const rows: string[] = [];
  for (let r = 0; r < size; r++) {
    const row: string[] = [];
    for (let c = 0; c < width; c++) row.push(`?${shared[c] ? numbers[c] : ++n}`);
    rows.push(`(${row.join(", ")})`);
  }
  return rows.join(", ");
}

/**
 * How a multi-row insert meets a broken constraint (a key taken, a NOT NULL):
 * inside a transaction, OR FAIL. The default (ABORT) undoes the statement's
 * own rows, so SQLite first copies every page the statement changes into a
 * statement journal (kept in memory by libsql) — at every statement, even
 * pages already copied by the one before: more pages than the COMMIT writes
 * to the WAL (docs/performance-log.md#sqlite-insert-or-fail). The upserts
 * still copy their pages (DO UPDATE always aborts). FAIL keeps the rows
 * before the broken one, which changes nothing here: the error is thrown and
 * the caller's transaction is rolled back whole (and never goes on after a
 * failed statement, as PostgreSQL would not let it). In autocommit the
 * statement is its own transaction: no statement journal either way, and
 * ABORT kept so that a failed statement leaves nothing.
 */
function insertVerb(db: LibsqlDatabase): string {
  return db.inTransaction ? "insert or fail" : "insert";
}

function insertText(verb: string, shape: TableShape, conflict: string): (valuesList: string) => string {
  const columns = shape.columns.map((column) => `"${column.field}"`).join(", ");
  return (list) => `${verb} into "${shape.table}" (${columns}) values ${list}${conflict}`;
}

function upsertClause(upsert?: Upsert): string {
  return upsert ? ` on conflict (${upsert.conflict.map((field) => `"${field}"`).join(", ")}) do update set ${upsert.set}` : "";
}

/** The rows' values in the shape's column order, as SQLite stores them, row after row. */
function boundRows(shape: TableShape, rows: object[]): unknown[] {
  const { columns } = shape;
  const values: unknown[] = new Array(rows.length * columns.length);
  let at = 0;
  for (const row of rows) {
    for (let c = 0; c < columns.length; c++) values[at++] = bound(columns[c].kind, (row as Record<string, unknown>)[columns[c].property]);
  }
  return values;
}

/**
 * An UPDATE of many rows by id in one statement: the new values as a VALUES
 * list named `u` (its columns `columns`, the id last), joined by id
 * (UPDATE … FROM, SQLite ≥ 3.33); `set` reads `u.<column>`. Each id comes
 * once (the callers gather one row per id), so no row is updated twice.
 */
function updateFromValues(table: string, columns: string[], set: string): { width: number; textOf: (valuesList: string) => string } {
  return {
    width: columns.length,
    textOf: (list) => `with u(${columns.join(", ")}) as (values ${list}) update ${table} set ${set} from u where ${table}.id = u.id`,
  };
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
  "events",
  ["effects", "effects_count", "processed_at", "id"],
  "status = 'processed', effects = u.effects, effects_count = u.effects_count, processed_at = u.processed_at",
);

const SPEND_LOTS = updateFromValues("currency_lots", ["amount", "id"], "remaining = currency_lots.remaining - u.amount");

/** An array parameter is bound as JSON text: read it with `json_each(?)`; a frozen array's (of values, not objects) made once. */
function selectParam(value: unknown): unknown {
  if (Array.isArray(value)) return Object.isFrozen(value) ? frozenArrayText(value) : JSON.stringify(value);
  return value instanceof Date ? value.getTime() : value;
}

const arrayTexts = new WeakMap<readonly unknown[], string>();

function frozenArrayText(values: readonly unknown[]): string {
  let text = arrayTexts.get(values);
  if (text === undefined) arrayTexts.set(values, (text = JSON.stringify(values)));
  return text;
}

export function sqliteHotStore(db: LibsqlDatabase, convert: (err: unknown) => never): HotStore {
  const store = sqliteStatements(db, convert);
  return {
    ...store,
    async writeAll(writes) {
      for (const write of writes) {
        if ("insert" in write) await store.insert(write.insert, write.rows, write.upsert);
        else if ("updateParticipants" in write) await store.updateParticipants(write.updateParticipants);
        else if ("statement" in write) await store.run(write.statement, write.params);
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
      const verb = insertVerb(db);
      guarded(() =>
        runChunked(db, `${verb}|${shape.table}|${conflict}`, insertText(verb, shape, conflict), shape.columns.length, rows.length, boundRows(shape, rows)),
      );
    },
    async insertAbsent(shape, rows, conflict) {
      const inserted = new Set<string>();
      if (rows.length === 0) return inserted;
      // RETURNING lists the rows inserted, not those DO NOTHING skipped.
      const clause = ` on conflict (${conflict.map((field) => `"${field}"`).join(", ")}) do nothing returning id`;
      const verb = insertVerb(db);
      guarded(() =>
        runChunked(
          db,
          `absent|${verb}|${shape.table}|${clause}`,
          insertText(verb, shape, clause),
          shape.columns.length,
          rows.length,
          boundRows(shape, rows),
          (returned) => {
            for (const row of returned) inserted.add((row as { id: string }).id);
          },
        ),
      );
      return inserted;
    },
    async updateParticipants(rows: ParticipantUpdate[]) {
      const values: unknown[] = [];
      for (const row of rows) {
        values.push(
          row.xp,
          row.level,
          row.tierCode,
          JSON.stringify(row.tags),
          JSON.stringify(row.eventCounts),
          row.peak === null ? 0 : 1,
          row.peak?.peakMonth ?? null,
          row.peak?.peakLevel ?? null,
          row.peak?.priorMonthPeakLevel ?? null,
          row.updatedAt.getTime(),
          row.id,
        );
      }
      guarded(() => runChunked(db, "participants", UPDATE_PARTICIPANTS.textOf, UPDATE_PARTICIPANTS.width, rows.length, values));
    },
    async spendLots(rows) {
      const values: unknown[] = [];
      for (const row of rows) values.push(row.amount, row.id);
      guarded(() => runChunked(db, "lots", SPEND_LOTS.textOf, SPEND_LOTS.width, rows.length, values));
    },
    async markEventsProcessed(rows: ProcessedEvent[], processedAt: Date) {
      const at = processedAt.getTime();
      const values: unknown[] = [];
      for (const row of rows) values.push(JSON.stringify(row.effects), row.effects.length, at, row.id);
      guarded(() => runChunked(db, "processed", MARK_EVENTS_PROCESSED.textOf, MARK_EVENTS_PROCESSED.width, rows.length, values));
    },
    async run(sql: { sqlite: string }, params: unknown[]) {
      guarded(() => statement(db, sql.sqlite).run(params.map(selectParam)));
    },
    async select<R>(sql: { sqlite: string }, params: unknown[]) {
      try {
        const { stmt, names } = reader(db, sql.sqlite);
        return rowObjects(stmt.all(params.map(selectParam)), names) as R[];
      } catch (err) {
        return convert(err);
      }
    },
    async first<R>(sql: { sqlite: string }, params: unknown[]) {
      return firstRowNow<R>(db, convert, sql, params);
    },
  };
}

/**
 * The first row of a read, at once: libsql runs every statement on the event
 * loop anyway, so a caller that needs nothing else to wait for gets the row
 * without a promise. One native call for the row (libsql's `all` runs an
 * iterator: a rows object, a batch fetch, an object per step).
 */
export function firstRowNow<R>(db: LibsqlDatabase, convert: (err: unknown) => never, sql: { sqlite: string }, params: unknown[]): R | undefined {
  try {
    const { stmt, names } = reader(db, sql.sqlite);
    const row = stmt.get(params.map(selectParam)) as unknown[] | undefined;
    return row === undefined ? undefined : (rowObject(row, names) as R);
  } catch (err) {
    return convert(err);
  }
}
