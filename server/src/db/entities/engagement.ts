import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { idColumn, refColumn, tenancyColumns } from "./columns.js";

/** A notice shown to the participant in the widget (`/v1/me/notifications`). */
export const Notification = defineEntity({
  name: "Notification",
  tableName: "notifications",
  indexes: [{ properties: ["participantId", "createdAt"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    kind: p.string().length(64),
    title: p.string().length(200),
    body: p.text().nullable(),
    view: p.string().length(64).nullable(),
    createdAt: p.datetime(),
    readAt: p.datetime().nullable(),
  },
});
export type Notification = InferEntity<typeof Notification>;

/**
 * A daily check-in. `dayKey` is the club day (check-in time zone and reset
 * hour), unique per participant so a day is claimed once; `periodKey` is the
 * month (`2026-11`) or the start day of the current streak; `dayIndex` is the
 * 0-based position in the calendar that was claimed.
 */
export const CheckinClaim = defineEntity({
  name: "CheckinClaim",
  tableName: "checkin_claims",
  uniques: [{ properties: ["participantId", "dayKey"] }],
  indexes: [{ properties: ["participantId", "periodKey"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    dayKey: p.string().length(10),
    periodKey: p.string().length(16),
    dayIndex: p.integer(),
    reward: p.string().length(120).nullable(),
    claimedAt: p.datetime(),
  },
});
export type CheckinClaim = InferEntity<typeof CheckinClaim>;

/**
 * One spin of the wheel, with the slice it landed on and the
 * `probabilityVersion` of the wheel it was drawn from; `result` is the
 * response returned, replayed for a repeat with the same Idempotency-Key.
 */
export const WheelSpin = defineEntity({
  name: "WheelSpin",
  tableName: "wheel_spins",
  uniques: [{ properties: ["clubId", "env", "idempotencyKey"] }],
  indexes: [{ properties: ["participantId", "dayKey"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    dayKey: p.string().length(10),
    sliceId: p.string().length(32),
    sliceIndex: p.integer(),
    rewardCode: p.string().length(120).nullable(),
    probabilityVersion: p.integer(),
    idempotencyKey: p.string().length(120).nullable(),
    result: p.json<Record<string, unknown>>(),
    spunAt: p.datetime(),
  },
});
export type WheelSpin = InferEntity<typeof WheelSpin>;
