import type { components } from "../../../../generated/types.js";
import { fromMinorUnits } from "../../engine/money.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { ApiError } from "../shared/errors.js";
import { loadParticipantState } from "../evaluation/index.js";
import { pricedReward, redeem, spendableBalance, type RedemptionView } from "./redemptions.js";
import { findMe } from "../participants/index.js";
import type { AfterCommit } from "../shared/after-commit.js";

/** The store (`/v1/me/store`): rewards with a price, and buying one. */

type Schemas = components["schemas"];
export type StoreItem = Schemas["StoreItem"];

/** GET /v1/me/store: every reward with a price, in configuration order, and whether the participant can pay it now. */
export async function listStore(db: Database, scope: Scope, externalId: string, now: Date): Promise<{ data: StoreItem[] }> {
  const em = db.em();
  const { participant, config, timeZone } = await findMe(em, db, scope, externalId);
  const state = await loadParticipantState(em, participant, config, { now, timeZone });
  const data: StoreItem[] = [];
  for (const reward of config.rewards) {
    if (reward.cost === null) continue;
    let priced;
    try {
      priced = pricedReward(config, reward.code);
    } catch (err) {
      // A price under one minor unit cannot be redeemed, so it is not on sale.
      if (err instanceof ApiError && err.code === "reward_has_no_price") continue;
      throw err;
    }
    data.push({
      code: reward.code,
      title: reward.title,
      description: reward.description ?? null,
      illustration: reward.illustration,
      type: reward.type,
      cost: { currency: priced.currency.code, amount: fromMinorUnits(priced.cost, priced.currency.decimals) },
      affordable: spendableBalance(state, priced.currency.code, now) >= priced.cost,
    });
  }
  return { data };
}

/** POST /v1/me/store/{reward_code}/redeem: a redemption for the calling participant (source `redemption:<code>`). */
export async function redeemFromStore(
  db: Database,
  scope: Scope,
  externalId: string,
  rewardCode: string,
  opts: { idempotencyKey?: string; now: Date; publicUrl: string; afterCommit?: AfterCommit },
): Promise<RedemptionView> {
  return redeem(db, scope, { participant: externalId, reward: rewardCode }, opts);
}
