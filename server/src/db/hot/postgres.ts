import { createHash } from "node:crypto";
import type { HotStore, ParticipantUpdate, ProcessedEvent, Upsert, Write } from "./index.js";
import { binaryArray, type BinaryElement } from "./pg-binary-arrays.js";
import type { ColumnKind, TableShape } from "./table-shape.js";

/** The part of a `pg` Client the hot path uses. */
export interface PgClient {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
  /** Statements run in order in one round trip (see pg-pipeline.ts), where the client offers it: a driver transaction's. */
  queryAll?(configs: readonly { name?: string; text: string; values: unknown[] }[]): Promise<{ rows: unknown[] }[]>;
}

/**
 * How each column kind is bound: one parameter per column holding every
 * row's value, spread into rows (insertRows). Scalars go as a
 * PostgreSQL array spread by `unnest`; JSON columns go as ONE JSON array
 * text spread by `jsonb_array_elements`, because a `jsonb[]` parameter costs
 * a JSON.stringify per value and then node-postgres escapes every quote of
 * that text again into the array literal (the largest client cost of a
 * batch's flush); the JSON array is one native JSON.stringify. A binary
 * `jsonb[]` cost the backend more: docs/performance-log.md#postgresql-jsonb-arrays
 */
const ARRAY_TYPE: Record<Exclude<ColumnKind, "json">, string> = {
  text: "text[]",
  bigint: "int8[]",
  integer: "int4[]",
  double: "float8[]",
  boolean: "bool[]",
  datetime: "timestamptz[]",
};

/** The set-returning call spreading parameter `$n` of a column of `kind` into one value per row. */
function spread(kind: ColumnKind, n: number): string {
  return kind === "json" ? `jsonb_array_elements($${n}::jsonb)` : `unnest($${n}::${ARRAY_TYPE[kind]})`;
}

/**
 * Columns bound once, as a scalar, when every row holds the same value: the
 * scope (one club environment per transaction) and the columns a write
 * names in `uniform` (its rows' `now`). A batch's write statement otherwise
 * binds each of them as an array of 500 copies: about a third of its ≈ 700 kB
 * of parameters, which Node builds and sends and PostgreSQL parses back
 * element by element (a timestamptz text each). Which columns qualify is
 * decided by the write's declaration, checked on the rows (a row that
 * differs binds the column as an array again), never found by looking at
 * the values alone: a statement's text, hence its prepared statement, must
 * not change with the data from one batch to the next.
 */
const SCOPE_COLUMNS: readonly string[] = ["clubId", "env"];

/** The shape's columns bound as scalars for `rows` (see SCOPE_COLUMNS), by property. */
function uniformColumns(shape: TableShape, rows: object[], declared: readonly string[] | undefined): ReadonlySet<string> {
  const uniform = new Set<string>();
  const values = rows as Record<string, unknown>[];
  for (const { property, kind } of shape.columns) {
    if (kind === "json" || !(SCOPE_COLUMNS.includes(property) || declared?.includes(property))) continue;
    const first = values[0][property];
    let same = true;
    for (let i = 1; i < values.length && same; i++) same = sameValue(values[i][property], first);
    if (same) uniform.add(property);
  }
  // The spread needs one column at least (the rows come from it).
  return uniform.size < shape.columns.length ? uniform : NONE_UNIFORM;
}
const NONE_UNIFORM: ReadonlySet<string> = new Set();

function sameValue(a: unknown, b: unknown): boolean {
  return a === b || (a ?? null) === (b ?? null) || (a instanceof Date && b instanceof Date && a.getTime() === b.getTime());
}

/** A text naming the uniform columns, for the caches of statement texts. */
function uniformKey(uniform: ReadonlySet<string>): string {
  return uniform.size === 0 ? "" : [...uniform].join(",");
}

/** A datetime as bound inside an array parameter (JSON values are stringified with their whole column, see jsonColumn; other kinds bind as they are). */
function boundDatetime(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  return value instanceof Date ? value.toISOString() : value;
}

