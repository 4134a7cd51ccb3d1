import type { components } from "../../../generated/types.js";
import { parseRewardSpec } from "./rewards.js";
import { toMinorUnits } from "./money.js";
import { dayKey, nextDayStart } from "./time.js";
import type { Evaluation } from "./types.js";

/*
 * The daily check-in calendar, pure: the caller passes the participant's
 * check-in days and whether today's required event was seen; the clock comes
 * in as `now`. The documented semantics (day states, periods, missed-day
 * policies) are on `CheckinState` in spec/surface/checkin.tsp.
 *
 * The whole history is replayed from the first check-in rather than stored as
 * counters: the streak, the current run and the forgiveness used all follow
 * from which days were claimed, so they can never disagree with the claims.
 */

type Schemas = components["schemas"];
export type CheckinState = Schemas["CheckinState"];
type CheckinDayState = Schemas["CheckinDayState"];
type CheckinRewardConfig = Omit<Schemas["CheckinReward"], "multiplier"> & { multiplier: number };

/** The `checkin` section with every default filled (as the validator leaves it). */
export type CheckinConfig = Required<Omit<Schemas["CheckinConfig"], "rewards">> & { rewards: CheckinRewardConfig[] };

/** The section a club without `checkin` gets: the documented defaults and no rewards, so nothing can be claimed. */
export const NO_CHECKIN: Readonly<CheckinConfig> = Object.freeze({
  enabled: true,
  days: 30,
  rewards: [],
  highlightDays: [],
  period: "month",
  missedDay: "restart",
  timezone: "America/Sao_Paulo",
  resetHour: 0,
  requireEvent: null,
});

export interface CheckinInput {
  config: CheckinConfig;
  /** Check-in day keys the participant claimed, in any order. */
  claimedDays: readonly string[];
  now: Date;
  /** Whether an event of type `config.requireEvent` arrived in today's check-in day (ignored without `requireEvent`). */
  requiredEventSeen: boolean;
}

export type CheckinRefusal = "checkin_disabled" | "already_claimed" | "event_required";

/** What today's check-in fills and grants. */
interface CheckinSlot {
  dayKey: string;
  /** The month (`2026-11`) or, in `streak` mode, the first day of the run. */
  periodKey: string;
  dayIndex: number;
  reward: CheckinRewardConfig;
  /** The reward spec to grant: the slot's reward with its multiplier applied to an XP or currency quantity. */
  spec: string;
  /** The reward code reported to the participant and in webhooks: the configured reward's code, else the spec as configured. */
  rewardCode: string;
}

export type CheckinPlan = { ok: true; slot: CheckinSlot } | { ok: false; reason: CheckinRefusal };

const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a `YYYY-MM-DD` key (calendar arithmetic, no time zone involved). */
function dayNumber(key: string): number {
  const [year, month, day] = key.split("-").map(Number);
  return Date.UTC(year, month - 1, day) / DAY_MS;
}

function keyOf(number: number): string {
  return new Date(number * DAY_MS).toISOString().slice(0, 10);
}

const monthOf = (number: number) => keyOf(number).slice(0, 7);

function daysInMonth(number: number): number {
  const date = new Date(number * DAY_MS);
  return new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 0)).getUTCDate();
}

/** Where the replay of the history stands at the start of today. */
interface Replay {
  streak: number;
  /** `streak` mode: the run in progress (its first day), null when none. */
  run: { start: number; forgiven: number } | null;
  /** `month` mode: forgiveness used in `month`. */
  month: string;
  monthForgiven: number;
}

/**
 * Replays every day from the first check-in up to and including today (today
 * counts only when claimed; an unclaimed today is not missed yet).
 */
function replay(config: CheckinConfig, claimed: ReadonlySet<number>, today: number): Replay {
  const state: Replay = { streak: 0, run: null, month: "", monthForgiven: 0 };
  const first = Math.min(...claimed);
  for (let day = first; day <= today; day++) {
    if (config.period === "streak" && state.run && day > state.run.start + config.days - 1) state.run = null;
    if (config.period === "month" && monthOf(day) !== state.month) {
      state.month = monthOf(day);
      state.monthForgiven = 0;
    }
    if (claimed.has(day)) {
      if (config.period === "streak" && !state.run) state.run = { start: day, forgiven: 0 };
      state.streak += 1;
    } else if (day < today) {
      missDay(config, state);
    }
  }
  return state;
}

/** A past day without a check-in, under the club's `missedDay` policy. */
function missDay(config: CheckinConfig, state: Replay): void {
  if (config.period === "month") {
    // Slots are dates: only the streak is at stake, and only a live one.
    if (state.streak === 0) return;
    if (config.missedDay === "forgive_one" && state.monthForgiven === 0) state.monthForgiven = 1;
    else state.streak = 0;
    return;
  }
  if (!state.run) {
    // Between runs there is no period whose forgiveness could apply.
    state.streak = 0;
    return;
  }
  if (config.missedDay === "continue") {
    state.streak = 0;
  } else if (config.missedDay === "forgive_one" && state.run.forgiven === 0) {
    state.run.forgiven = 1;
  } else {
    state.run = null;
    state.streak = 0;
  }
}

/** Whether the check-in can be claimed at all (enabled, with something to grant). */
const claimable = (config: CheckinConfig) => config.enabled && config.rewards.length > 0;

