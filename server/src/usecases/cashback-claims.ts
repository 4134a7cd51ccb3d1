import { raw } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../generated/types.js";
import {
  cashbackState,
  claimableDays,
  clubDays,
  dayCashback,
  dueDays,
  netLoss,
  type BetTotals,
  type CashbackAvailableDay,
  type CashbackInput,
  type CashbackProgram,
  type CashbackState,
  type ClubDay,
} from "../engine/cashback.js";
import type { ClubConfig, RewardConfig } from "../engine/config.js";
import { grantRewards } from "../engine/evaluate.js";
import { dayKey, monthKey } from "../engine/time.js";
import { Event, Participant, ParticipantReward } from "../db/entities/index.js";
import type { Database } from "../db/orm.js";
import type { Scope } from "../db/scope.js";
import { getCashbackProgram } from "./cashback.js";
import { requirePublishedConfig } from "./config.js";
import { ApiError } from "./errors.js";
import { recordWebhook } from "./outbox.js";
import { clubTimeZone, loadParticipantState, lockParticipant, persistEvaluation, webhookParticipant } from "./participant-state.js";
import { participantNotFound } from "./participants.js";

/*
 * The participant's cashback: computing days from their bets, claiming them
 * (`claim` mode) and paying them at the program's hour (`auto` mode).
 *
 * A day's totals are summed from the events table (the `bet.placed` and
 * `bet.settled` amounts received in that club day) rather than kept in a
 * counter of their own: the events are the facts, so there is no second
 * number that a lost update, a duplicate or a replay could make drift. Days
 * go by receipt time: a day that has ended can receive no more events, so its
 * cashback cannot change after it is shown or paid.
 *
 * A payment is a `client_delivered` reward with the payload
 * `{kind: "cash", amount_cents}` (hence a pending delivery and
 * `reward.delivery_requested`) and `cashback.credited`. Its source records the
 * club days it settles: `cashback:<day>` or `cashback:<first day>..<last day>`.
 * Every payment settles every payable day up to its last day (a claim takes
 * all waiting days, `auto` mode pays day by day in order), so the newest last
 * day is how far the participant is settled.
 *
 * Amounts paid are not stored per day: `monthReceived` recomputes the days of
 * this month's payments from their events. A program changed since then makes
 * it differ from what was paid; a table of paid days (requested) removes that.
 */

type CashbackClaimResult = components["schemas"]["CashbackClaimResult"];

const SOURCE_PREFIX = "cashback:";
const RANGE = "..";

/** The reward a payment grants. Listed first among the club's rewards, so a club reward with the same code never stands in for it. */
function cashbackReward(amountCents: number): RewardConfig {
  return {
    code: "cashback",
    title: "Cashback",
    illustration: "gift",
    type: "client_delivered",
    payload: { kind: "cash", amount_cents: amountCents },
    expiresInDays: null,
    cost: null,
  };
}

/** The club days a payment's source covers: its first and last day. */
function settledRange(source: string): { first: string; last: string } {
  const [first, last = first] = source.slice(SOURCE_PREFIX.length).split(RANGE);
  return { first, last };
}

/**
 * Sums of `bet.placed` and `bet.settled` received in `day`, per participant
 * (one participant, or every one of the club). `amountMinor` is the amount in
 * cents, exact. Repeats (`duplicateOf`) and events that failed are not bets.
 */
async function betTotals(em: SqlEntityManager, scope: Scope, day: ClubDay, participantId?: string): Promise<Map<string, BetTotals>> {
  const rows = await em
    .createQueryBuilder(Event)
    .select(["participantId", "type", raw("sum(amount_minor) as total")])
    .where({
      ...scope,
      ...(participantId === undefined ? {} : { participantId }),
      type: { $in: ["bet.placed", "bet.settled"] },
      duplicateOf: null,
      status: { $ne: "failed" },
      receivedAt: { $gte: day.start, $lt: day.end },
    })
    .groupBy(["participantId", "type"])
    .execute<{ participantId: string; type: string; total: number | string | null }[]>("all");
  const totals = new Map<string, BetTotals>();
  for (const row of rows) {
    const entry = totals.get(row.participantId) ?? { staked: 0, received: 0 };
    if (row.type === "bet.placed") entry.staked = Number(row.total ?? 0);
    else entry.received = Number(row.total ?? 0);
    totals.set(row.participantId, entry);
  }
  return totals;
}

interface Payment {
  first: string;
  last: string;
  grantedAt: Date;
}

