import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { enumColumn, idColumn, refColumn, tenancyColumns } from "./columns.js";

export type RewardType = "internal" | "client_delivered" | "manual" | "partner";
/**
 * `granted`: held by the participant; `pending`/`delivered`/`failed`: a
 * `client_delivered` reward following its delivery; `expired`: past `expiresAt`.
 */
export type ParticipantRewardStatus = "granted" | "pending" | "delivered" | "failed" | "expired";
export type DeliveryStatus = "pending" | "delivered" | "failed";
/** Who hands the reward over: the client's system (`client_delivered`) or club staff (`manual`, `partner`). */
export type DeliveryKind = Exclude<RewardType, "internal">;

/**
 * A reward granted to a participant. `source` says why: `rule:<id>`,
 * `mission:<id>`, `redemption:<reward_code>`, `checkin:<day>`, `wheel:<spin>`,
 * `referral:<id>`, `cashback:<day>`.
 */
export const ParticipantReward = defineEntity({
  name: "ParticipantReward",
  tableName: "participant_rewards",
  indexes: [{ properties: ["participantId", "grantedAt"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    rewardCode: p.string().length(48),
    type: enumColumn<RewardType>(),
    status: enumColumn<ParticipantRewardStatus>(),
    source: p.string().length(200),
    deliveryId: refColumn().nullable(),
    grantedAt: p.datetime(),
    expiresAt: p.datetime().nullable(),
  },
});
export type ParticipantReward = InferEntity<typeof ParticipantReward>;

/**
 * A reward someone must hand over: the client's system credits a
 * `client_delivered` one, club staff fulfil a `manual` or `partner` one
 * (`kind`, the reward's type). Created `pending`, closed as `delivered`
 * (confirm) or `failed`. `note` is staff's note on a confirm. `warnedAt` is
 * set when staff were warned that it stayed pending 48 hours. `payload` is
 * what to credit, as sent in `reward.delivery_requested` (null on deliveries
 * created before it was kept: the configured payload stands in).
 */
export const Delivery = defineEntity({
  name: "Delivery",
  tableName: "deliveries",
  indexes: [{ properties: ["clubId", "env", "status", "createdAt"] }, { properties: ["status", "createdAt"] }, { properties: ["participantId"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    participantRewardId: refColumn(),
    rewardCode: p.string().length(48),
    kind: enumColumn<DeliveryKind>().default("client_delivered"),
    status: enumColumn<DeliveryStatus>(),
    externalRef: p.string().length(200).nullable(),
    failReason: p.string().length(500).nullable(),
    note: p.string().length(500).nullable(),
    details: p.json<Record<string, unknown>>().nullable(),
    payload: p.json<Record<string, unknown>>().nullable(),
    createdAt: p.datetime(),
    confirmedAt: p.datetime().nullable(),
    warnedAt: p.datetime().nullable(),
  },
});
export type Delivery = InferEntity<typeof Delivery>;

/**
 * A reward bought with currency. The unique (club, env, idempotencyKey) makes a
 * repeat with the same Idempotency-Key answer the stored `result` with
 * `duplicate: true`.
 */
export const Redemption = defineEntity({
  name: "Redemption",
  tableName: "redemptions",
  uniques: [{ properties: ["clubId", "env", "idempotencyKey"] }],
  indexes: [{ properties: ["participantId", "createdAt"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    rewardCode: p.string().length(48),
    idempotencyKey: p.string().length(120).nullable(),
    cost: p.json<{ currency: string; amount: number }>(),
    result: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
  },
});
export type Redemption = InferEntity<typeof Redemption>;
