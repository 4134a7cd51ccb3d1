import { UniqueConstraintViolationException, type RequiredEntityData } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import type { ClubConfig, CurrencyConfig, RewardConfig } from "../../engine/config.js";
import { grantRewards, type EngineInput } from "../../engine/evaluate.js";
import { expiredAmount, spendLots } from "../../engine/lots.js";
import { fromMinorUnits, toMinorUnits } from "../../engine/money.js";
import type { Evaluation, MissionState, ParticipantState } from "../../engine/types.js";
import { Redemption } from "../../db/entities/index.js";
import { shapeOf, type HotStore, type Write } from "../../db/hot/index.js";
import { inHotTransaction } from "../../db/hot/transaction.js";
import { payRedemption, readBalances, type ClaimRefused } from "../../db/hot/redemption-writes.js";
import { claimKeyNow, doneWithTransaction, keyClaimForTransaction, type TransactionKeyClaim } from "../../db/hot/idempotency-keys.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { requirePublishedConfig } from "../club/index.js";
import { ApiError, notFound } from "../shared/errors.js";
import { webhookMessage } from "../webhooks/index.js";
import { subscriptionMatches } from "../../webhooks/envelope.js";
import {
  clubTimeZone,
  gatherEvaluation,
  loadParticipantState,
  lockParticipant,
  movesParticipantColumns,
  viewedState,
  webhookParticipant,
  type ParticipantSnapshot,
} from "../evaluation/index.js";
import type { Balances } from "../participants/index.js";
import { PendingWrites } from "../evaluation/index.js";
import { participantNotFound } from "../participants/index.js";
import type { AfterCommit } from "../shared/after-commit.js";

type Schemas = components["schemas"];
export type RedemptionView = Schemas["Redemption"];
export type RedemptionRequest = Schemas["RedemptionRequest"];

/** A reward for sale and its price in the currency's minor unit. */
export interface PricedReward {
  reward: RewardConfig;
  currency: CurrencyConfig;
  /** Minor units, at least 1. */
  cost: number;
}

/**
 * The reward with `code` and its price, or why it cannot be bought: 404
 * `not_found` for a code the configuration lacks, 422 `reward_has_no_price`
 * for a reward without `cost` (or one under a single minor unit, which
 * would make it free).
 */
export function pricedReward(config: ClubConfig, code: string): PricedReward {
  const reward = config.rewards.find((candidate) => candidate.code === code);
  if (!reward) throw notFound(`Reward ${JSON.stringify(code)}`);
  const noPrice = (why: string) => new ApiError(422, "reward_has_no_price", `Reward ${JSON.stringify(code)} ${why} and cannot be redeemed.`);
  if (reward.cost === null) throw noPrice("has no cost");
  // The configuration check guarantees the currency exists.
  const currency = config.currencies.find((candidate) => candidate.code === reward.cost!.currency)!;
  const cost = toMinorUnits(reward.cost.amount, currency.decimals);
  if (cost < 1) throw noPrice(`costs less than one unit of ${currency.code}`);
  return { reward, currency, cost };
}

/** The balance a payment can use: lots that expired but were not removed yet do not count. */
export function spendableBalance(state: ParticipantState, currency: string, now: Date): number {
  return (state.balances[currency] ?? 0) - expiredAmount(state.lots, currency, now);
}

/**
 * What redeeming `priced` does to the participant: a `currency_debited`
 * payment (spending the oldest unexpired lots first) followed by the reward's
 * grant, attributed to `redemption:<code>`. Null when the spendable balance is
 * short, in which case nothing may change. Pure.
 */
export function redemptionEvaluation(input: EngineInput & { priced: PricedReward }): Evaluation | null {
  const { state, now, priced } = input;
  const currency = priced.currency.code;
  if (spendableBalance(state, currency, now) < priced.cost) return null;
  const ruleId = `redemption:${priced.reward.code}`;
  const grant = grantRewards({ ...input, specs: [`reward:${priced.reward.code}`], ruleId });
  return {
    ...grant,
    effects: [{ type: "currency_debited", currency, amount: fromMinorUnits(priced.cost, priced.currency.decimals), rule_id: ruleId }, ...grant.effects],
    delta: {
      ...grant.delta,
      ledger: [{ unit: currency, delta: -priced.cost, reason: "debit_currency", ruleId }, ...grant.delta.ledger],
      balances: { ...grant.delta.balances, [currency]: (grant.delta.balances[currency] ?? 0) - priced.cost },
      lotsConsumed: spendLots(state.lots, currency, priced.cost, now),
      // The payment comes first in the effects, so each grant's effect moved one place.
      rewards: grant.delta.rewards.map((reward) => ({ ...reward, effectIndex: reward.effectIndex + 1 })),
    },
  };
}