// A payment of a day still claimable, or made this calendar month, is at most
// two months old: a window of claim_days ≤ 30 days, or a month of ≤ 31 days
// covering days up to 30 days before it.
const PAYMENT_LOOKBACK_MS = 62 * 86_400_000;

/** The participant's recent cashback payments (see PAYMENT_LOOKBACK_MS). */
async function recentPayments(em: SqlEntityManager, participantId: string, now: Date): Promise<Payment[]> {
  const rows = await em.find(
    ParticipantReward,
    { participantId, source: { $like: `${SOURCE_PREFIX}%` }, grantedAt: { $gte: new Date(now.getTime() - PAYMENT_LOOKBACK_MS) } },
    { fields: ["source", "grantedAt"] },
  );
  return rows.map((row) => ({ ...settledRange(row.source), grantedAt: row.grantedAt }));
}

/** Whole calendar days from day key `from` to day key `to`. */
const daysBetween = (from: string, to: string) => Math.round((Date.parse(to) - Date.parse(from)) / 86_400_000);

/**
 * Everything the engine needs about one participant: the bet totals of the
 * days still payable and of the days this month's payments covered, how far
 * they are settled, and what this month paid. `preloaded` totals (the `auto`
 * run reads every participant's at once) are not read again.
 */
async function cashbackInput(
  em: SqlEntityManager,
  scope: Scope,
  participant: Participant,
  program: CashbackProgram,
  at: { now: Date; timeZone: string; preloaded?: Record<string, BetTotals> },
): Promise<CashbackInput> {
  const { now, timeZone } = at;
  const todayKey = dayKey(now, timeZone);
  const month = monthKey(now, timeZone);
  const payments = await recentPayments(em, participant.id, now);
  const paidThisMonth = payments.filter((payment) => monthKey(payment.grantedAt, timeZone) === month);
  const settledThrough = payments.reduce<string | null>((latest, payment) => (latest === null || payment.last > latest ? payment.last : latest), null);

  const back = Math.max(program.claim_days, ...paidThisMonth.map((payment) => daysBetween(payment.first, todayKey)));
  const covered = (key: string) => paidThisMonth.some((payment) => payment.first <= key && key <= payment.last);
  const days = clubDays(now, timeZone, back).filter((day, index, all) => index >= all.length - 1 - program.claim_days || covered(day.dayKey));
  const totals: Record<string, BetTotals> = { ...at.preloaded };
  for (const day of days) {
    totals[day.dayKey] ??= (await betTotals(em, scope, day, participant.id)).get(participant.id) ?? { staked: 0, received: 0 };
  }

  const firstDayKey = dayKey(participant.createdAt, timeZone);
  const earned = (key: string) => dayCashback(program, netLoss(totals[key] ?? { staked: 0, received: 0 }), key === firstDayKey).amount;
  const monthReceived = days.filter((day) => covered(day.dayKey)).reduce((sum, day) => sum + earned(day.dayKey), 0);
  return { program, now, timeZone, totals, firstDayKey, settledThrough, monthReceived };
}

interface PaymentContext {
  em: SqlEntityManager;
  scope: Scope;
  config: ClubConfig;
  participant: Participant;
  now: Date;
  timeZone: string;
  publicUrl: string;
}

/** Pays `days` as one cash delivery and sends `cashback.credited`; returns the amount and the delivery. */
async function pay(context: PaymentContext, days: CashbackAvailableDay[]): Promise<{ amount: number; deliveryId: string | null }> {
  const { em, scope, participant, now, timeZone, publicUrl } = context;
  const amount = days.reduce((sum, day) => sum + day.amount, 0);
  const first = days[0].dayKey;
  const last = days[days.length - 1].dayKey;
  const source = `${SOURCE_PREFIX}${first}${first === last ? "" : RANGE + last}`;
  const config = { ...context.config, rewards: [cashbackReward(amount), ...context.config.rewards] };
  const state = await loadParticipantState(em, participant, config, { now, timeZone });
  const evaluation = grantRewards({ config, state, now, timeZone, specs: ["reward:cashback"], ruleId: source });
  const effects = await persistEvaluation({ em, scope, config, participant, state, now, publicUrl, event: null }, evaluation);
  const granted = effects.find((effect) => effect.type === "reward_granted");
  const deliveryId = granted?.type === "reward_granted" ? (granted.delivery_id ?? null) : null;
  const data: components["schemas"]["CashbackCreditedWebhookData"] = {
    participant: webhookParticipant(participant), amount_cents: amount, days: days.map((day) => day.dayKey), delivery_id: deliveryId,
  };
  await recordWebhook(em, scope, "cashback.credited", data, now);
  return { amount, deliveryId };
}

