import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import { Delivery, Participant, ParticipantReward, StaffWarning, type DeliveryKind, type DeliveryStatus } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { getPublishedConfig, requirePublishedConfig } from "../club/index.js";
import { ApiError, notFound, validationFailed } from "../shared/errors.js";
import { olderThan, pageOf } from "../shared/paging.js";
import { recordWebhook } from "../webhooks/index.js";
import { webhookParticipant, writeNotifications, type NotificationText } from "../evaluation/index.js";
import { renderClubMessage } from "../club/index.js";

type Schemas = components["schemas"];
export type DeliveryView = Schemas["Delivery"];
export type DeliveryConfirm = Schemas["DeliveryConfirm"];
export type DeliveryFail = Schemas["DeliveryFail"];

/*
 * Deliveries: rewards someone must hand over. The client's system credits
 * `client_delivered` ones (asked by `reward.delivery_requested`); club staff
 * fulfil `manual` and `partner` ones, finding them with
 * `GET /v1/deliveries?kind=manual&status=pending`. Both close them through
 * the same confirm/fail routes and state machine.
 */

/** What a delivery's view names besides its row: the participant's external id and the reward's title and configured payload. */
export interface DeliveryContext {
  externalId: (participantId: string) => string;
  reward: (code: string) => { title: string; payload: Record<string, unknown> };
}

export function deliveryView(row: Delivery, context: DeliveryContext): DeliveryView {
  const configured = context.reward(row.rewardCode);
  return {
    id: row.id,
    participant_id: row.participantId,
    participant: { id: row.participantId, external_id: context.externalId(row.participantId) },
    reward: { id: row.participantRewardId, code: row.rewardCode, title: configured.title, type: row.kind, payload: row.payload ?? configured.payload },
    participant_reward_id: row.participantRewardId,
    reward_code: row.rewardCode,
    kind: row.kind,
    status: row.status,
    external_ref: row.externalRef ?? null,
    fail_reason: row.failReason ?? null,
    note: row.note ?? null,
    created_at: row.createdAt.toISOString(),
    confirmed_at: row.confirmedAt?.toISOString() ?? null,
  };
}

/**
 * The context of `rows`' views: their participants' external ids, read in one
 * query, and the rewards' titles and payloads in the published configuration
 * (the code and an empty payload for a reward removed since).
 */
export async function deliveryContext(db: Database, em: SqlEntityManager, scope: Scope, rows: readonly Delivery[]): Promise<DeliveryContext> {
  const ids = [...new Set(rows.map((row) => row.participantId))];
  const [participants, published] = await Promise.all([
    ids.length === 0 ? [] : em.find(Participant, { ...scope, id: { $in: ids } }, { fields: ["id", "externalId"] }),
    getPublishedConfig(db, scope),
  ]);
  const externalIds = new Map(participants.map((participant) => [participant.id, participant.externalId]));
  return {
    externalId: (participantId) => externalIds.get(participantId) ?? participantId,
    reward: (code) => {
      const reward = published?.config.rewards.find((candidate) => candidate.code === code);
      return { title: reward?.title ?? code, payload: (reward?.payload ?? {}) as Record<string, unknown> };
    },
  };
}

/** The seed's list size: `GET /v1/deliveries` answers up to 200 deliveries unless `limit` asks for fewer. */
export const DELIVERY_LIST_LIMIT = 200;

/**
 * GET /v1/deliveries: `{deliveries, has_more}`, newest first, paged after the
 * delivery `starting_after`, optionally only one status, one kind and one
 * participant (by external id; an unknown one lists nothing).
 */
export async function listDeliveries(
  db: Database,
  scope: Scope,
  query: { status?: DeliveryStatus; kind?: DeliveryKind; participant?: string; limit?: number; starting_after?: string } = {},
): Promise<{ deliveries: DeliveryView[]; has_more: boolean }> {
  const em = db.em();
  const limit = query.limit ?? DELIVERY_LIST_LIMIT;
  const where: Record<string, unknown> = { ...scope };
  if (query.status !== undefined) where.status = query.status;
  if (query.kind !== undefined) where.kind = query.kind;
  if (query.participant !== undefined) {
    const participant = await em.findOne(Participant, { ...scope, externalId: query.participant }, { fields: ["id"] });
    if (!participant) return { deliveries: [], has_more: false };
    where.participantId = participant.id;
  }
  if (query.starting_after) {
    const after = await em.findOne(Delivery, { ...scope, id: query.starting_after }, { fields: ["id", "createdAt"] });
    if (!after) throw validationFailed("query.starting_after is not a delivery of this club and environment");
    Object.assign(where, olderThan("createdAt", after));
  }
  const rows = await em.find(Delivery, where, { orderBy: [{ createdAt: "desc" }, { id: "desc" }], limit: limit + 1 });
  const context = await deliveryContext(db, em, scope, rows.slice(0, limit));
  const { data, has_more } = pageOf(rows, limit, (row) => deliveryView(row, context));
  return { deliveries: data, has_more };
}

function deliveryNotFound(id: string): ApiError {
  return notFound(`Delivery ${JSON.stringify(id)}`);
}

