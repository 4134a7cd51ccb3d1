import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { amountColumn, idColumn, refColumn, tenancyColumns } from "./columns.js";

/**
 * One club day of cashback paid to a participant: the day's net loss, the
 * percentage applied and the amount, in cents, as computed when it was paid.
 * A payment of several days (a claim) writes one row per day, all pointing at
 * the same reward and delivery. Unique per (participant, day), so a day is
 * paid once whatever runs concurrently; what was paid stays as paid when the
 * program changes later (`monthReceived` adds these amounts up).
 */
export const CashbackCredit = defineEntity({
  name: "CashbackCredit",
  tableName: "cashback_credits",
  uniques: [{ properties: ["participantId", "dayKey"] }],
  indexes: [{ properties: ["participantId", "paidAt"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    dayKey: p.string().length(10),
    loss: amountColumn(),
    pct: p.double().$type<number>(),
    amount: amountColumn(),
    participantRewardId: refColumn(),
    deliveryId: refColumn().nullable(),
    paidAt: p.datetime(),
  },
});
export type CashbackCredit = InferEntity<typeof CashbackCredit>;