/** GET /v1/me/cashback. */
export async function getCashbackState(db: Database, scope: Scope, externalId: string, now: Date): Promise<CashbackState> {
  const [program, { config }] = await Promise.all([getCashbackProgram(db, scope), requirePublishedConfig(db, scope)]);
  const em = db.em();
  const participant = await em.findOne(Participant, { ...scope, externalId });
  if (!participant) throw participantNotFound(externalId);
  return cashbackState(await cashbackInput(em, scope, participant, program, { now, timeZone: clubTimeZone(config) }));
}

/**
 * POST /v1/me/cashback/claim: pays every finished day waiting to be claimed
 * as one cash delivery, in one transaction holding the participant's lock, so
 * two claims never pay a day twice.
 */
export async function claimCashback(db: Database, scope: Scope, externalId: string, opts: { now: Date; publicUrl: string }): Promise<CashbackClaimResult> {
  const { now, publicUrl } = opts;
  const [program, { config }] = await Promise.all([getCashbackProgram(db, scope), requirePublishedConfig(db, scope)]);
  const timeZone = clubTimeZone(config);
  return db.em().transactional(async (em) => {
    const participant = await lockParticipant(em, db.dialect, { ...scope, externalId });
    if (!participant) throw participantNotFound(externalId);
    if (!program.enabled) throw new ApiError(409, "cashback_disabled", "The club's cashback program is disabled");
    if (program.mode === "auto") {
      const hour = `${String(program.hour).padStart(2, "0")}:00`;
      throw new ApiError(409, "cashback_auto_mode", `Cashback is paid automatically every day at ${hour}; there is nothing to claim`);
    }
    const input = await cashbackInput(em, scope, participant, program, { now, timeZone });
    const days = claimableDays(input);
    if (days.length === 0) throw new ApiError(409, "nothing_to_claim", "No cashback is waiting to be claimed");
    const { amount, deliveryId } = await pay({ em, scope, config, participant, now, timeZone, publicUrl }, days);
    const after = { ...input, settledThrough: days[days.length - 1].dayKey, monthReceived: input.monthReceived + amount };
    return { claimed: amount, days: days.map((day) => day.dayKey), delivery_id: deliveryId, state: cashbackState(after) };
  });
}

/** What one `auto` run paid. */
export interface CashbackRun {
  /** Payments made (one per participant and day). */
  payments: number;
  /** Their total, in cents. */
  amount: number;
}

/**
 * The `auto` mode run: pays every participant's due days (each finished day
 * from `hour` the next day, catching up on days within `claim_days` a missed
 * run left unpaid), one payment per day. A job calls it at the program's hour
 * and may call it again: each participant is settled under their lock, so a
 * repeated or concurrent run never pays a day twice. Does nothing unless the
 * program is enabled in `auto` mode.
 */
export async function creditDueCashback(db: Database, scope: Scope, opts: { now: Date; publicUrl: string }): Promise<CashbackRun> {
  const { now, publicUrl } = opts;
  const run: CashbackRun = { payments: 0, amount: 0 };
  const program = await getCashbackProgram(db, scope);
  if (!program.enabled || program.mode !== "auto") return run;
  const { config } = await requirePublishedConfig(db, scope);
  const timeZone = clubTimeZone(config);
  const notDueFrom = dayKey(now, timeZone, program.hour);
  const due = clubDays(now, timeZone, program.claim_days).filter((day) => day.dayKey < notDueFrom);

  // One aggregate per day for the whole club: who bet, and how much (a due day without bets is a zero, not read again).
  const noBets = Object.fromEntries(due.map((day): [string, BetTotals] => [day.dayKey, { staked: 0, received: 0 }]));
  const byParticipant = new Map<string, Record<string, BetTotals>>();
  for (const day of due) {
    for (const [participantId, totals] of await betTotals(db.em(), scope, day)) {
      byParticipant.set(participantId, { ...noBets, ...byParticipant.get(participantId), [day.dayKey]: totals });
    }
  }
  for (const [participantId, preloaded] of byParticipant) {
    await db.em().transactional(async (em) => {
      const participant = await lockParticipant(em, db.dialect, { ...scope, id: participantId });
      if (!participant) return;
      const input = await cashbackInput(em, scope, participant, program, { now, timeZone, preloaded });
      for (const day of dueDays(input)) {
        const { amount } = await pay({ em, scope, config, participant, now, timeZone, publicUrl }, [day]);
        run.payments += 1;
        run.amount += amount;
      }
    });
  }
  return run;
}