function alreadyClosed(row: Delivery, attempted: "confirmed" | "failed"): ApiError {
  return new ApiError(409, "already_closed", `Delivery ${JSON.stringify(row.id)} is already ${row.status} and cannot be ${attempted}.`);
}

/**
 * Moves a pending delivery to `next` with a conditional update (only while
 * still `pending`), so a confirm and a fail racing each other cannot both
 * win; answers the delivery as it now stands and whether this call closed it.
 */
async function closeIfPending(
  em: SqlEntityManager,
  scope: Scope,
  id: string,
  next: Partial<Pick<Delivery, "status" | "externalRef" | "details" | "confirmedAt" | "failReason" | "note">>,
): Promise<{ row: Delivery; closedNow: boolean }> {
  const closedNow = (await em.nativeUpdate(Delivery, { ...scope, id, status: "pending" }, next)) === 1;
  const row = await em.findOne(Delivery, { ...scope, id });
  if (!row) throw deliveryNotFound(id);
  return { row, closedNow };
}

/**
 * What follows a delivery this call closed: its reward takes the delivery's
 * outcome, `reward.delivered`/`reward.delivery_failed` is sent, the
 * participant finds a notice in the inbox and, for a failure of the client's
 * system, club staff get a warning in the console (the failure reason is for staff only: it may
 * name the client's internal checks).
 */
async function announceClosed(em: SqlEntityManager, scope: Scope, row: Delivery, notice: DeliveryNotice, view: DeliveryView, now: Date): Promise<void> {
  const delivered = row.status === "delivered";
  await em.nativeUpdate(ParticipantReward, { id: row.participantRewardId }, { status: delivered ? "delivered" : "failed" });
  const participant = await em.findOneOrFail(Participant, { id: row.participantId }, { fields: ["id", "externalId"] });
  const data: Schemas["RewardDeliveryOutcomeWebhookData"] = { participant: webhookParticipant(participant), reward_code: row.rewardCode, delivery: view };
  await recordWebhook(em, scope, delivered ? "reward.delivered" : "reward.delivery_failed", data, now);
  await writeNotifications(em, scope, participant.id, [notice(delivered ? "reward_delivered" : "reward_delivery_failed", row.rewardCode)], now);
  // Staff who reject a manual or partner reward know already; a failure of the client's system is news to them.
  if (!delivered && row.kind === "client_delivered") {
    await em.insert(StaffWarning, {
      id: newId("wrn"),
      ...scope,
      kind: "delivery_failed",
      subjectId: row.id,
      createdAt: now,
      message: `Delivery ${row.id} of reward ${row.rewardCode} to participant ${participant.externalId} failed: ${row.failReason}`,
    });
  }
}

type DeliveryNotice = (kind: "reward_delivered" | "reward_delivery_failed", rewardCode: string) => NotificationText;

/**
 * The inbox notice of a closed delivery, from the club's message templates
 * (else the built-in texts), naming the reward by its title in the published
 * configuration (its code when the reward was removed since).
 */
async function deliveryNotice(db: Database, scope: Scope): Promise<DeliveryNotice> {
  const { config } = await requirePublishedConfig(db, scope);
  return (kind, code) => {
    const rewardTitle = config.rewards.find((reward) => reward.code === code)?.title ?? code;
    const rendered = renderClubMessage(config, kind, { reward_title: rewardTitle }) ?? { title: rewardTitle, body: null };
    return { kind, title: rendered.title, body: rendered.body, view: "rewards" };
  };
}

/**
 * POST /v1/deliveries/{id}/confirm: pending → delivered with `confirmed_at`,
 * `external_ref`, `details` and staff's `note`. Safe to repeat: a delivered
 * delivery answers unchanged; a failed one is 409 `already_closed`.
 */
export async function confirmDelivery(db: Database, scope: Scope, id: string, body: DeliveryConfirm | undefined, now: Date): Promise<DeliveryView> {
  const notice = await deliveryNotice(db, scope);
  return db.em().transactional(async (em) => {
    const { row, closedNow } = await closeIfPending(em, scope, id, {
      status: "delivered",
      externalRef: body?.external_ref ?? null,
      details: body?.details ?? null,
      note: body?.note ?? null,
      confirmedAt: now,
    });
    if (!closedNow && row.status !== "delivered") throw alreadyClosed(row, "confirmed");
    const view = deliveryView(row, await deliveryContext(db, em, scope, [row]));
    if (closedNow) await announceClosed(em, scope, row, notice, view, now);
    return view;
  });
}

/** POST /v1/deliveries/{id}/fail: pending → failed with `fail_reason`; a delivered or failed delivery is 409 `already_closed`. */
export async function failDelivery(db: Database, scope: Scope, id: string, body: DeliveryFail, now: Date): Promise<DeliveryView> {
  const notice = await deliveryNotice(db, scope);
  return db.em().transactional(async (em) => {
    const { row, closedNow } = await closeIfPending(em, scope, id, { status: "failed", failReason: body.reason });
    if (!closedNow) throw alreadyClosed(row, "failed");
    const view = deliveryView(row, await deliveryContext(db, em, scope, [row]));
    await announceClosed(em, scope, row, notice, view, now);
    return view;
  });
}
