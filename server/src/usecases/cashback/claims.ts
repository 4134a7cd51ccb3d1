import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import {
  cashbackState,
  claimableDays,
  clubDays,
  dueDays,
  type BetTotals,
  type CashbackDay,
  type CashbackInput,
  type CashbackProgram,
  type CashbackState,
  type ClubDay,
} from "../../engine/cashback.js";
import type { ClubConfig, GameFilterScope, GameLists, RewardConfig } from "../../engine/config.js";
import { matchesGameFilter } from "../../engine/games.js";
import { grantRewards } from "../../engine/evaluate.js";
import { dayKey } from "../../engine/time.js";
import { CashbackCredit, CashbackProgram as CashbackProgramRow, Event, Participant } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { getCashbackProgram } from "./cashback.js";
import { requirePublishedConfig } from "../club/index.js";
import { ApiError } from "../shared/errors.js";
import { clubLabel } from "../club/index.js";
import { webhookMessage } from "../webhooks/index.js";
import { clubTimeZone, loadParticipantState, lockParticipant, webhookParticipant, gatherClaim, writeClaim } from "../evaluation/index.js";
import type { AfterCommit } from "../shared/after-commit.js";
import { shapeOf } from "../../db/hot/index.js";
import { participantNotFound } from "../participants/index.js";
import { runEach } from "../shared/run-each.js";
import { eventSumsByParticipantAndType } from "../../db/cashback/event-sums.js";

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
 * `reward.delivery_requested`) and `cashback.credited`; its source names the
 * club days it pays (`cashback:<day>` or `cashback:<first day>..<last day>`).
 * Each day paid is a CashbackCredit row with what it paid. Every payment
 * settles every payable day up to its last day (a claim takes all waiting
 * days, `auto` mode pays day by day in order), so the newest day credited is
 * how far the participant is settled.
 */

type CashbackClaimResult = components["schemas"]["CashbackClaimResult"];

/** The reward source of a payment: the club days it pays. */
function paymentSource(days: CashbackDay[]): string {
  const first = days[0].dayKey;
  const last = days[days.length - 1].dayKey;
  return first === last ? `cashback:${first}` : `cashback:${first}..${last}`;
}

/** The reward a payment grants. Listed first among the club's rewards, so a club reward with the same code never stands in for it. */
function cashbackReward(amountCents: number, config: ClubConfig): RewardConfig {
  return {
    code: "cashback",
    title: clubLabel(config, "cashback_reward"),
    illustration: "gift",
    type: "client_delivered",
    payload: { kind: "cash", amount_cents: amountCents },
    expiresInDays: null,
    cost: null,
  };
}

/** Which bets count toward a day's loss: the program's currency and game filter, and the club-wide `games.exclude`. */
export interface BetFilter {
  currency: string;
  games?: Partial<GameFilterScope>;
  globalExclude?: GameLists;
}

type GameListsInput = { categories?: string[]; providers?: string[]; games?: { id: string }[] } | undefined;

/** The lists with every absent one empty (a stored program may omit them). */
function filledLists(lists: GameListsInput): GameLists {
  return { categories: lists?.categories ?? [], providers: lists?.providers ?? [], games: lists?.games ?? [] } as GameLists;
}

export function betFilter(program: CashbackProgram, config: ClubConfig): BetFilter {
  const games = program.games as { only?: GameListsInput; exclude?: GameListsInput } | undefined;
  return {
    currency: program.currency ?? "BRL",
    games: games === undefined ? undefined : { only: filledLists(games.only), exclude: filledLists(games.exclude) },
    globalExclude: config.games?.exclude === undefined ? undefined : filledLists(config.games.exclude),
  };
}

function hasGameLists(lists: Partial<GameLists> | undefined): boolean {
  return lists !== undefined && (lists.categories?.length ?? 0) + (lists.providers?.length ?? 0) + (lists.games?.length ?? 0) > 0;
}

/**
 * Sums of `bet.placed` and `bet.settled` received in `day`, per participant
 * (one participant, or every one of the club). `amountMinor` is the amount in
 * cents, exact. Repeats (`duplicateOf`) and events that failed are not bets;
 * bets in another currency than the program's do not count (no conversion).
 * Without game filters the database sums; with one, the bets are read with
 * their meta and filtered by the same matcher rules and missions use.
 */