/** What paidFirst found and did, under the participant's lock. */
interface Paid {
  /** The result stored under the key: nothing was paid. */
  repeat: RedemptionView | null;
  participant: ParticipantSnapshot & { id: string; externalId: string };
  /** The state before the payment. */
  state: ParticipantState;
  /** Null when the balance was short: nothing was paid. */
  evaluation: Evaluation | null;
  /** The `events` of each enabled endpoint of the scope, as the payment's statement read them. */
  endpointEvents: string[][];
}

/**
 * Locks the participant and pays `priced` from its balance in one
 * conditional statement (db/hot/redemption-writes.ts) in the transaction of
 * `store`, unless a redemption is stored under `key`; then evaluates the
 * redemption against the state before the payment. Null when no such
 * participant. For a currency without lots (the balance alone says what is
 * spendable). With `claim`, the statement claims the request's
 * Idempotency-Key first and pays only if it did (else says why not).
 */
async function paidFirst(
  store: HotStore,
  scope: Scope,
  externalId: string,
  priced: PricedReward,
  key: string | null,
  now: Date,
  config: ClubConfig,
  timeZone: string,
  claim: TransactionKeyClaim | null,
): Promise<Paid | ClaimRefused | null> {
  const currency = priced.currency.code;
  const payment = await payRedemption(store, scope, { externalId, currency, amount: priced.cost, idempotencyKey: key, now, claim });
  if (!payment || "refused" in payment) return payment;
  const { participant } = payment;
  const repeat = payment.stored && repeatOf(payment.stored, config);
  const stateOf = (balances: Balances) =>
    viewedState(participant, config, payment.balanceAfter === null ? balances : { ...balances, [currency]: payment.balanceAfter + priced.cost }, NO_MISSIONS);
  // The paid currency's balance alone: the price and a reward that moves no other currency need no more.
  let state = stateOf({ [currency]: payment.balance });
  const { endpointEvents } = payment;
  if (repeat || payment.balanceAfter === null) return { repeat, participant, state, evaluation: null, endpointEvents };
  let evaluation = redemptionEvaluation({ config, state, now, timeZone, priced });
  // The reward moves another currency: every balance as committed now (the statement read the paid one alone).
  if (evaluation && evaluation.delta.ledger.some((line) => line.unit !== "xp" && line.unit !== currency)) {
    state = stateOf(await readBalances(store, participant.id));
    evaluation = redemptionEvaluation({ config, state, now, timeZone, priced });
  }
  if (evaluation === null) throw new Error(`redemption of ${priced.reward.code} refused after its payment`);
  return { repeat: null, participant, state, evaluation, endpointEvents };
}
const NO_MISSIONS: Record<string, MissionState> = Object.freeze({}) as Record<string, MissionState>;

/** The evaluation without the price's change of the balance, which paidFirst already made (its ledger line stays). */
function withoutPayment(evaluation: Evaluation, priced: PricedReward): Evaluation {
  const currency = priced.currency.code;
  return {
    ...evaluation,
    delta: { ...evaluation.delta, balances: { ...evaluation.delta.balances, [currency]: (evaluation.delta.balances[currency] ?? 0) + priced.cost } },
  };
}

/** `pending` while someone still has to hand the reward over: the client's system or club staff. */
function deliveryStatus(reward: RewardConfig): RedemptionView["delivery_status"] {
  return reward.type === "internal" ? "delivered" : "pending";
}

/** The result stored under an Idempotency-Key, as a repeat answers it. */
async function storedRedemption(em: SqlEntityManager, scope: Scope, idempotencyKey: string, config: ClubConfig): Promise<RedemptionView | null> {
  const stored = await em.findOne(Redemption, { ...scope, idempotencyKey }, { fields: ["result"] });
  return stored ? repeatOf(stored.result as Record<string, any>, config) : null;
}

/** A stored result as a repeat answers it; one stored while money was served in minor units, in the contract's main units. */
function repeatOf(result: Record<string, any>, config: ClubConfig): RedemptionView {
  if (typeof result.balance_after_minor !== "number") return { ...(result as RedemptionView), duplicate: true };
  const main = (code: string, minor: number) => fromMinorUnits(minor, config.currencies.find((currency) => currency.code === code)?.decimals ?? 0);
  const { balance_after_minor: balanceAfter, cost, effects, ...rest } = result;
  return {
    ...rest,
    cost: { currency: cost.currency, amount: main(cost.currency, cost.amount_minor) },
    balance_after: main(cost.currency, balanceAfter),
    effects: (effects as Record<string, any>[]).map(({ amount_minor: minor, ...effect }) =>
      typeof minor === "number" ? { ...effect, amount: main(effect.currency, minor) } : effect,
    ),
    duplicate: true,
  } as RedemptionView;
}

