import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { enumColumn, idColumn, refColumn, tenancyColumns } from "./columns.js";

export type ReferralStatus = "pending" | "qualified";
export type AffiliateStatus = "active" | "paused";

/**
 * A referral: `referredId` signed up with `referrerId`'s code. A participant is
 * referred at most once (unique per club and env).
 */
export const Referral = defineEntity({
  name: "Referral",
  tableName: "referrals",
  uniques: [{ properties: ["clubId", "env", "referredId"] }],
  indexes: [{ properties: ["referrerId", "createdAt"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    referrerId: refColumn(),
    referredId: refColumn(),
    code: p.string().length(16),
    status: enumColumn<ReferralStatus>(),
    createdAt: p.datetime(),
    qualifiedAt: p.datetime().nullable(),
  },
});
export type Referral = InferEntity<typeof Referral>;

/** An affiliate (a partner who brings players through a link carrying `code`). */
export const Affiliate = defineEntity({
  name: "Affiliate",
  tableName: "affiliates",
  uniques: [{ properties: ["clubId", "env", "code"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    code: p.string().length(16),
    name: p.string().length(80),
    status: enumColumn<AffiliateStatus>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Affiliate = InferEntity<typeof Affiliate>;

/** A player attributed to an affiliate; a player belongs to at most one affiliate. */
export const AffiliateAttribution = defineEntity({
  name: "AffiliateAttribution",
  tableName: "affiliate_attributions",
  uniques: [{ properties: ["clubId", "env", "participantId"] }],
  indexes: [{ properties: ["affiliateId"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    affiliateId: refColumn(),
    participantId: refColumn(),
    signupAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type AffiliateAttribution = InferEntity<typeof AffiliateAttribution>;
