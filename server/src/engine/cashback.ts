import type { components } from "../../../generated/types.js";
import { fromMinorUnits, toMinorUnits } from "./money.js";
import { dayKey, nextDayStart } from "./time.js";

/*
 * The cashback program, pure: the caller passes each club day's bet totals,
 * the last day already paid and the clock. Semantics: `CashbackState` in
 * spec/surface/cashback.tsp and `CashbackProgram` in spec/core/cashback.tsp.
 * Cashback days run midnight to midnight in the club time zone (not from the
 * check-in `resetHour`). Every amount is an integer in cents inside; the
 * served shapes (`cashbackState`, `cashbackProgramView`) carry main units.
 */

type Schemas = components["schemas"];
export type CashbackProgramView = Schemas["CashbackProgram"];
export type CashbackState = Schemas["CashbackState"];

/** Cashback is paid in the client's money, in cents. */
const CASH_DECIMALS = 2;

/** The program as stored and computed with: `GET /v1/cashback`'s fields, money in integer cents (`_minor`). */
export type CashbackProgram = Omit<CashbackProgramView, "min_loss" | "tiers" | "welcome"> & {
  min_loss_minor: number;
  tiers: { name: string; min_loss_minor: number; pct: number }[];
  welcome: { enabled: boolean; pct: number; max_minor: number };
};

/** One finished club day's cashback, in cents. */
export interface CashbackDay {
  dayKey: string;
  amount: number;
  pct: number;
  loss: number;
}

/** Cents of the client's money in main units (1050 → 10.5), exact. */
function cashInMainUnits(cents: number): number {
  return fromMinorUnits(cents, CASH_DECIMALS);
}

/** The program as `GET /v1/cashback` shows it: the seed's names, money in main units. */
export function cashbackProgramView(program: CashbackProgram): CashbackProgramView {
  const { min_loss_minor, tiers, welcome, ...rest } = program;
  return {
    ...rest,
    min_loss: cashInMainUnits(min_loss_minor),
    tiers: tiers.map(({ min_loss_minor: bandLoss, ...band }) => ({ ...band, min_loss: cashInMainUnits(bandLoss) })),
    welcome: { enabled: welcome.enabled, pct: welcome.pct, max: cashInMainUnits(welcome.max_minor) },
  } as CashbackProgramView;
}

/** What a participant bet in one club day, in cents. */
export interface BetTotals {
  /** Sum of `bet.placed` amounts. */
  staked: number;
  /** Sum of `bet.settled` amounts. */
  received: number;
}

/** Staked minus received; a winning day is no loss. */
export function netLoss(totals: BetTotals): number {
  return Math.max(0, totals.staked - totals.received);
}

export interface DayCashback {
  loss: number;
  pct: number;
  amount: number;
  /** The band (`tiers[].name`) the loss falls in; null below the first band, below `min_loss`, or on the welcome day. */
  band: string | null;
}

// Percentages may have decimals (7.5 %): they are applied in millionths of a
// percent with integer arithmetic, and the result is truncated to whole cents.
const PCT_PLACES = 6;
const PCT_DIVISOR = 100n * 10n ** BigInt(PCT_PLACES);

function percentOf(loss: number, pct: number): number {
  return Number((BigInt(loss) * BigInt(toMinorUnits(pct, PCT_PLACES))) / PCT_DIVISOR);
}

/**
 * The cashback one day's `loss` earns. Nothing below `min_loss_minor`. On the
 * participant's first day with the welcome offer on, `welcome.pct` applies
 * instead, capped at `welcome.max_minor`. Otherwise the highest band whose
 * `min_loss_minor` the loss reaches gives the percentage, clamped to
 * `min_pct`..`max_pct`; a loss that reaches no band earns `min_pct`.
 */
export function dayCashback(program: CashbackProgram, loss: number, welcomeDay: boolean): DayCashback {
  if (!program.enabled || loss === 0 || loss < program.min_loss_minor) return { loss, pct: 0, amount: 0, band: null };
  if (welcomeDay && program.welcome.enabled) {
    const pct = program.welcome.pct;
    return { loss, pct, amount: Math.min(percentOf(loss, pct), program.welcome.max_minor), band: null };
  }
  let band: CashbackProgram["tiers"][number] | null = null;
  for (const tier of program.tiers) if (loss >= tier.min_loss_minor) band = tier;
  const pct = band === null ? program.min_pct : Math.min(program.max_pct, Math.max(program.min_pct, band.pct));
  return { loss, pct, amount: percentOf(loss, pct), band: band?.name ?? null };
}