/**
 * A datetime column's values as epoch milliseconds (null for a missing
 * value), spread into the rows by `to_timestamp(ms / 1000)`; null instead
 * when a value is not a Date (an ISO text: the column then goes as text,
 * datetimeColumn). PostgreSQL parses a float8 element (strtod) for a
 * fraction of a timestamptz text's cost (its date-time parser, per element):
 * a batch binds ≈ 3,000 instants. Exact: a millisecond count below 2^53
 * divided by 1000 rounds back to the same microsecond (to_timestamp rounds
 * to microseconds; test/db/pg-array-parameters.test.ts).
 */
export function epochMillis(rows: Record<string, unknown>[], property: string): (number | null)[] | null {
  const millis = new Array<number | null>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const value = rows[i][property];
    if (value === undefined || value === null) millis[i] = null;
    else if (value instanceof Date) millis[i] = value.getTime();
    else return null;
  }
  return millis;
}

/**
 * A datetime column's values as texts (see epochMillis). Most rows of a batch carry the same
 * instant (its `now`: received, created, updated), often the same Date, so
 * an instant equal to the previous row's reuses its text instead of another
 * toISOString.
 */
export function datetimeColumn(rows: Record<string, unknown>[], property: string): unknown[] {
  const texts = new Array<unknown>(rows.length);
  let last: unknown;
  let lastText: unknown = null;
  for (let i = 0; i < rows.length; i++) {
    const value = rows[i][property];
    if (value !== last && !(value instanceof Date && last instanceof Date && value.getTime() === last.getTime())) lastText = boundDatetime(value);
    last = value;
    texts[i] = lastText;
  }
  return texts;
}

/**
 * A scalar column's array parameter where binaryArray declines it (a
 * non-ASCII text, a number out of its type's range, a value of another type:
 * see pg-binary-arrays.ts), or an array whose type the statement does not
 * declare: PostgreSQL's array literal text built by one native JSON.stringify. For strings without `"`, `\` or control
 * characters, finite numbers, booleans and nulls, JSON's array text IS the
 * array literal once its brackets become braces: elements are double-quoted
 * alike, and an unquoted `null` is PostgreSQL's (case-insensitive) NULL.
 * node-postgres would instead run two regex replaces and a concatenation per
 * element (`escapeElement`, the largest client cost of a batch's flush). Any
 * other array (a backslash in the JSON text, from a quote, backslash or
 * control character in a string; an object; a non-finite number) goes as it
 * is, encoded by node-postgres.
 */
export function arrayParameter(values: unknown[]): unknown {
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value == null) continue;
    const type = typeof value;
    if (type === "number" ? !Number.isFinite(value) : type !== "string" && type !== "boolean") return values;
  }
  const json = JSON.stringify(values);
  return json.includes("\\") ? values : `{${json.slice(1, -1)}}`;
}

/** An array parameter of `element`s: in binary when it can be (pg-binary-arrays.ts), else as its literal text (arrayParameter). */
function scalarArray(element: BinaryElement, values: unknown[]): unknown {
  return binaryArray(element, values) ?? arrayParameter(values);
}

/** The element each column kind's array parameter holds (a datetime's epoch milliseconds are float8, see epochMillis). */
const ELEMENT: Record<Exclude<ColumnKind, "json" | "datetime">, BinaryElement> = {
  text: "text",
  bigint: "int8",
  integer: "int4",
  double: "float8",
  boolean: "bool",
};

/**
 * The element type of each `?` of a statement written with placeholders,
 * where the statement casts it to an array (`?::text[]`), by position
 * (cached): an array bound there may go in binary, its type being declared.
 */