interface Calendar {
  state: CheckinState;
  periodKey: string;
}

function calendar(input: CheckinInput): Calendar {
  const { config, now } = input;
  const todayKey = dayKey(now, config.timezone, config.resetHour);
  const today = dayNumber(todayKey);
  const claimed = new Set(input.claimedDays.map(dayNumber));
  const history = claimed.size === 0 ? null : replay(config, claimed, today);
  const claimedToday = claimed.has(today);
  const canClaim = claimable(config) && !claimedToday && (config.requireEvent === null || input.requiredEventSeen);
  const todayState: CheckinDayState = claimedToday ? "claimed" : canClaim ? "available" : "locked";

  let start: number;
  let daysInPeriod: number;
  let periodKey: string;
  let forgivenessUsed: number;
  if (config.period === "month") {
    const dayOfMonth = Number(todayKey.slice(8, 10));
    start = today - (dayOfMonth - 1);
    daysInPeriod = daysInMonth(today);
    periodKey = todayKey.slice(0, 7);
    forgivenessUsed = history && history.month === periodKey ? history.monthForgiven : 0;
  } else {
    // Without a run in progress the calendar shows the run today's check-in would start.
    const run = history?.run ?? null;
    start = run ? run.start : today;
    daysInPeriod = config.days;
    periodKey = keyOf(start);
    forgivenessUsed = run ? run.forgiven : 0;
  }

  const todayIndex = today - start;
  const days = Array.from({ length: daysInPeriod }, (_, index): CheckinDayState => {
    if (index > todayIndex) return "locked";
    if (index === todayIndex) return todayState;
    return claimed.has(start + index) ? "claimed" : "missed";
  });
  return {
    periodKey,
    state: {
      todayKey,
      currentDayIndex: claimedToday ? todayIndex + 1 : todayIndex,
      todayIndex,
      nextDayAt: nextDayStart(now, config.timezone, config.resetHour).toISOString(),
      period: config.period,
      daysInPeriod,
      streak: history?.streak ?? 0,
      claimedToday,
      canClaim,
      days,
      forgivenessUsed,
    },
  };
}

/** The participant's calendar as `GET /v1/me/checkin` shows it. */
export function checkinState(input: CheckinInput): CheckinState {
  return calendar(input).state;
}

/** What a check-in now would fill and grant, or why it is refused. */
export function planCheckin(input: CheckinInput): CheckinPlan {
  const { config } = input;
  if (!claimable(config)) return { ok: false, reason: "checkin_disabled" };
  const { state, periodKey } = calendar(input);
  if (state.claimedToday) return { ok: false, reason: "already_claimed" };
  if (!state.canClaim) return { ok: false, reason: "event_required" };
  const reward = config.rewards[state.todayIndex % config.rewards.length];
  return {
    ok: true,
    slot: {
      dayKey: state.todayKey,
      periodKey,
      dayIndex: state.todayIndex,
      reward,
      spec: multipliedSpec(reward.reward, reward.multiplier),
      rewardCode: referenceCode(reward.reward),
    },
  };
}

// Quantities are multiplied in millionths, exactly: "10.5" × 1.5 is 15.75, not
// a float product. Six places are more than any currency (decimals ≤ 2) keeps.
const SCALE = 6;
const SCALE_FACTOR = 10n ** BigInt(SCALE);

function multiplyDecimal(amount: string, multiplier: number): string {
  const product = (BigInt(toMinorUnits(amount, SCALE)) * BigInt(toMinorUnits(multiplier, SCALE))) / SCALE_FACTOR;
  const whole = product / SCALE_FACTOR;
  const fraction = (product % SCALE_FACTOR).toString().padStart(SCALE, "0").replace(/0+$/, "");
  return fraction === "" ? whole.toString() : `${whole}.${fraction}`;
}

/**
 * `coins:10` with multiplier 2 is `coins:20`; a reward code (or an unparsable
 * spec, which the grant reports as skipped) is granted as configured, once.
 */
export function multipliedSpec(spec: string, multiplier: number): string {
  const parsed = parseRewardSpec(spec);
  if (multiplier === 1 || parsed === null) return spec;
  switch (parsed.kind) {
    case "reward":
      return spec;
    case "xp":
      return `xp:${multiplyDecimal(parsed.amount, multiplier)}`;
    case "currency":
      return `${parsed.currency}:${multiplyDecimal(parsed.amount, multiplier)}`;
  }
}

/**
 * The code a reward reference is reported under (check-in `reward.code`,
 * wheel `reward`, webhooks' `reward_code`): the configured reward's code for
 * `reward:<code>` or a bare code, otherwise the spec as configured (`coins:50`).
 */
export function referenceCode(reference: string): string {
  const parsed = parseRewardSpec(reference);
  return parsed?.kind === "reward" ? parsed.code : reference;
}

/**
 * Lays `fields` over the payload of every reward the evaluation grants, so the
 * delivery carries the check-in day's multiplier or the wheel slice's prize
 * (one reward configured once can serve prizes of several sizes).
 */
export function overlayRewardPayloads(evaluation: Evaluation, fields: Record<string, unknown>): Evaluation {
  if (Object.keys(fields).length === 0) return evaluation;
  const rewards = evaluation.delta.rewards.map((grant) => ({ ...grant, payload: { ...grant.payload, ...fields } }));
  return { ...evaluation, delta: { ...evaluation.delta, rewards } };
}