/** One club day and the instants it spans, [start, end). */
export interface ClubDay {
  dayKey: string;
  start: Date;
  end: Date;
}

/**
 * Today and the `back` club days before it, oldest first (days start at
 * `resetHour`, midnight by default). A day lasts 23 to 25 hours, so 36 hours
 * before a day's end always falls in the day before it: each day's start is
 * the next-day start computed from there.
 */
export function clubDays(now: Date, timeZone: string, back: number, resetHour = 0): ClubDay[] {
  const days: ClubDay[] = [];
  let end = nextDayStart(now, timeZone, resetHour);
  for (let i = 0; i <= back; i++) {
    const start = nextDayStart(new Date(end.getTime() - 36 * 3_600_000), timeZone, resetHour);
    days.unshift({ dayKey: dayKey(start, timeZone, resetHour), start, end });
    end = start;
  }
  return days;
}

export interface CashbackInput {
  program: CashbackProgram;
  now: Date;
  timeZone: string;
  /** Bet totals per club day key, for today and the finished days that may still be paid; a missing day bet nothing. */
  totals: Record<string, BetTotals>;
  /** The club day the participant joined on: the welcome day. */
  firstDayKey: string;
  /** The last club day already paid (every payable day up to it is settled); null when none was. */
  settledThrough: string | null;
  /** Cashback paid this calendar month, in cents. */
  monthReceived: number;
}

/**
 * Finished, unpaid days with cashback, oldest first, out of the last
 * `claim_days` days, all before the day `before` (today for a claim; for an
 * `auto` payment, the first day not yet due).
 */
function unpaidDays(input: CashbackInput, before: string): CashbackDay[] {
  const { program, now, timeZone } = input;
  // `claim_days` bounds how far back a claim reaches, and also how far an `auto` run catches up.
  const days = clubDays(now, timeZone, program.claim_days).slice(0, -1);
  return days.flatMap(({ dayKey: key }) => {
    if (key >= before || (input.settledThrough !== null && key <= input.settledThrough)) return [];
    const day = dayCashback(program, netLoss(input.totals[key] ?? { staked: 0, received: 0 }), key === input.firstDayKey);
    return day.amount > 0 ? [{ dayKey: key, amount: day.amount, pct: day.pct, loss: day.loss }] : [];
  });
}

/** `claim` mode: the finished days the participant can claim now (every finished day within `claim_days`). */
export function claimableDays(input: CashbackInput): CashbackDay[] {
  if (!input.program.enabled || input.program.mode !== "claim") return [];
  return unpaidDays(input, dayKey(input.now, input.timeZone));
}

/**
 * `auto` mode: the days to pay now. Day D is paid at `hour` on D+1 (club
 * time); a payment run that was missed catches up on the days within
 * `claim_days`. The club day that starts at `hour` tells which days are due:
 * every day before it.
 */
export function dueDays(input: CashbackInput): CashbackDay[] {
  if (!input.program.enabled || input.program.mode !== "auto") return [];
  return unpaidDays(input, dayKey(input.now, input.timeZone, input.program.hour));
}

/** The participant's cashback as `GET /v1/me/cashback` shows it. */
export function cashbackState(input: CashbackInput): CashbackState {
  const { program, now, timeZone } = input;
  const todayKey = dayKey(now, timeZone);
  const today = dayCashback(program, netLoss(input.totals[todayKey] ?? { staked: 0, received: 0 }), todayKey === input.firstDayKey);
  const availableDays = claimableDays(input);
  return {
    enabled: program.enabled,
    mode: program.mode,
    available: cashInMainUnits(availableDays.reduce((sum, day) => sum + day.amount, 0)),
    availableDays: availableDays.map((day) => ({ dayKey: day.dayKey, amount: cashInMainUnits(day.amount), pct: day.pct, loss: cashInMainUnits(day.loss) })),
    today: { amount: cashInMainUnits(today.amount), loss: cashInMainUnits(today.loss), pct: today.pct, band: today.band },
    pctRange: { min: program.min_pct, max: program.max_pct },
    nextDayAt: nextDayStart(now, timeZone).toISOString(),
    autoHour: program.hour,
    claimDays: program.claim_days,
    monthReceived: cashInMainUnits(input.monthReceived),
  };
}