function placeholderElements(sql: string): readonly (BinaryElement | undefined)[] {
  let elements = placeholderCache.get(sql);
  if (elements === undefined) {
    elements = [...sql.matchAll(/\?(?:::(\w+)\[\])?/g)].map((match) => (match[1] === undefined ? undefined : CAST_ELEMENT[match[1]]));
    placeholderCache.set(sql, elements);
  }
  return elements;
}
const placeholderCache = new Map<string, readonly (BinaryElement | undefined)[]>();
const CAST_ELEMENT: Record<string, BinaryElement | undefined> = {
  text: "text",
  int8: "int8",
  bigint: "int8",
  int4: "int4",
  integer: "int4",
  float8: "float8",
  bool: "bool",
  boolean: "bool",
};

/**
 * A parameter of a statement written with placeholders: an array cast to an
 * array type (`= any(?::text[])`) as scalarArray binds it, any other array
 * as its literal text (arrayParameter), an instant as its ISO text, another
 * scalar as it is.
 */
function boundParameter(value: unknown, element: BinaryElement | undefined): unknown {
  // An instant as its ISO text: node-postgres would format it in local time, field by field (every column is timestamptz).
  if (value instanceof Date) return value.toISOString();
  if (!Array.isArray(value)) return value;
  return element === undefined ? arrayParameter(value) : scalarArray(element, value);
}

/** A JSON column's parameter: one JSON array of its values (an undefined element becomes JSON null, turned back into SQL null by `nullif`). */
function jsonColumn(values: unknown[]): string {
  return JSON.stringify(values);
}

/**
 * Named prepared statements: the server parses and plans each text once per
 * connection, and the pooled connection keeps it for later transactions. The
 * name is derived from the text, so the same text always maps to the same name.
 */
function run(client: PgClient, text: string, values: unknown[]): Promise<{ rows: unknown[] }> {
  return client.query({ name: statementName(text), text, values });
}

/** The prepared statement's name of `text`. */
function statementName(text: string): string {
  let name = names.get(text);
  if (name === undefined) names.set(text, (name = `clube_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`));
  return name;
}
const names = new Map<string, string>();

/**
 * A read with an array parameter longer than this goes as an unnamed
 * statement, planned for its parameters on every run; shorter ones go named
 * (`run`). A named statement's plan is cached as a generic one after five
 * runs when the planner guesses it no dearer, and a generic plan assumes ten
 * or so elements per array parameter: for a batch of 500 that guess can be
 * far off, worst on statistics of tables analysed empty
 * (docs/performance-log.md#postgresql-unnamed-large-reads).
 * Small groups (single events at c=32, the tightest per-group budget) keep
 * their cached plans, planning being pure overhead where the generic guess
 * fits; the named statement then only ever sees small arrays, so the generic
 * plan it may settle on is judged on those.
 */
const PLANNED_EACH_RUN_ABOVE = 64;

/** A read: named or not by the length of its array parameters (`values`), sent `bound` (sharedParameters). */
function read(client: PgClient, text: string, values: unknown[], bound: unknown[]): Promise<{ rows: unknown[] }> {
  return values.some(isLargeArray) ? client.query({ text, values: bound }) : run(client, text, bound);
}

function isLargeArray(value: unknown): boolean {
  return Array.isArray(value) && value.length > PLANNED_EACH_RUN_ABOVE;
}

/** `INSERT … SELECT * FROM unnest(<one array per column>)`: one statement whatever the number of rows. */
function insertText(shape: TableShape, bound: BoundColumns, upsert?: Upsert): string {
  const conflict = upsert ? ` on conflict (${upsert.conflict.map((field) => `"${field}"`).join(", ")}) do update set ${upsert.set}` : "";
  return `${insertRows(shape, bound)}${conflict}`;
}

/**
 * Parameter `$i+1` per column i: a scalar for a uniform column (see
 * SCOPE_COLUMNS), else an array spread into the rows; a datetime array holds
 * epoch milliseconds unless bound as texts (see epochMillis).
 *
 * The arrays are spread by set-returning calls in a select list, which run
 * in lockstep (PostgreSQL 10+: one row per element, as `rows from (…)`
 * zips them), each row handed straight to the insert (ProjectSet). `rows
 * from (…)` (a Function Scan) first copies every function's whole result
 * into a tuplestore of its own and reads them back, which costs the backend
 * more (docs/performance-log.md#postgresql-select-list-spread). The
 * UPDATE … FROM statements below spread theirs the same way: the planner
 * estimates the rows of both forms alike (by the arrays' lengths), so their
 * joins are planned as before.
 */