/** 409 `insufficient_balance`: the spendable balance is short of the price (nothing was spent). */
function insufficientBalance(participant: { externalId: string }, state: ParticipantState, priced: PricedReward, now: Date): ApiError {
  return new ApiError(
    409,
    "insufficient_balance",
    `Participant ${JSON.stringify(participant.externalId)} has ${spendableBalance(state, priced.currency.code, now)} ${priced.currency.code}; reward ${JSON.stringify(priced.reward.code)} costs ${priced.cost}.`,
  );
}

/** What every step of one redemption knows. */
interface RedemptionContext {
  scope: Scope;
  config: ClubConfig;
  priced: PricedReward;
  key: string | null;
  opts: { now: Date; publicUrl: string };
}

/** A redemption's answer and what its transaction writes. */
interface RedemptionRows {
  result: RedemptionView;
  writes: PendingWrites;
  /** The redemption row and the Idempotency-Key's mark, written with `writes`. */
  also: Write[];
}

/**
 * The answer and the rows of a redemption evaluated as `evaluation` against
 * `state`: `written` is the evaluation whose delta is written (without the
 * price when paidFirst already took it off the stored balance).
 */
function redemptionRows(
  context: RedemptionContext,
  em: SqlEntityManager,
  keyDone: ReturnType<typeof doneWithTransaction>,
  participant: ParticipantSnapshot & { id: string; externalId: string },
  state: ParticipantState,
  written: Evaluation,
  evaluation: Evaluation,
  announces?: (type: string) => boolean,
): RedemptionRows {
  const { scope, config, priced, key, opts } = context;
  const writes = new PendingWrites();
  const { effects } = gatherEvaluation(
    writes,
    { scope, config, participant, state, now: opts.now, publicUrl: opts.publicUrl, event: null, announces, purchase: true },
    written,
  );
  const cost = { currency: priced.currency.code, amount: fromMinorUnits(priced.cost, priced.currency.decimals) };
  const result: RedemptionView = {
    id: newId("red"),
    reward_code: priced.reward.code,
    title: priced.reward.title,
    cost,
    // The evaluation's balance delta: the price, plus what an internal reward paid back in the same currency.
    balance_after: fromMinorUnits((state.balances[cost.currency] ?? 0) + (evaluation.delta.balances[cost.currency] ?? 0), priced.currency.decimals),
    delivery_status: deliveryStatus(priced.reward),
    duplicate: false,
    effects,
  };
  const redemption: RequiredEntityData<Redemption> = {
    id: result.id,
    ...scope,
    participantId: participant.id,
    rewardCode: priced.reward.code,
    idempotencyKey: key,
    cost: { currency: cost.currency, amount: priced.cost },
    result,
    createdAt: opts.now,
  };
  if (announces === undefined || announces("store.purchased")) {
    const purchased: Schemas["StorePurchasedWebhookData"] = {
      participant: webhookParticipant(participant),
      reward_code: priced.reward.code,
      cost,
      redemption_id: result.id,
    };
    writes.outbox.push(webhookMessage(scope, "store.purchased", purchased, opts.now));
  }
  return { result, writes, also: [{ insert: shapeOf(em, Redemption), rows: [redemption] }, ...(keyDone ? [keyDone.write] : [])] };
}

/**
 * A redemption in a currency without lots, in a transaction on the driver:
 * paid first (paidFirst), then the rest of its rows in one more statement.
 * With `claim`, refused without paying when the key cannot be claimed.
 */
async function payFirst(
  db: Database,
  context: RedemptionContext,
  externalId: string,
  claim: TransactionKeyClaim | null,
  keyDone: ReturnType<typeof doneWithTransaction>,
  timeZone: string,
  done: (rows: RedemptionRows) => RedemptionView,
): Promise<RedemptionView | ClaimRefused> {
  const { scope, config, priced, key, opts } = context;
  const { em } = db.orm;
  return inHotTransaction(em, async (store, transaction) => {
    const paid = await paidFirst(store, scope, externalId, priced, key, opts.now, config, timeZone, claim);
    if (!paid) throw participantNotFound(externalId);
    if ("refused" in paid) return paid;
    if (paid.repeat) return paid.repeat;
    if (paid.evaluation === null) throw insufficientBalance(paid.participant, paid.state, priced, opts.now);
    const { endpointEvents } = paid;
    const announces = (type: string) => endpointEvents.some((events) => subscriptionMatches(events, type));
    // The webhooks no endpoint takes are not built (the relay would mark them relayed unsent).
    const rows = redemptionRows(context, em, keyDone, paid.participant, paid.state, withoutPayment(paid.evaluation, priced), paid.evaluation, announces);
    // The payment's statement set the participant's updated_at: its row is rewritten only when the reward moved another column.
    if (!movesParticipantColumns(paid.participant, paid.evaluation.delta)) rows.writes.dropParticipantUpdate(paid.participant.id);
    // One round trip on PostgreSQL: the delta, the redemption (its unique key), the outbox rows, the key's mark (when not claimed here) and the COMMIT.
    transaction.commitWithNext();
    await rows.writes.flush(em, rows.also, store);
    return done(rows);
  });
}

