import { raw, type FilterQuery } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { PromotionCode } from "../entities/index.js";

/** Counts one redemption on the code matching `where` (its id and what must still hold), atomically; whether a row matched. */
export async function countCodeRedemption(em: SqlEntityManager, where: FilterQuery<PromotionCode>): Promise<boolean> {
  return (await em.nativeUpdate(PromotionCode, where, { redemptions: raw("redemptions + 1") })) > 0;
}