function insertRows(shape: TableShape, { uniform, texts }: BoundColumns): string {
  const columns = shape.columns.map((column) => `"${column.field}"`).join(", ");
  const epoch = (column: TableShape["columns"][number]) => column.kind === "datetime" && !texts.has(column.property);
  // JSON columns: jsonb_array_elements yields JSON null for a missing value; the column stores SQL null as before.
  const values = shape.columns
    .map((column, i) =>
      uniform.has(column.property)
        ? `$${i + 1}::${ARRAY_TYPE[column.kind as Exclude<ColumnKind, "json">].slice(0, -2)}`
        : column.kind === "json"
          ? `nullif(u.c${i}, 'null'::jsonb)`
          : epoch(column)
            ? `to_timestamp(u.c${i} / 1000)`
            : `u.c${i}`,
    )
    .join(", ");
  const spreads = shape.columns.flatMap((column, i) =>
    uniform.has(column.property) ? [] : [{ sql: epoch(column) ? `unnest($${i + 1}::float8[])` : spread(column.kind, i + 1), alias: `c${i}` }],
  );
  return `insert into "${shape.table}" (${columns}) select ${values} from (select ${spreads.map((column) => `${column.sql} as ${column.alias}`).join(", ")}) as u`;
}

/** How a write's columns are bound: those once as scalars (`uniform`), and the datetime columns sent as texts rather than epoch milliseconds. */
interface BoundColumns {
  uniform: ReadonlySet<string>;
  texts: ReadonlySet<string>;
}

/**
 * One parameter per column of the shape, in its column order: the value of a
 * uniform column, else the column's array; and how they are bound, which
 * names the statement's text (boundKey).
 */
function columnArrays(shape: TableShape, rows: object[], uniform: ReadonlySet<string>): { values: unknown[]; bound: BoundColumns } {
  const values = rows as Record<string, unknown>[];
  let texts: Set<string> | undefined;
  // The kind is looked at once per column, not per value (a batch binds ~10,000 values).
  const parameters = new Array<unknown>(shape.columns.length);
  for (let c = 0; c < shape.columns.length; c++) {
    const { property, kind } = shape.columns[c];
    if (uniform.has(property)) parameters[c] = kind === "datetime" ? boundDatetime(values[0][property]) : (values[0][property] ?? null);
    else if (kind === "json") parameters[c] = jsonColumn(propertyColumn(values, property));
    else if (kind !== "datetime") parameters[c] = scalarArray(ELEMENT[kind], propertyColumn(values, property));
    else {
      const millis = epochMillis(values, property);
      if (millis) parameters[c] = scalarArray("float8", millis);
      else {
        (texts ??= new Set()).add(property);
        parameters[c] = arrayParameter(datetimeColumn(values, property));
      }
    }
  }
  return { values: parameters, bound: { uniform, texts: texts ?? NONE_UNIFORM } };
}

/*
 * The batch path builds its parameters with loops rather than callbacks
 * (`rows.map((row) => …)`): a callback is a new closure on every call, and
 * once a batch's closures are dead a full collection drops the optimized code
 * V8 keeps for them (it holds it weakly), so TurboFan compiled the same sites
 * again after every full GC (`--log-code`: 3-4 times each in 100 batches).
 */

/** One column's values (null for a missing one). */
function propertyColumn(rows: Record<string, unknown>[], property: string): unknown[] {
  const column = new Array<unknown>(rows.length);
  for (let i = 0; i < rows.length; i++) column[i] = rows[i][property] ?? null;
  return column;
}

/** A text naming how the columns are bound, for the caches of statement texts. */
function boundKey({ uniform, texts }: BoundColumns): string {
  return texts.size === 0 ? uniformKey(uniform) : `${uniformKey(uniform)}|texts:${[...texts].join(",")}`;
}