/**
 * POST /v1/redemptions (and the store): spends the reward's price from the
 * participant's balance and grants the reward in one transaction holding the
 * participant's lock, so two redemptions that together exceed the balance
 * cannot both pass. A `client_delivered` reward gets a pending delivery and
 * `reward.delivery_requested` with source `redemption:<code>`; every
 * redemption sends `store.purchased`. The participant's inbox gets no entry
 * for the reward bought (the answer shows it), only later for its delivery's
 * outcome.
 *
 * With an Idempotency-Key, a key seen before answers the stored result with
 * `duplicate: true` and spends nothing, whatever the body of the repeat.
 * 404 unknown participant or reward; 422 `reward_has_no_price`; 409
 * `insufficient_balance` (nothing spent).
 */
export async function redeem(
  db: Database,
  scope: Scope,
  request: RedemptionRequest,
  opts: { idempotencyKey?: string; now: Date; publicUrl: string; afterCommit?: AfterCommit },
): Promise<RedemptionView> {
  const key = opts.idempotencyKey ?? null;
  const { config } = await requirePublishedConfig(db, scope);
  let priced: PricedReward;
  try {
    priced = pricedReward(config, request.reward);
  } catch (err) {
    // A repeat answers what the key stored even when the reward is no longer for sale (the transaction below looks the key up otherwise); a reused key is refused first.
    await claimKeyNow(scope, key);
    const earlier = key === null ? null : await storedRedemption(db.em(), scope, key, config);
    if (earlier) return earlier;
    throw err;
  }
  const timeZone = clubTimeZone(config);
  const context = { scope, config, priced, key, opts };
  // The request's Idempotency-Key, marked done with the redemption it guards (no statement of its own after).
  let keyDone: ReturnType<typeof doneWithTransaction> = null;
  const done = (rows: RedemptionRows) => {
    // The relay is woken only for rows it has to hand over: a pass that finds none still costs it a transaction.
    if (rows.writes.outbox.length > 0) opts.afterCommit?.("outbox");
    return rows.result;
  };
  try {
    if (priced.currency.expiresInDays === null) {
      // A currency without lots: the key's claim, the lock, the key's lookup and the debit in one statement (paidFirst), in a transaction on the driver.
      const claim = keyClaimForTransaction(scope, key);
      const paying = await payFirst(db, context, request.participant, claim, null, timeZone, done);
      if (!("refused" in paying)) {
        claim?.committed();
        return paying;
      }
      if (paying.refused === "in_use") throw claim!.inUse();
      // The key is taken (reused, done, or in flight elsewhere): the key's own claim sorts it out, then the redemption runs (a repeat answers its stored result).
      await claimKeyNow(scope, key);
      keyDone = doneWithTransaction(scope, key);
      const answer = await payFirst(db, context, request.participant, null, keyDone, timeZone, done);
      if ("refused" in answer) throw new Error("a redemption without a key claim was refused its claim");
      // A repeat wrote nothing: its key is left to the caller to mark.
      if (!answer.duplicate) keyDone?.committed();
      return answer;
    }
    // Expiring currencies: their lots decide what is spendable, read under the participant's lock.
    await claimKeyNow(scope, key);
    keyDone = doneWithTransaction(scope, key);
    const answer = await db.em().transactional(async (em) => {
      const participant = await lockParticipant(em, { ...scope, externalId: request.participant });
      if (!participant) throw participantNotFound(request.participant);
      const repeat = key === null ? null : await storedRedemption(em, scope, key, config);
      if (repeat) return repeat;
      const state = await loadParticipantState(em, participant, config, { now: opts.now, timeZone });
      const evaluation = redemptionEvaluation({ config, state, now: opts.now, timeZone, priced });
      if (evaluation === null) throw insufficientBalance(participant, state, priced, opts.now);
      const rows = redemptionRows(context, em, keyDone, participant, state, evaluation, evaluation);
      await rows.writes.flush(em, rows.also);
      return done(rows);
    });
    if (!answer.duplicate) keyDone?.committed();
    return answer;
  } catch (err) {
    // The same key sent at the same time (for this participant or another), whose redemption committed first: its row's unique key refused ours.
    if (key === null || !(err instanceof UniqueConstraintViolationException)) throw err;
    const stored = await storedRedemption(db.em(), scope, key, config);
    if (!stored) throw err;
    return stored;
  }
}
