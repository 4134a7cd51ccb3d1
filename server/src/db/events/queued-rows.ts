import { bothDialects, type HotStore } from "../hot/index.js";
import { byIdsInScope } from "../hot/scoped-reads.js";
import type { EventStatus } from "../entities/event.js";
import type { Scope } from "../scope.js";

/** A stored event as the worker reads it: whose it is, whether it still waits, and what the engine sees of it (engine/types.ts EngineEvent). */
export interface QueuedRow {
  id: string;
  participantId: string;
  status: EventStatus;
  /** The stored answer of an event already processed (the API's effects). */
  effects: unknown[];
  event: { type: string; id: string | null; amount: string | null; currency: string; occurred_at: string; meta: Record<string, unknown> };
}

/**
 * By the primary key alone (db/hot/scoped-reads.ts): with the scope in the
 * index condition, SQLite without statistics and PostgreSQL's generic plan
 * searched a (club_id, env, …) index instead, reading every event of the
 * club for each group of queued events.
 */
export const OWNERS = byIdsInScope({ table: "events", columns: ["id", "participant_id"] });
const ROWS = bothDialects(
  (inList) => `select id, participant_id, status, effects, type, external_event_id, amount, currency, occurred_at, meta from events where ${inList("id")}`,
);

interface StoredRow {
  id: string;
  participant_id: string;
  status: EventStatus;
  effects: unknown;
  type: string;
  external_event_id: string | null;
  amount: string | null;
  currency: string;
  occurred_at: unknown;
  meta: unknown;
}

/** A JSON column: PostgreSQL's driver parses jsonb, SQLite hands back the text. */
function json<T>(value: unknown): T {
  return (typeof value === "string" ? JSON.parse(value) : value) as T;
}

/** A datetime column as ISO text: a Date from PostgreSQL, epoch milliseconds from SQLite. */
function instant(value: unknown): string {
  return (value instanceof Date ? value : new Date(value as number | string)).toISOString();
}

function queuedRow(row: StoredRow): QueuedRow {
  return {
    id: row.id,
    participantId: row.participant_id,
    status: row.status,
    effects: json<unknown[]>(row.effects),
    event: {
      type: row.type,
      id: row.external_event_id,
      amount: row.amount,
      currency: row.currency,
      occurred_at: instant(row.occurred_at),
      meta: json<Record<string, unknown>>(row.meta),
    },
  };
}

/** The participant of each of the scope's events with `ids`, by event id (an id of another scope or none is absent). */
export async function ownersOf(hot: HotStore, scope: Scope, ids: string[]): Promise<Map<string, string>> {
  const rows = await hot.select<{ id: string; participant_id: string }>(OWNERS, [scope.clubId, scope.env, ids]);
  return new Map(rows.map((row) => [row.id, row.participant_id]));
}

/** The stored events with `ids`, by id. */
export async function queuedRows(hot: HotStore, ids: string[]): Promise<Map<string, QueuedRow>> {
  const rows = await hot.select<StoredRow>(ROWS, [ids]);
  return new Map(rows.map((row) => [row.id, queuedRow(row)]));
}