const texts = new Map<string, string>();
function cachedText(key: string, make: () => string): string {
  let text = texts.get(key);
  if (text === undefined) texts.set(key, (text = make()));
  return text;
}

const UPDATE_PARTICIPANTS = `update participants as p set
  xp = p.xp + u.xp, level = u.level, tier_code = u.tier_code, tags = u.tags, event_counts = u.event_counts,
  peak_month = case when u.peak then u.peak_month else p.peak_month end,
  peak_level = case when u.peak then u.peak_level else p.peak_level end,
  prior_month_peak_level = case when u.peak then u.prior_month_peak_level else p.prior_month_peak_level end,
  updated_at = to_timestamp(u.updated_at / 1000)
from (select unnest($1::text[]) as id, unnest($2::int8[]) as xp, unnest($3::int4[]) as level, unnest($4::text[]) as tier_code,
    jsonb_array_elements($5::jsonb) as tags, jsonb_array_elements($6::jsonb) as event_counts, unnest($7::bool[]) as peak, unnest($8::text[]) as peak_month,
    unnest($9::int4[]) as peak_level, unnest($10::int4[]) as prior_month_peak_level, unnest($11::float8[]) as updated_at) as u
where p.id = u.id`;

const SPEND_LOTS = `update currency_lots as l set remaining = l.remaining - u.amount
from (select unnest($1::text[]) as id, unnest($2::int8[]) as amount) as u where l.id = u.id`;

const MARK_EVENTS_PROCESSED = `update events as e set status = 'processed', effects = u.effects, effects_count = u.effects_count, processed_at = $4
from (select unnest($1::text[]) as id, jsonb_array_elements($2::jsonb) as effects, unnest($3::int4[]) as effects_count) as u where e.id = u.id`;

/** UPDATE_PARTICIPANTS' parameters: one array per column, in its order. */
function participantArrays(rows: ParticipantUpdate[]): unknown[] {
  const n = rows.length;
  const ids = new Array<string>(n),
    xps = new Array<number>(n),
    levels = new Array<number>(n),
    tierCodes = new Array<string | null>(n);
  const tags = new Array<unknown>(n),
    eventCounts = new Array<unknown>(n),
    peaks = new Array<boolean>(n),
    peakMonths = new Array<string | null>(n);
  const peakLevels = new Array<number | null>(n),
    priorMonthPeakLevels = new Array<number | null>(n),
    updatedAts = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    const row = rows[i];
    ids[i] = row.id;
    xps[i] = row.xp;
    levels[i] = row.level;
    tierCodes[i] = row.tierCode;
    tags[i] = row.tags;
    eventCounts[i] = row.eventCounts;
    peaks[i] = row.peak !== null;
    peakMonths[i] = row.peak?.peakMonth ?? null;
    peakLevels[i] = row.peak?.peakLevel ?? null;
    priorMonthPeakLevels[i] = row.peak?.priorMonthPeakLevel ?? null;
    // Epoch milliseconds, spread by to_timestamp (see epochMillis).
    updatedAts[i] = row.updatedAt.getTime();
  }
  return [
    scalarArray("text", ids),
    scalarArray("int8", xps),
    scalarArray("int4", levels),
    scalarArray("text", tierCodes),
    jsonColumn(tags),
    jsonColumn(eventCounts),
    scalarArray("bool", peaks),
    scalarArray("text", peakMonths),
    scalarArray("int4", peakLevels),
    scalarArray("int4", priorMonthPeakLevels),
    scalarArray("float8", updatedAts),
  ];
}

/** SPEND_LOTS' parameters. */
function lotArrays(rows: { id: string; amount: number }[]): unknown[] {
  const ids = new Array<string>(rows.length),
    amounts = new Array<number>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    ids[i] = rows[i].id;
    amounts[i] = rows[i].amount;
  }
  return [scalarArray("text", ids), scalarArray("int8", amounts)];
}

