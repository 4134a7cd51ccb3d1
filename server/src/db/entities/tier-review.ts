import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { idColumn, tenancyColumns } from "./columns.js";

/**
 * The monthly tier review (`demotion: monthly_review`) of one club,
 * environment and club month (`2026-11`). The unique (club, env, month) row
 * is how one worker claims a month's review: `startedAt` is when the claim
 * was taken (a claim whose worker died is taken over after a while, see
 * usecases/participants/tier-review.ts), `finishedAt` when every participant was reviewed.
 * `reviewed` is false for the month a club was first seen under monthly
 * review: the review is at the start of a month, so the first one is at the
 * start of the next month.
 */
export const TierReview = defineEntity({
  name: "TierReview",
  tableName: "tier_reviews",
  uniques: [{ properties: ["clubId", "env", "monthKey"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    monthKey: p.string().length(7),
    reviewed: p.boolean(),
    startedAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
  },
});
export type TierReview = InferEntity<typeof TierReview>;