async function betTotals(em: SqlEntityManager, scope: Scope, day: ClubDay, filter: BetFilter, participantId?: string): Promise<Map<string, BetTotals>> {
  const where = {
    ...scope,
    ...(participantId === undefined ? {} : { participantId }),
    type: { $in: ["bet.placed", "bet.settled"] },
    currency: filter.currency,
    duplicateOf: null,
    status: { $ne: "failed" as const },
    receivedAt: { $gte: day.start, $lt: day.end },
  };
  const totals = new Map<string, BetTotals>();
  const add = (id: string, type: string, amount: number) => {
    const entry = totals.get(id) ?? { staked: 0, received: 0 };
    if (type === "bet.placed") entry.staked += amount;
    else entry.received += amount;
    totals.set(id, entry);
  };
  const filtered = hasGameLists(filter.games?.only) || hasGameLists(filter.games?.exclude) || hasGameLists(filter.globalExclude);
  if (filtered) {
    const rows = await em.find(Event, where, { fields: ["participantId", "type", "amountMinor", "meta"] });
    for (const row of rows) {
      if (row.participantId && matchesGameFilter(filter.games, row.meta, filter.globalExclude)) add(row.participantId, row.type, Number(row.amountMinor ?? 0));
    }
    return totals;
  }
  const rows = await eventSumsByParticipantAndType(em, where);
  for (const row of rows) add(row.participantId, row.type, Number(row.total ?? 0));
  return totals;
}

/** When the club month containing `now` began: midnight (club time) of its first day. */
function monthStart(now: Date, timeZone: string): Date {
  const dayOfMonth = Number(dayKey(now, timeZone).slice(8));
  return clubDays(now, timeZone, dayOfMonth - 1)[0].start;
}

/** The last club day credited to the participant (null when none was), and what the calendar month so far paid. */
async function creditsSoFar(
  em: SqlEntityManager,
  participantId: string,
  now: Date,
  timeZone: string,
): Promise<{ settledThrough: string | null; monthReceived: number }> {
  const latest = await em.findOne(CashbackCredit, { participantId }, { orderBy: { dayKey: "desc" }, fields: ["dayKey"] });
  const thisMonth = await em.find(CashbackCredit, { participantId, paidAt: { $gte: monthStart(now, timeZone) } }, { fields: ["amount"] });
  return { settledThrough: latest?.dayKey ?? null, monthReceived: thisMonth.reduce((sum, credit) => sum + credit.amount, 0) };
}

/**
 * Everything the engine needs about one participant: the bet totals of today
 * and the days still payable, how far they are settled, and what this month
 * paid. `preloaded` totals (the `auto` run reads every participant's at once)
 * are not read again.
 */
async function cashbackInput(
  em: SqlEntityManager,
  scope: Scope,
  participant: Participant,
  program: CashbackProgram,
  at: { now: Date; timeZone: string; filter: BetFilter; preloaded?: Record<string, BetTotals> },
): Promise<CashbackInput> {
  const { now, timeZone } = at;
  const { settledThrough, monthReceived } = await creditsSoFar(em, participant.id, now, timeZone);
  const totals: Record<string, BetTotals> = { ...at.preloaded };
  for (const day of clubDays(now, timeZone, program.claim_days)) {
    totals[day.dayKey] ??= (await betTotals(em, scope, day, at.filter, participant.id)).get(participant.id) ?? { staked: 0, received: 0 };
  }
  return { program, now, timeZone, totals, firstDayKey: dayKey(participant.createdAt, timeZone), settledThrough, monthReceived };
}

interface PaymentContext {
  em: SqlEntityManager;
  scope: Scope;
  config: ClubConfig;
  participant: Participant;
  now: Date;
  timeZone: string;
  publicUrl: string;
  /** Told `"outbox"` when the commit wrote outbox rows (a worker's run wakes the relay itself). */
  afterCommit?: AfterCommit;
}

/**
 * Pays `days` as one cash delivery, records a credit per day and sends
 * `cashback.credited`; returns the amount and the delivery.
 */
async function pay(context: PaymentContext, days: CashbackDay[]): Promise<{ amount: number; deliveryId: string | null }> {
  const { em, scope, participant, now, timeZone, publicUrl } = context;
  const amount = days.reduce((sum, day) => sum + day.amount, 0);
  const config = { ...context.config, rewards: [cashbackReward(amount, context.config), ...context.config.rewards] };
  const state = await loadParticipantState(em, participant, config, { now, timeZone });
  const evaluation = grantRewards({ config, state, now, timeZone, specs: ["reward:cashback"], ruleId: paymentSource(days) });
  const claim = gatherClaim({ em, scope, config, participant, state, now, publicUrl, event: null }, evaluation);
  const granted = claim.effects.find((effect) => effect.type === "reward_granted");
  if (granted?.type !== "reward_granted" || granted.reward_id === undefined) throw new Error(`the cashback payment ${paymentSource(days)} granted no reward`);
  const rewardId = granted.reward_id;
  const deliveryId = granted.delivery_id ?? null;
  const credits = days.map((day) => ({
    id: newId("cbk"),
    ...scope,
    participantId: participant.id,
    dayKey: day.dayKey,
    loss: day.loss,
    pct: day.pct,
    amount: day.amount,
    participantRewardId: rewardId,
    deliveryId,
    paidAt: now,
  }));
  const data: components["schemas"]["CashbackCreditedWebhookData"] = {
    participant: webhookParticipant(participant),
    amount_minor: amount,
    days: days.map((day) => day.dayKey),
    delivery_id: deliveryId,
  };
  await writeClaim(claim, [webhookMessage(scope, "cashback.credited", data, now)], {
    also: [{ insert: shapeOf(em, CashbackCredit), rows: credits }],
    afterCommit: context.afterCommit,
  });
  return { amount, deliveryId };
}