/** MARK_EVENTS_PROCESSED's parameters. */
function processedArrays(rows: ProcessedEvent[], processedAt: Date): unknown[] {
  const ids = new Array<string>(rows.length),
    effects = new Array<unknown>(rows.length),
    counts = new Array<number>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    ids[i] = rows[i].id;
    effects[i] = rows[i].effects;
    counts[i] = rows[i].effects.length;
  }
  return [scalarArray("text", ids), jsonColumn(effects), scalarArray("int4", counts), processedAt.toISOString()];
}

/**
 * A write's statement (parameters numbered from $1), a key naming its text, and its values; null without rows.
 * `oneRowEach`: every insert of the flush holds one row, so each binds plain values (singleRowInsert).
 */
function statementOf(write: Write, oneRowEach = false): { key: string; text: string; values: unknown[] } | null {
  if ("insert" in write) {
    if (write.rows.length === 0) return null;
    const { insert: shape, upsert } = write;
    if (oneRowEach) return singleRowInsert(shape, write.rows[0] as Record<string, unknown>, upsert);
    const { values, bound } = columnArrays(shape, write.rows, uniformColumns(shape, write.rows, write.uniform));
    const key = `${shape.table}|${upsert?.conflict.join(",") ?? ""}|${upsert?.set ?? ""}|${boundKey(bound)}`;
    return { key, text: cachedText(key, () => insertText(shape, bound, upsert)), values };
  }
  if ("updateParticipants" in write) {
    return write.updateParticipants.length === 0
      ? null
      : { key: "participants", text: UPDATE_PARTICIPANTS, values: participantArrays(write.updateParticipants) };
  }
  if ("statement" in write) {
    const sql = write.statement.postgresql;
    return {
      key: `statement|${sql}`,
      text: cachedText(`statement|${sql}`, () =>
        numberedAs(
          sql,
          write.params.map((_, i) => i + 1),
        ),
      ),
      values: write.params,
    };
  }
  return write.spendLots.length === 0 ? null : { key: "lots", text: SPEND_LOTS, values: lotArrays(write.spendLots) };
}

/**
 * An insert of one row as `VALUES` of one parameter per column. A row spread
 * from one-element arrays costs the backend a ProjectSet and an array to read
 * per column, and Node an array to build per column, for nothing: a
 * redemption's and a single event's writes hold one row in each table
 * (docs/performance-log.md#postgresql-one-row-writes). Only when every insert
 * of the flush holds one row (writeAll), so the combined statements' texts
 * stay one per set of tables and shape, not one per mix of row counts.
 */
function singleRowInsert(shape: TableShape, row: Record<string, unknown>, upsert?: Upsert): { key: string; text: string; values: unknown[] } {
  const values = new Array<unknown>(shape.columns.length);
  for (let c = 0; c < shape.columns.length; c++) {
    const { property, kind } = shape.columns[c];
    const value = row[property] ?? null;
    // As in the spread form, a missing JSON value (or JSON null) stores SQL null.
    values[c] = kind === "json" ? (value === null ? null : JSON.stringify(value)) : kind === "datetime" ? boundDatetime(value) : value;
  }
  const key = `${shape.table}|one|${upsert?.conflict.join(",") ?? ""}|${upsert?.set ?? ""}`;
  return {
    key,
    text: cachedText(key, () => {
      const columns = shape.columns.map((column) => `"${column.field}"`).join(", ");
      const params = shape.columns.map((column, i) => `$${i + 1}::${column.kind === "json" ? "jsonb" : ARRAY_TYPE[column.kind].slice(0, -2)}`).join(", ");
      const conflict = upsert ? ` on conflict (${upsert.conflict.map((field) => `"${field}"`).join(", ")}) do update set ${upsert.set}` : "";
      return `insert into "${shape.table}" (${columns}) values (${params})${conflict}`;
    }),
    values,
  };
}

/**
 * One statement's text numbered for `pattern` (sharedParameters), cached by
 * the statement's own text: looking up a key joined from that text hashed it
 * again on every call (a write statement's text runs to kilobytes).
 */
