import type { components } from "../../../../generated/types.js";
import { AuditEntry } from "../../db/entities/index.js";
import { newTimeOrderedId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Env, Scope } from "../../db/scope.js";
import { toCsv } from "../shared/csv.js";
import { validationFailed } from "../shared/errors.js";
import { olderThan, pageOf } from "../shared/paging.js";

export type AuditEntryView = components["schemas"]["AuditEntry"];

export interface AuditRecord {
  clubId: string;
  /** Null for club-wide changes (staff members, passwords). */
  env: Env | null;
  actorType: "staff" | "key";
  actorId: string;
  action: string;
  target: string | null;
  summary: string;
  ip: string;
  requestId: string;
}

/** Appends one entry. Nothing else writes, changes or deletes these rows. */
export async function recordAudit(db: Database, record: AuditRecord, now: Date): Promise<void> {
  const em = db.em();
  em.create(AuditEntry, {
    id: newTimeOrderedId("aud"),
    ...record,
    target: record.target === null ? null : record.target.slice(0, 128),
    ip: record.ip.slice(0, 64),
    requestId: record.requestId.slice(0, 64),
    createdAt: now,
  });
  await em.flush();
}

export interface AuditQuery {
  actor?: string;
  action?: string;
  target?: string;
  from?: string;
  to?: string;
  limit?: number;
  starting_after?: string;
}

function view(row: AuditEntry): AuditEntryView {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    env: row.env ?? null,
    actor_type: row.actorType,
    actor_id: row.actorId,
    action: row.action,
    target: row.target ?? null,
    summary: row.summary,
    ip: row.ip,
    request_id: row.requestId,
  };
}

/** The entries of the scope's environment plus the club-wide ones, newest first, filtered. */
export async function listAudit(db: Database, scope: Scope, query: AuditQuery): Promise<{ data: AuditEntryView[]; has_more: boolean }> {
  const em = db.em();
  const limit = query.limit ?? 20;
  const and: Record<string, unknown>[] = [{ clubId: scope.clubId }, { $or: [{ env: scope.env }, { env: null }] }];
  if (query.actor) and.push({ actorId: query.actor });
  if (query.action) and.push({ action: query.action });
  if (query.target) and.push({ target: query.target });
  const from = query.from ? new Date(query.from) : null;
  const to = query.to ? new Date(query.to) : null;
  if (from && to && to <= from) throw validationFailed("query.to must be after query.from");
  if (from) and.push({ createdAt: { $gte: from } });
  if (to) and.push({ createdAt: { $lt: to } });
  if (query.starting_after) {
    const after = await em.findOne(AuditEntry, { clubId: scope.clubId, id: query.starting_after });
    if (!after) throw validationFailed("query.starting_after is not an audit-log entry of this club");
    and.push(olderThan("createdAt", after));
  }
  const rows = await em.find(AuditEntry, { $and: and }, { orderBy: [{ createdAt: "desc" }, { id: "desc" }], limit: limit + 1 });
  return pageOf(rows, limit, view);
}

const CSV_COLUMNS = ["id", "created_at", "env", "actor_type", "actor_id", "action", "target", "summary", "ip", "request_id"] as const;

export function auditCsv(page: { data: AuditEntryView[] }): string {
  return toCsv(
    CSV_COLUMNS,
    page.data.map((entry) => CSV_COLUMNS.map((column) => entry[column] ?? null)),
  );
}
