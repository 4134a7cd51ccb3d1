import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { enumColumn, idColumn, refColumn, tenancyColumns } from "./columns.js";

export type PromotionCodeStatus = "active" | "disabled";

/**
 * A promotional code (stored upper case, unique per club and env).
 * `redemptions` is the use count: a redemption takes a use with one
 * conditional update (`redemptions < maxRedemptions`), which is what makes a
 * single-use code succeed exactly once under concurrency.
 */
export const PromotionCode = defineEntity({
  name: "PromotionCode",
  tableName: "promotion_codes",
  uniques: [{ properties: ["clubId", "env", "code"] }],
  indexes: [{ properties: ["clubId", "env", "createdAt"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    code: p.string().length(32),
    reward: p.string().length(80),
    maxRedemptions: p.integer().nullable(),
    perParticipantLimit: p.integer(),
    startsAt: p.datetime().nullable(),
    endsAt: p.datetime().nullable(),
    audienceTag: p.string().length(64).nullable(),
    status: enumColumn<PromotionCodeStatus>(),
    redemptions: p.integer(),
    createdAt: p.datetime(),
    disabledAt: p.datetime().nullable(),
  },
});
export type PromotionCode = InferEntity<typeof PromotionCode>;

/** One redemption of a promotional code by a participant. */
export const CodeRedemption = defineEntity({
  name: "CodeRedemption",
  tableName: "code_redemptions",
  indexes: [{ properties: ["codeId", "participantId"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    codeId: refColumn(),
    participantId: refColumn(),
    createdAt: p.datetime(),
  },
});
export type CodeRedemption = InferEntity<typeof CodeRedemption>;