function numberedText(sql: string, pattern: string, numbers: readonly number[]): string {
  let byPattern = numberedTexts.get(sql);
  if (byPattern === undefined) numberedTexts.set(sql, (byPattern = new Map()));
  let text = byPattern.get(pattern);
  if (text === undefined) byPattern.set(pattern, (text = numberedAs(sql, numbers)));
  return text;
}
const numberedTexts = new Map<string, Map<string, string>>();

/** `?` placeholders numbered as PostgreSQL wants them: `numbers[0]`, `numbers[1]`… in turn (see sharedParameters). */
function numberedAs(sql: string, numbers: readonly number[]): string {
  let k = 0;
  return sql.replace(/\?/g, () => `$${numbers[k++]}`);
}

/**
 * The parameters of reads sent as one statement, numbered in turn, except
 * that an array passed again under the same cast (the same object: a step's
 * state reads all take its participant ids) takes the number it had, so it
 * is encoded, sent and read by the server once instead of once per read
 * (docs/performance-log.md#postgresql-shared-array-parameters). Only the same object is
 * shared, never equal contents found by comparing them: the pattern follows
 * the code path, so a statement's text stays the same from batch to batch.
 * `pattern` names it for the cache of statement texts ("" when nothing is shared).
 */
function sharedParameters(reads: readonly { sql: string; params: unknown[] }[]): { numbers: number[]; values: unknown[]; bound: unknown[]; pattern: string } {
  const values: unknown[] = [];
  const bound: unknown[] = [];
  const casts: (BinaryElement | undefined)[] = [];
  const numbers: number[] = [];
  let shared = false;
  for (const { sql, params } of reads) {
    const elements = placeholderElements(sql);
    for (let i = 0; i < params.length; i++) {
      const value = params[i];
      const element = elements[i];
      let index = -1;
      if (Array.isArray(value) && element !== undefined) {
        for (let j = 0; j < values.length && index < 0; j++) if (values[j] === value && casts[j] === element) index = j;
      }
      if (index < 0) {
        index = values.length;
        values.push(value);
        casts.push(element);
        bound.push(boundParameter(value, element));
      } else {
        shared = true;
      }
      numbers.push(index + 1);
    }
  }
  return { numbers, values, bound, pattern: shared ? numbers.join(",") : "" };
}