/** GET /v1/me/cashback. */
export async function getCashbackState(db: Database, scope: Scope, externalId: string, now: Date): Promise<CashbackState> {
  const [program, { config }] = await Promise.all([getCashbackProgram(db, scope), requirePublishedConfig(db, scope)]);
  const em = db.em();
  const participant = await em.findOne(Participant, { ...scope, externalId });
  if (!participant) throw participantNotFound(externalId);
  return cashbackState(await cashbackInput(em, scope, participant, program, { now, timeZone: clubTimeZone(config), filter: betFilter(program, config) }));
}

/**
 * POST /v1/me/cashback/claim: pays every finished day waiting to be claimed
 * as one cash delivery, in one transaction holding the participant's lock, so
 * two claims never pay a day twice.
 */
export async function claimCashback(
  db: Database,
  scope: Scope,
  externalId: string,
  opts: { now: Date; publicUrl: string; afterCommit?: AfterCommit },
): Promise<CashbackClaimResult> {
  const { now, publicUrl } = opts;
  const [program, { config }] = await Promise.all([getCashbackProgram(db, scope), requirePublishedConfig(db, scope)]);
  const timeZone = clubTimeZone(config);
  return db.em().transactional(async (em) => {
    const participant = await lockParticipant(em, { ...scope, externalId });
    if (!participant) throw participantNotFound(externalId);
    if (!program.enabled) throw new ApiError(409, "cashback_disabled", "The club's cashback program is disabled");
    if (program.mode === "auto") {
      const hour = `${String(program.hour).padStart(2, "0")}:00`;
      throw new ApiError(409, "cashback_auto_mode", `Cashback is paid automatically every day at ${hour}; there is nothing to claim`);
    }
    const input = await cashbackInput(em, scope, participant, program, { now, timeZone, filter: betFilter(program, config) });
    const days = claimableDays(input);
    if (days.length === 0) throw new ApiError(409, "nothing_to_claim", "No cashback is waiting to be claimed");
    const { amount, deliveryId } = await pay({ em, scope, config, participant, now, timeZone, publicUrl, afterCommit: opts.afterCommit }, days);
    const after = { ...input, settledThrough: days[days.length - 1].dayKey, monthReceived: input.monthReceived + amount };
    return { claimed_minor: amount, days: days.map((day) => day.dayKey), delivery_id: deliveryId, state: cashbackState(after) };
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
  const filter = betFilter(program, config);
  for (const day of due) {
    for (const [participantId, totals] of await betTotals(db.em(), scope, day, filter)) {
      byParticipant.set(participantId, { ...noBets, ...byParticipant.get(participantId), [day.dayKey]: totals });
    }
  }
  for (const [participantId, preloaded] of byParticipant) {
    await db.em().transactional(async (em) => {
      const participant = await lockParticipant(em, { ...scope, id: participantId });
      if (!participant) return;
      const input = await cashbackInput(em, scope, participant, program, { now, timeZone, filter, preloaded });
      for (const day of dueDays(input)) {
        const { amount } = await pay({ em, scope, config, participant, now, timeZone, publicUrl }, [day]);
        run.payments += 1;
        run.amount += amount;
      }
    });
  }
  return run;
}

/**
 * The hourly `auto` job: creditDueCashback for every club and environment
 * whose program is enabled in `auto` mode. One club's failure does not stop
 * the others' payments; the failures are thrown together at the end.
 */
export async function creditDueCashbackForAllClubs(db: Database, opts: { now: Date; publicUrl: string }, only?: Scope): Promise<CashbackRun> {
  const rows = await db.em().find(CashbackProgramRow, { ...only }, { fields: ["clubId", "env", "program"], orderBy: { clubId: "asc", env: "asc" } });
  const automatic = rows.filter((row) => {
    const program = row.program as CashbackProgram;
    return program.enabled && program.mode === "auto";
  });
  const total: CashbackRun = { payments: 0, amount: 0 };
  await runEach(
    automatic,
    (row) => `cashback of ${row.clubId}/${row.env}`,
    async (row) => {
      const run = await creditDueCashback(db, { clubId: row.clubId, env: row.env }, opts);
      total.payments += run.payments;
      total.amount += run.amount;
    },
  );
  return total;
}
