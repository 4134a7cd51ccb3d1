import { createHash } from "node:crypto";
import type { HotStore, ParticipantUpdate, ProcessedEvent, Upsert } from "./index.js";
import type { ColumnKind, TableShape } from "./table-shape.js";

/** The part of a `pg` Client the hot path uses. */
export interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/** The array type each column kind is bound as (one array parameter per column, spread into rows by `unnest`). */
const ARRAY_TYPE: Record<ColumnKind, string> = {
  text: "text[]", json: "jsonb[]", bigint: "int8[]", integer: "int4[]", double: "float8[]", boolean: "bool[]", datetime: "timestamptz[]",
};

/** A value as bound inside an array parameter. */
function bound(kind: ColumnKind, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (kind === "json") return JSON.stringify(value);
  if (kind === "datetime") return value instanceof Date ? value.toISOString() : value;
  return value;
}

/**
 * Named prepared statements: the server parses and plans each text once per
 * connection, and the pooled connection keeps it for later transactions. The
 * name is derived from the text, so the same text always maps to the same name.
 */
function run(client: PgClient, text: string, values: unknown[]): Promise<{ rows: unknown[] }> {
  return client.query({ name: `clube_${createHash("sha1").update(text).digest("hex").slice(0, 20)}`, text, values });
}

/** `INSERT … SELECT * FROM unnest(<one array per column>)`: one statement whatever the number of rows. */
function insertText(shape: TableShape, upsert?: Upsert): string {
  const columns = shape.columns.map((column) => `"${column.field}"`).join(", ");
  const arrays = shape.columns.map((column, i) => `$${i + 1}::${ARRAY_TYPE[column.kind]}`).join(", ");
  const conflict = upsert ? ` on conflict (${upsert.conflict.map((field) => `"${field}"`).join(", ")}) do update set ${upsert.set}` : "";
  return `insert into "${shape.table}" (${columns}) select * from unnest(${arrays})${conflict}`;
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
  updated_at = u.updated_at
from unnest($1::text[], $2::int8[], $3::int4[], $4::text[], $5::jsonb[], $6::jsonb[], $7::bool[], $8::text[], $9::int4[], $10::int4[], $11::timestamptz[])
  as u(id, xp, level, tier_code, tags, event_counts, peak, peak_month, peak_level, prior_month_peak_level, updated_at)
where p.id = u.id`;

const SPEND_LOTS = `update currency_lots as l set remaining = l.remaining - u.amount
from unnest($1::text[], $2::int8[]) as u(id, amount) where l.id = u.id`;

const MARK_EVENTS_PROCESSED = `update events as e set status = 'processed', effects = u.effects, effects_count = u.effects_count, processed_at = $4
from unnest($1::text[], $2::jsonb[], $3::int4[]) as u(id, effects, effects_count) where e.id = u.id`;

/** `?` placeholders numbered as PostgreSQL wants them. */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

export function postgresHotStore(client: PgClient, convert: (err: unknown) => never): HotStore {
  const exec = (text: string, values: unknown[]) => run(client, text, values).catch(convert);
  return {
    dialect: "postgresql",
    async insert(shape, rows, upsert) {
      if (rows.length === 0) return;
      const text = cachedText(`${shape.table}|${upsert?.conflict.join(",") ?? ""}|${upsert?.set ?? ""}`, () => insertText(shape, upsert));
      const values = shape.columns.map(({ property, kind }) => rows.map((row) => bound(kind, (row as Record<string, unknown>)[property])));
      await exec(text, values);
    },
    async updateParticipants(rows: ParticipantUpdate[]) {
      if (rows.length === 0) return;
      await exec(UPDATE_PARTICIPANTS, [
        rows.map((row) => row.id), rows.map((row) => row.xp), rows.map((row) => row.level), rows.map((row) => row.tierCode),
        rows.map((row) => JSON.stringify(row.tags)), rows.map((row) => JSON.stringify(row.eventCounts)), rows.map((row) => row.peak !== null),
        rows.map((row) => row.peak?.peakMonth ?? null), rows.map((row) => row.peak?.peakLevel ?? null), rows.map((row) => row.peak?.priorMonthPeakLevel ?? null),
        rows.map((row) => row.updatedAt.toISOString()),
      ]);
    },
    async spendLots(rows) {
      if (rows.length === 0) return;
      await exec(SPEND_LOTS, [rows.map((row) => row.id), rows.map((row) => row.amount)]);
    },
    async markEventsProcessed(rows: ProcessedEvent[], processedAt: Date) {
      if (rows.length === 0) return;
      await exec(MARK_EVENTS_PROCESSED, [rows.map((row) => row.id), rows.map((row) => JSON.stringify(row.effects)), rows.map((row) => row.effects.length), processedAt.toISOString()]);
    },
    async select<R>(sql: { postgresql: string }, params: unknown[]) {
      const text = cachedText(`select|${sql.postgresql}`, () => numbered(sql.postgresql));
      return (await exec(text, params)).rows as R[];
    },
  };
}
