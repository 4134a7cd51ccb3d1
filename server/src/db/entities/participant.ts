import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { amountColumn, idColumn, tenancyColumns } from "./columns.js";

/**
 * A participant: one of the client's users in one club and environment,
 * identified by the client's `externalId`. Every other participant-owned row
 * points at `id`, so a rename rewrites only `externalId`.
 *
 * `xp`, `level` and `tierCode` are the current state the event engine keeps up
 * to date (level and tier are stored so a change can be detected and reported
 * as `level_up`/`tier_changed`); `eventCounts` counts events per type for the
 * `first_time`/`nth` rule conditions.
 */
export const Participant = defineEntity({
  name: "Participant",
  tableName: "participants",
  uniques: [
    { properties: ["clubId", "env", "externalId"] },
    { properties: ["clubId", "env", "referralCode"] },
  ],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    externalId: p.string().length(128),
    displayName: p.string().length(80).nullable(),
    avatarUrl: p.text().nullable(),
    email: p.string().length(320).nullable(),
    phone: p.string().length(32).nullable(),
    tags: p.json<string[]>(),
    flags: p.json<Record<string, unknown>>(),
    xp: amountColumn(),
    level: p.integer(),
    tierCode: p.string().length(32).nullable(),
    eventCounts: p.json<Record<string, number>>(),
    /** The participant's own referral code, made when first asked for. */
    referralCode: p.string().length(16).nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Participant = InferEntity<typeof Participant>;
