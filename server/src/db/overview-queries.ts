import type { Database } from "./orm.js";
import type { Scope } from "./scope.js";

/*
 * The overview's aggregates, grouped in the database so that a busy day costs
 * one scan of the window's index range and a few rows back, never a row per
 * event. Datetimes are timestamps on PostgreSQL and epoch milliseconds on
 * SQLite, hence a statement per dialect.
 */

export interface EventWindowCounts {
  /** Events per minute: the minute's start and its count, oldest first. */
  perMinute: { minute: Date; events: number }[];
  total: number;
  effects: number;
}

const at = (db: Database, date: Date): Date | number => (db.dialect === "sqlite" ? date.getTime() : date);

/** Events received in [from, to), per minute, with the sum of their effects. */
export async function eventCountsPerMinute(db: Database, scope: Scope, from: Date, to: Date): Promise<EventWindowCounts> {
  const minute = db.dialect === "sqlite" ? "(received_at / 60000) * 60000" : "(floor(extract(epoch from received_at) / 60) * 60000)::bigint";
  const rows = await db
    .em()
    .getConnection()
    .execute<{ minute: number | string; events: number | string; effects: number | string | null }[]>(
      `select ${minute} as minute, count(*) as events, sum(effects_count) as effects from events
      where club_id = ? and env = ? and received_at >= ? and received_at < ? group by 1 order by 1`,
      [scope.clubId, scope.env, at(db, from), at(db, to)],
    );
  let total = 0;
  let effects = 0;
  const perMinute = rows.map((row) => {
    total += Number(row.events);
    effects += Number(row.effects ?? 0);
    return { minute: new Date(Number(row.minute)), events: Number(row.events) };
  });
  return { perMinute, total, effects };
}

/** Webhook sendings created in [from, to), counted per endpoint and status. */
export async function sendingCountsByEndpoint(
  db: Database,
  scope: Scope,
  from: Date,
  to: Date,
): Promise<{ endpointId: string; status: string; count: number }[]> {
  const rows = await db
    .em()
    .getConnection()
    .execute<{ endpoint_id: string; status: string; n: number | string }[]>(
      `select endpoint_id, status, count(*) as n from webhook_sendings
      where club_id = ? and env = ? and created_at >= ? and created_at < ? group by endpoint_id, status`,
      [scope.clubId, scope.env, at(db, from), at(db, to)],
    );
  return rows.map((row) => ({ endpointId: row.endpoint_id, status: row.status, count: Number(row.n) }));
}