export function postgresHotStore(client: PgClient, convert: (err: unknown) => never): HotStore {
  const exec = (text: string, values: unknown[]) => run(client, text, values).catch(convert);
  const query = (text: string, values: unknown[], bound: unknown[]) => read(client, text, values, bound).catch(convert);
  /*
   * Reads asked for in the same turn of the event loop (a step's state loads,
   * issued together) go to the server as one statement, each read a scalar
   * subquery aggregating its rows to JSON: one round trip instead of one per
   * read. Their values then come back as JSON has them (timestamps as ISO
   * strings, bigints as numbers), which every reader normalizes anyway.
   */
  let pending: { sql: string; params: unknown[]; resolve(rows: unknown[]): void; reject(err: unknown): void }[] = [];
  const sendSelects = () => {
    const reads = pending;
    pending = [];
    const { numbers, values, bound, pattern } = sharedParameters(reads);
    const text =
      reads.length === 1
        ? numberedText(reads[0].sql, pattern, numbers)
        : cachedText(`selects|${reads.map((read) => read.sql).join("\u0000")}|${pattern}`, () =>
            numberedAs(`select ${reads.map((read, i) => `(select coalesce(json_agg(t), '[]'::json) from (${read.sql}) as t) as r${i}`).join(", ")}`, numbers),
          );
    query(text, values, bound).then(
      ({ rows }) => {
        if (reads.length === 1) reads[0].resolve(rows);
        else reads.forEach((read, i) => read.resolve((rows[0] as Record<string, unknown[]>)[`r${i}`]));
      },
      (err: unknown) => reads.forEach((read) => read.reject(err)),
    );
  };
  return {
    dialect: "postgresql",
    async insert(shape, rows, upsert) {
      const statement = statementOf({ insert: shape, rows, upsert });
      if (statement) await exec(statement.text, statement.values);
    },
    async insertAbsent(shape, rows, conflict) {
      if (rows.length === 0) return new Set();
      const { values, bound } = columnArrays(shape, rows, uniformColumns(shape, rows, undefined));
      const text = cachedText(
        `${shape.table}|absent|${conflict.join(",")}|${boundKey(bound)}`,
        () => `${insertRows(shape, bound)} on conflict (${conflict.map((field) => `"${field}"`).join(", ")}) do nothing returning id`,
      );
      const { rows: inserted } = await exec(text, values);
      const ids = new Set<string>();
      for (const row of inserted as { id: string }[]) ids.add(row.id);
      return ids;
    },
    async updateParticipants(rows: ParticipantUpdate[]) {
      if (rows.length === 0) return;
      await exec(UPDATE_PARTICIPANTS, participantArrays(rows));
    },
    async spendLots(rows) {
      if (rows.length === 0) return;
      await exec(SPEND_LOTS, lotArrays(rows));
    },
    async markEventsProcessed(rows: ProcessedEvent[], processedAt: Date) {
      if (rows.length === 0) return;
      await exec(MARK_EVENTS_PROCESSED, processedArrays(rows, processedAt));
    },
    async writeAll(writes) {
      const parts: NonNullable<ReturnType<typeof statementOf>>[] = [];
      const keys: string[] = [];
      const values: unknown[] = [];
      let oneRowEach = true;
      for (const write of writes) if ("insert" in write && write.rows.length > 1) oneRowEach = false;
      for (const write of writes) {
        const part = statementOf(write, oneRowEach);
        if (part === null) continue;
        parts.push(part);
        keys.push(part.key);
        values.push(...part.values);
      }
      if (parts.length === 0) return;
      const key = keys.join("\u0000");
      const text = cachedText(`all|${key}`, () => {
        let offset = 0;
        const shifted = parts.map((part) => {
          const text = part.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`);
          offset += part.values.length;
          return text;
        });
        // The last statement is the main one, the others its CTEs.
        return shifted.length === 1
          ? shifted[0]
          : `with ${shifted
              .slice(0, -1)
              .map((text, i) => `w${i} as (${text})`)
              .join(", ")} ${shifted[shifted.length - 1]}`;
      });
      await exec(text, values);
    },
    async selectInOrder(statements) {
      if (!client.queryAll) throw new Error("statements in one round trip need a driver transaction's client");
      const configs = statements.map(({ sql, params, prepared }) => {
        const { numbers, bound, pattern } = sharedParameters([{ sql, params }]);
        const text = numberedText(sql, pattern, numbers);
        return prepared ? { name: statementName(text), text, values: bound } : { text, values: bound };
      });
      const results = await client.queryAll(configs).catch(convert);
      return results.map((result) => result.rows);
    },
    async run(sql: { postgresql: string }, params: unknown[]) {
      const { numbers, bound, pattern } = sharedParameters([{ sql: sql.postgresql, params }]);
      await exec(
        cachedText(`run|${sql.postgresql}|${pattern}`, () => numberedAs(sql.postgresql, numbers)),
        bound,
      );
    },
    select<R>(sql: { postgresql: string }, params: unknown[]): Promise<R[]> {
      // A lock is taken on its own, in the order its statement says.
      if (/\bfor update\b/.test(sql.postgresql)) {
        const { numbers, values, bound, pattern } = sharedParameters([{ sql: sql.postgresql, params }]);
        return query(numberedText(sql.postgresql, pattern, numbers), values, bound).then(({ rows }) => rows as R[]);
      }
      return new Promise((resolve, reject) => {
        pending.push({ sql: sql.postgresql, params, resolve: resolve as (rows: unknown[]) => void, reject });
        if (pending.length === 1) queueMicrotask(sendSelects);
      });
    },
  };
}
