import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import { Notification, Participant } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { notFound } from "../shared/errors.js";
import { participantNotFound } from "./participants.js";

/*
 * The participant's inbox (`/v1/me/notifications`). Notifications are written
 * where things happen (evaluation's `writeNotifications`); this only
 * reads them and marks them read.
 */

type Schemas = components["schemas"];
export type NotificationView = Schemas["Notification"];
export type NotificationList = Schemas["NotificationList"];

export interface NotificationQuery {
  /** true: unread only; false: read only; absent: all. */
  unread?: boolean;
  /** 1..100, default 20 (bounded by the route's validator). */
  limit?: number;
}

function notificationView(row: Notification): NotificationView {
  return {
    id: row.id,
    kind: row.kind,
    title: row.title,
    body: row.body ?? null,
    view: row.view ?? null,
    createdAt: row.createdAt.toISOString(),
    readAt: row.readAt?.toISOString() ?? null,
  };
}

async function participantId(em: SqlEntityManager, scope: Scope, externalId: string): Promise<string> {
  const participant = await em.findOne(Participant, { ...scope, externalId }, { fields: ["id"] });
  if (!participant) throw participantNotFound(externalId);
  return participant.id;
}

/** GET /v1/me/notifications: newest first, with the unread count of the whole inbox. */
export async function listNotifications(db: Database, scope: Scope, externalId: string, query: NotificationQuery): Promise<NotificationList> {
  const em = db.em();
  const owner = await participantId(em, scope, externalId);
  const readFilter = query.unread === undefined ? {} : { readAt: query.unread ? null : { $ne: null } };
  const [rows, unread] = await Promise.all([
    em.find(Notification, { participantId: owner, ...readFilter }, { orderBy: [{ createdAt: "desc" }, { id: "desc" }], limit: query.limit ?? 20 }),
    em.count(Notification, { participantId: owner, readAt: null }),
  ]);
  return { data: rows.map(notificationView), unread_count: unread };
}

/** POST /v1/me/notifications/{id}/read: safe to repeat; a notification already read keeps its `readAt`. */
export async function markNotificationRead(db: Database, scope: Scope, externalId: string, notificationId: string, now: Date): Promise<NotificationView> {
  const em = db.em();
  const owner = await participantId(em, scope, externalId);
  // Another participant's notification is as unknown as a missing one.
  await em.nativeUpdate(Notification, { id: notificationId, participantId: owner, readAt: null }, { readAt: now });
  const row = await em.findOne(Notification, { id: notificationId, participantId: owner });
  if (!row) throw notFound(`Notification ${JSON.stringify(notificationId)}`);
  return notificationView(row);
}

/** POST /v1/me/notifications/read-all: marks every unread notification read and says how many were. */
export async function markAllNotificationsRead(db: Database, scope: Scope, externalId: string, now: Date): Promise<{ updated: number }> {
  const em = db.em();
  const owner = await participantId(em, scope, externalId);
  return { updated: await em.nativeUpdate(Notification, { participantId: owner, readAt: null }, { readAt: now }) };
}
