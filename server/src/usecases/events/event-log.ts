import type { components } from "../../../../generated/types.js";
import { Event, Participant, TRACE_RETENTION_DAYS } from "../../db/entities/index.js";
import { addDays } from "../../engine/time.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { notFound, validationFailed } from "../shared/errors.js";
import { olderThan } from "../shared/paging.js";

export type EventLogEntry = components["schemas"]["EventLogEntry"];
export type EventLogEvent = components["schemas"]["EventLogEvent"];

export interface EventLogQuery {
  participant?: string;
  type?: string;
  /** Received at or after (ISO instant). */
  from?: string;
  /** Received before (ISO instant). */
  to?: string;
  limit?: number;
  starting_after?: string;
}

/**
 * The recent-events log (the console's "latest received events"): newest
 * first, with the id the client sent and how many effects each had. Paged
 * Stripe-style by the log id of the last entry seen.
 */
export async function listEventLog(db: Database, scope: Scope, query: EventLogQuery, now: Date): Promise<{ data: EventLogEntry[]; has_more: boolean }> {
  const traceKeptSince = addDays(now, -TRACE_RETENTION_DAYS).getTime();
  const em = db.em();
  const limit = query.limit ?? 20;
  // Always true (the column is not null): names received_at so that its partial index may serve the log (entities/event.ts).
  const received: Record<string, unknown> = { $ne: null };
  if (query.from) received.$gte = new Date(query.from);
  if (query.to) received.$lt = new Date(query.to);
  const where: Record<string, unknown> = { ...scope, receivedAt: received };
  if (query.type) where.type = query.type;
  if (query.participant) {
    const participant = await em.findOne(Participant, { ...scope, externalId: query.participant }, { fields: ["id"] });
    if (!participant) return { data: [], has_more: false };
    where.participantId = participant.id;
  }
  if (query.starting_after) {
    const after = await em.findOne(Event, { ...scope, id: query.starting_after }, { fields: ["id", "receivedAt"] });
    if (!after) throw validationFailed("query.starting_after is not an event of this log");
    Object.assign(where, olderThan("receivedAt", after));
  }
  const rows = await em.find(Event, where, { orderBy: [{ receivedAt: "desc" }, { id: "desc" }], limit: limit + 1 });
  const page = rows.slice(0, limit);
  const participants = await em.find(Participant, { id: { $in: [...new Set(page.map((row) => row.participantId))] } }, { fields: ["id", "externalId"] });
  const externalIds = new Map(participants.map((p) => [p.id, p.externalId]));
  return { data: page.map((row) => entryOf(row, externalIds.get(row.participantId) ?? "", traceKeptSince)), has_more: rows.length > limit };
}

/** One received event by its log id, with the effects it applied and its meta (the console's event debugger). */
export async function getLoggedEvent(db: Database, scope: Scope, id: string, now: Date): Promise<EventLogEvent> {
  const em = db.em();
  const row = await em.findOne(Event, { ...scope, id });
  if (!row) throw notFound(`Event '${id}'`);
  const participant = await em.findOne(Participant, { id: row.participantId }, { fields: ["id", "externalId"] });
  return {
    ...entryOf(row, participant?.externalId ?? "", addDays(now, -TRACE_RETENTION_DAYS).getTime()),
    effects: row.effects as unknown as EventLogEvent["effects"],
    meta: row.meta ?? {},
  };
}

function entryOf(row: Event, participant: string, traceKeptSince: number): EventLogEntry {
  return {
    id: row.id,
    event_id: row.externalEventId ?? null,
    participant,
    type: row.type,
    status: row.status,
    effects_count: row.effectsCount,
    duplicate_of: row.duplicateOf ?? null,
    received_at: row.receivedAt.toISOString(),
    processed_at: row.processedAt?.toISOString() ?? null,
    error: row.error ?? null,
    // Older traces may still await the hourly purge (purgeOldTraces): past retention they are not shown.
    trace: row.trace && row.receivedAt.getTime() >= traceKeptSince ? (row.trace as unknown as EventLogEntry["trace"]) : null,
  };
}

/**
 * Clears stored "why" traces older than TRACE_RETENTION_DAYS (a scheduled
 * task; safe to run from several workers at once). Returns how many were cleared.
 */
export async function purgeOldTraces(db: Database, now: Date): Promise<number> {
  return db.em().nativeUpdate(Event, { trace: { $ne: null }, receivedAt: { $lt: addDays(now, -TRACE_RETENTION_DAYS) } }, { trace: null });
}
