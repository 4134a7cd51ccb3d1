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
import {
  payRedemption,
  payRedemptionsTogether,
  paysTogether,
  readBalances,
  type ClaimRefused,
  type Payment,
  type RedemptionPayment,
} from "../../db/hot/redemption-writes.js";
import { groupCommitPer, groupsInFlight } from "../../db/group-commit.js";
import {
  claimKeyNow,
  doneWithTransaction,
  keyClaimForTransaction,
  keyReleasedWithTransaction,
  type TransactionKeyClaim,
} from "../../db/hot/idempotency-keys.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { requirePublishedConfig } from "../club/index.js";
import { clockOverride } from "../sandbox/index.js";
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

/** What a payment found and did, under the participant's lock (paidFrom). */
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
 * What a payment of `priced` (db/hot/redemption-writes.ts: the participant
 * locked and the price taken off its balance in one conditional statement,
 * unless a redemption is stored under the key) comes to: the redemption
 * evaluated against the state before the payment, the stored result of a
 * repeat, or no evaluation when the balance was short (nothing was paid).
 * For a currency without lots (the balance alone says what is spendable).
 */
async function paidFrom(store: HotStore, context: RedemptionContext, payment: RedemptionPayment, timeZone: string): Promise<Paid> {
  const { config, priced, opts } = context;
  const currency = priced.currency.code;
  const { participant, endpointEvents } = payment;
  const repeat = payment.stored && repeatOf(payment.stored, config);
  const stateOf = (balances: Balances) =>
    viewedState(participant, config, payment.balanceAfter === null ? balances : { ...balances, [currency]: payment.balanceAfter + priced.cost }, NO_MISSIONS);
  // The paid currency's balance alone: the price and a reward that moves no other currency need no more.
  let state = stateOf({ [currency]: payment.balance });
  if (repeat || payment.balanceAfter === null) return { repeat, participant, state, evaluation: null, endpointEvents };
  const now = opts.now;
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

/** The evaluation without the price's change of the balance, which the payment already made (its ledger line stays). */
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

/** A redemption's answer and its row, its other rows gathered in the transaction's PendingWrites. */
interface RedemptionRows {
  result: RedemptionView;
  redemption: RequiredEntityData<Redemption>;
  /** It added rows to the outbox: the relay is woken once they commit. */
  announced: boolean;
}

/**
 * The answer and the rows of a redemption evaluated as `evaluation` against
 * `state`, its rows but the redemption's own added to `writes`: `written` is
 * the evaluation whose delta is written (without the price when the payment
 * already took it off the stored balance).
 */
function redemptionRows(
  context: RedemptionContext,
  writes: PendingWrites,
  participant: ParticipantSnapshot & { id: string; externalId: string },
  state: ParticipantState,
  written: Evaluation,
  evaluation: Evaluation,
  announces?: (type: string) => boolean,
): RedemptionRows {
  const { scope, config, priced, key, opts } = context;
  const outboxBefore = writes.outbox.length;
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
  return { result, redemption, announced: writes.outbox.length > outboxBefore };
}

/** The redemptions' rows as one write. */
function redemptionsInsert(em: SqlEntityManager, rows: RequiredEntityData<Redemption>[]): Write {
  return { insert: shapeOf(em, Redemption), rows };
}

/**
 * The rows of a purchase paid in its own statement (paidFrom) and evaluated
 * as `evaluation` (its non-null one), added to `writes`: the webhooks no endpoint takes are not built (the relay would
 * mark them relayed unsent), and the participant's row is rewritten only
 * when the reward moved another of its columns (the payment's statement set
 * its updated_at).
 */
function purchaseRows(context: RedemptionContext, writes: PendingWrites, paid: Paid, evaluation: Evaluation): RedemptionRows {
  const { endpointEvents, participant } = paid;
  const announces = (type: string) => endpointEvents.some((events) => subscriptionMatches(events, type));
  const rows = redemptionRows(context, writes, participant, paid.state, withoutPayment(evaluation, context.priced), evaluation, announces);
  if (!movesParticipantColumns(participant, evaluation.delta)) writes.dropParticipantUpdate(participant.id);
  return rows;
}

/**
 * A redemption in a currency without lots, alone in a transaction on the
 * driver: paid first (payRedemption, paidFrom), then the rest of its rows
 * in one more statement, with the key's mark when `keyDone`. With a claim,
 * refused without paying when the key cannot be claimed.
 */
async function payFirst(purchase: Purchase, keyDone: ReturnType<typeof doneWithTransaction> = null): Promise<RedemptionView | ClaimRefused> {
  const { db, context, externalId, timeZone } = purchase;
  const { scope, priced, opts } = context;
  const { em } = db.orm;
  return inHotTransaction(em, async (store, transaction) => {
    const payment = await payRedemption(store, scope, paymentOf(purchase));
    if (!payment) throw participantNotFound(externalId);
    if ("refused" in payment) return payment;
    const paid = await paidFrom(store, context, payment, timeZone);
    if (paid.repeat) return paid.repeat;
    if (paid.evaluation === null) throw insufficientBalance(paid.participant, paid.state, priced, opts.now);
    const writes = new PendingWrites();
    const rows = purchaseRows(context, writes, paid, paid.evaluation);
    // One round trip on PostgreSQL: the delta, the redemption (its unique key), the outbox rows, the key's mark (when not claimed here) and the COMMIT.
    transaction.commitWithNext();
    await writes.flush(em, [redemptionsInsert(em, [rows.redemption]), ...(keyDone ? [keyDone.write] : [])], store);
    return purchase.done(rows);
  });
}

/** A redemption in a currency without lots, as it is paid alone or with others. */
interface Purchase {
  db: Database;
  context: RedemptionContext;
  externalId: string;
  claim: TransactionKeyClaim | null;
  timeZone: string;
  /** Its answer once its rows committed. */
  done(rows: RedemptionRows): RedemptionView;
}

/** A purchase's outcome when paid with others: its answer, its key refused, or why it failed (nothing of it was written). */
type PurchaseOutcome = RedemptionView | ClaimRefused | { failed: unknown };

function paymentOf({ context, externalId, claim }: Purchase): Payment {
  const { priced, key, opts } = context;
  return { externalId, currency: priced.currency.code, amount: priced.cost, idempotencyKey: key, now: opts.now, claim };
}

/**
 * PostgreSQL: purchases of distinct participants of one club environment in
 * one transaction of two round trips (db/hot/redemption-writes.ts
 * payRedemptionsTogether, then every purchase's rows and the COMMIT), each
 * with its own outcome. A purchase that fails (404, 409) writes nothing: its
 * key is released in the same commit. Throws, having committed nothing, when
 * the transaction fails.
 */
async function payTogether(purchases: Purchase[]): Promise<PurchaseOutcome[]> {
  const [{ db, context }] = purchases;
  const { scope } = context;
  const { em } = db.orm;
  const outcomes = new Array<PurchaseOutcome>(purchases.length);
  const bought: { index: number; rows: RedemptionRows }[] = [];
  let committing = false;
  try {
    await inHotTransaction(em, async (store, transaction) => {
      const payments = await payRedemptionsTogether(store, scope, purchases.map(paymentOf));
      const writes = new PendingWrites();
      const released: Write[] = [];
      for (let i = 0; i < purchases.length; i++) {
        const purchase = purchases[i];
        const payment = payments[i];
        if (!payment) outcomes[i] = { failed: participantNotFound(purchase.externalId) };
        else if ("refused" in payment) outcomes[i] = payment;
        else {
          const paid = await paidFrom(store, purchase.context, payment, purchase.timeZone);
          if (paid.repeat) outcomes[i] = paid.repeat;
          else if (paid.evaluation === null) {
            outcomes[i] = { failed: insufficientBalance(paid.participant, paid.state, purchase.context.priced, purchase.context.opts.now) };
            if (purchase.claim) released.push(keyReleasedWithTransaction(scope, purchase.claim.key));
          } else bought.push({ index: i, rows: purchaseRows(purchase.context, writes, paid, paid.evaluation) });
        }
      }
      transaction.commitWithNext();
      committing = true;
      await writes.flush(
        em,
        [
          redemptionsInsert(
            em,
            bought.map(({ rows }) => rows.redemption),
          ),
          ...released,
        ],
        store,
      );
    });
  } catch (err) {
    // Before the COMMIT, or refused by the server (which rolled it back): nothing committed, each is paid alone again.
    if (!committing || rolledBack(err)) throw err;
    // The COMMIT's outcome is unknown (the connection broke): paid again, a purchase without a key could be paid twice.
    for (const { index } of bought) outcomes[index] = { failed: err };
    return outcomes;
  }
  for (const { index, rows } of bought) outcomes[index] = purchases[index].done(rows);
  return outcomes;
}

/** The server refused a statement with an ERROR, so it rolled the transaction back (a broken connection or a FATAL error leaves the COMMIT's outcome unknown). */
function rolledBack(err: unknown): boolean {
  return (err as { severity?: unknown } | null)?.severity === "ERROR";
}

/**
 * Purchases gathered together (group commit, db/group-commit.ts): those of
 * distinct participants paid in one transaction (payTogether), a
 * participant's second purchase of the group after it, alone, so it sees
 * the first. Throws, having committed nothing, when the transaction fails:
 * each purchase is then paid alone.
 */
async function payGathered(purchases: Purchase[]): Promise<PurchaseOutcome[]> {
  const seen = new Set<string>();
  const together: number[] = [];
  const after: number[] = [];
  purchases.forEach(({ externalId }, i) => {
    (seen.has(externalId) ? after : together).push(i);
    seen.add(externalId);
  });
  const outcomes = new Array<PurchaseOutcome>(purchases.length);
  const paid = await payTogether(together.map((i) => purchases[i]));
  together.forEach((i, k) => (outcomes[i] = paid[k]));
  for (const i of after) outcomes[i] = await payFirst(purchases[i]).catch((failed: unknown) => ({ failed }));
  return outcomes;
}

/** At most this many purchases share one transaction. */
const PURCHASES_PER_GROUP = 64;

const purchasesOf = groupCommitPer<Database, Purchase, PurchaseOutcome>((db) => ({
  cap: PURCHASES_PER_GROUP,
  maxInFlight: groupsInFlight(db),
  applyGroup: (_, purchases) => payGathered(purchases),
  applyOne: (_, purchase) => payFirst(purchase),
}));

/**
 * Pays `purchase`: on PostgreSQL with the purchases of the same club
 * environment arriving at the same time, in one transaction (see
 * payGathered; a test clock's never mix with real time's), on SQLite alone.
 */
async function pay(purchase: Purchase): Promise<RedemptionView | ClaimRefused> {
  const { db, context, claim } = purchase;
  if (!paysTogether(db)) return payFirst(purchase);
  // One statement text per group: the payments claiming their keys, or not.
  const key = [context.scope.clubId, context.scope.env, claim ? "claiming" : "not-claiming", clockOverride() === undefined ? "real" : "test"].join("\u0000");
  const outcome = await purchasesOf(db).submit(key, purchase);
  if ("failed" in outcome) throw outcome.failed;
  return outcome;
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
 *
 * On PostgreSQL, redemptions of one club environment arriving together in a
 * currency without lots share one transaction (group commit, as single
 * events do): each keeps its own outcome, and one that fails writes nothing
 * (see payGathered).
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
    if (rows.announced) opts.afterCommit?.("outbox");
    return rows.result;
  };
  try {
    if (priced.currency.expiresInDays === null) {
      // A currency without lots: the key's claim, the lock, the key's lookup and the debit in one statement (payRedemption), in a transaction on the driver.
      const claim = keyClaimForTransaction(scope, key);
      const paying = await pay({ db, context, externalId: request.participant, claim, timeZone, done });
      if (!("refused" in paying)) {
        claim?.committed();
        return paying;
      }
      if (paying.refused === "in_use") throw claim!.inUse();
      // The key is taken (reused, done, or in flight elsewhere): the key's own claim sorts it out, then the redemption runs (a repeat answers its stored result).
      await claimKeyNow(scope, key);
      keyDone = doneWithTransaction(scope, key);
      const answer = await payFirst({ db, context, externalId: request.participant, claim: null, timeZone, done }, keyDone);
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
      const writes = new PendingWrites();
      const rows = redemptionRows(context, writes, participant, state, evaluation, evaluation);
      await writes.flush(em, [redemptionsInsert(em, [rows.redemption]), ...(keyDone ? [keyDone.write] : [])]);
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
