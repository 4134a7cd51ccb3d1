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
    /** Provably fair spins: the seed pair (WheelSeed) and the nonce the slice was derived from; null for spins drawn otherwise. */
    seedId: refColumn().nullable(),
    nonce: p.integer().nullable(),
    /** The slice weights the spin was drawn with, in wheel order, so the audit can recompute it. */
    weights: p.json<number[]>().nullable(),
  },
});
export type WheelSpin = InferEntity<typeof WheelSpin>;

/**
 * A participant's provably fair seed pair. The server seed stays secret while
 * the pair is active (`revealedAt` null) — only its SHA-256 `serverSeedHash`
 * is shown — and is revealed by a rotation, after which every spin drawn with
 * it can be recomputed. `nextNonce` counts the spins drawn with the pair.
 * At most one active pair per participant (made under the participant's lock).
 */
export const WheelSeed = defineEntity({
  name: "WheelSeed",
  tableName: "wheel_seeds",
  indexes: [{ properties: ["participantId", "revealedAt"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    serverSeed: p.string().length(64),
    serverSeedHash: p.string().length(64),
    clientSeed: p.string().length(64),
    nextNonce: p.integer(),
    createdAt: p.datetime(),
    revealedAt: p.datetime().nullable(),
  },
});
export type WheelSeed = InferEntity<typeof WheelSeed>;
