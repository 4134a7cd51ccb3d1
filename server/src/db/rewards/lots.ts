import { raw } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { Balance, CurrencyLot } from "../entities/index.js";
import type { Scope } from "../scope.js";

/* The statements of lot expiry (usecases/rewards/lot-expiry.ts). */

/** A page of the participants (ids after `after`, in id order) holding unspent lots due to expire at `now`. */
export async function participantsWithDueLotsPage(em: SqlEntityManager, at: { now: Date; after: string; pageSize: number; scope?: Scope }): Promise<string[]> {
  const rows = await em
    .createQueryBuilder(CurrencyLot)
    .select("participantId")
    // Written out rather than bound: only a literal `remaining > 0` lets SQLite use the partial index (entities/wallet.ts).
    .where("remaining > 0")
    .andWhere({ ...at.scope, expiresAt: { $lte: at.now }, participantId: { $gt: at.after } })
    .groupBy("participantId")
    .orderBy({ participantId: "asc" })
    .limit(at.pageSize)
    .execute<{ participantId: string }[]>("all");
  return rows.map((row) => row.participantId);
}

/** Takes `amount` from the participant's balance of `currency`, atomically, only if it holds that much; whether it did. */
export async function debitBalanceIfHeld(em: SqlEntityManager, participantId: string, currency: string, amount: number, now: Date): Promise<boolean> {
  const updated = await em.nativeUpdate(
    Balance,
    { participantId, currency, amount: { $gte: amount } },
    { amount: raw("amount - ?", [amount]), updatedAt: now },
  );
  return updated === 1;
}
