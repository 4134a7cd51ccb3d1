import type { components } from "../../../../generated/types.js";
import { StaffNotificationRead, StaffWarning } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { notFound, validationFailed } from "../shared/errors.js";
import { olderThan, pageOf } from "../shared/paging.js";

export type StaffNotificationView = components["schemas"]["StaffNotification"];

/*
 * Staff notifications are the staff warnings (jobs/warnings.ts writes them:
 * failed deliveries, deliveries unconfirmed after 48 hours, exhausted webhook
 * sendings) seen by one member, with that member's read marks.
 */

function view(warning: StaffWarning, readAt: Date | null): StaffNotificationView {
  return {
    id: warning.id,
    kind: warning.kind,
    message: warning.message,
    subject_id: warning.subjectId,
    created_at: warning.createdAt.toISOString(),
    read_at: readAt ? readAt.toISOString() : null,
  };
}

export async function listNotifications(
  db: Database,
  scope: Scope,
  staffId: string,
  query: { unread?: boolean; limit?: number; starting_after?: string },
): Promise<{ data: StaffNotificationView[]; has_more: boolean; unread_count: number }> {
  const em = db.em();
  const limit = query.limit ?? 20;
  const reads = await em.find(StaffNotificationRead, { staffId });
  const readAt = new Map(reads.map((r) => [r.warningId, r.readAt]));
  const where: Record<string, unknown> = { ...scope };
  if (query.unread) where.id = { $nin: [...readAt.keys()] };
  if (query.starting_after) {
    const after = await em.findOne(StaffWarning, { ...scope, id: query.starting_after });
    if (!after) throw validationFailed("query.starting_after is not a notification of this club");
    Object.assign(where, olderThan("createdAt", after));
  }
  const rows = await em.find(StaffWarning, where, { orderBy: [{ createdAt: "desc" }, { id: "desc" }], limit: limit + 1 });
  const total = await em.count(StaffWarning, scope);
  const readHere = readAt.size === 0 ? 0 : await em.count(StaffWarning, { ...scope, id: { $in: [...readAt.keys()] } });
  return { ...pageOf(rows, limit, (row) => view(row, readAt.get(row.id) ?? null)), unread_count: total - readHere };
}

/** Marks a warning read for this member; marking again keeps the first time. */
export async function markNotificationRead(db: Database, scope: Scope, staffId: string, warningId: string, now: Date): Promise<StaffNotificationView> {
  const em = db.em();
  const warning = await em.findOne(StaffWarning, { ...scope, id: warningId });
  if (!warning) throw notFound(`Notification ${warningId}`);
  await em
    .createQueryBuilder(StaffNotificationRead)
    .insert({ id: newId("snr"), staffId, warningId, readAt: now })
    .onConflict(["staffId", "warningId"])
    .ignore()
    .execute("run");
  const read = await em.findOneOrFail(StaffNotificationRead, { staffId, warningId });
  return view(warning, read.readAt);
}
