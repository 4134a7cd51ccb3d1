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
 *
 * `peakMonth`/`peakLevel`/`priorMonthPeakLevel` feed the monthly tier review
 * (`demotion: monthly_review`): the highest level reached in the club month
 * `peakMonth` (the month of the latest level change), and in the month before
 * it. The month before is kept because the review of a month runs some time
 * after the month ended, and a level change early in the new month must not
 * erase what the review needs. All null until the level first changes.
 * Computed by usecases/evaluation/peak-level.ts.
 */
export const Participant = defineEntity({
  name: "Participant",
  tableName: "participants",
  uniques: [
    { properties: ["clubId", "env", "externalId"] },
    {
      // Partial (non-null codes only): a full unique index on a mostly-null column
      // looked cheap to the planner and was picked for the participant lock by external id.
      name: "participants_referral_code_partial_unique",
      expression: (table, columns, name) =>
        `create unique index ${name} on ${table.name} (${columns.clubId}, ${columns.env}, ${columns.referralCode}) where ${columns.referralCode} is not null`,
    },
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
    peakMonth: p.string().length(7).nullable(),
    peakLevel: p.integer().nullable(),
    priorMonthPeakLevel: p.integer().nullable(),
    /** The participant's own referral code, made when first asked for. */
    referralCode: p.string().length(16).nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Participant = InferEntity<typeof Participant>;
