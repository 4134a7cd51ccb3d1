import type { ApiEffect, EngineConfig, CurrencyConfig, MissionConfig, RewardConfig, RuleEffect } from "./config.js";
import { numericValue, type ConditionContext } from "./conditions.js";
import type { ExpressionEvent, ExpressionParticipant, ExpressionVariables } from "./expressions.js";
import { expiredAmount, spendLots } from "./lots.js";
import { fromMinorUnits, toMinorUnits } from "./money.js";
import { levelForXp, levelThresholds } from "./progression.js";
import { tierAfterLevelChange } from "./tiers.js";
import type { TraceBuilder } from "./trace.js";
import { addDays, isoText, monthKey } from "./time.js";
import type {
  EngineEvent,
  Evaluation,
  LedgerLine,
  MissionState,
  NewLot,
  ParticipantState,
  RefusalReason,
  Refusal,
  RewardGrant,
  RuleRunUpdate,
  RuleTrace,
  Skip,
  SkipReason,
  StateDelta,
} from "./types.js";

const NONE: readonly never[] = Object.freeze([]);

/** The shared empty list (see Session). */
function none<T>(): T[] {
  return NONE as unknown as T[];
}

const NO_RECORD: Readonly<Record<string, never>> = Object.freeze({});

/** The shared empty record (see Session). */
function noRecord<T>(): Record<string, T> {
  return NO_RECORD as Record<string, T>;
}

/** `record`, or a record of its own in place of the shared empty one. */
function own<T>(record: Record<string, T>): Record<string, T> {
  return record === NO_RECORD ? {} : record;
}

/** `list`, or a list of its own in place of the shared empty one, with `item` added. */
function added<T>(list: T[], item: T): T[] {
  const own = list === (NONE as unknown) ? [] : list;
  own.push(item);
  return own;
}

/**
 * `{ [type]: 1 }`, the counter increment of an evaluated event, one frozen
 * object per type (the delta is read-only): a literal with a computed key is
 * built by the runtime, once per event of a batch. Types come with events:
 * the bound keeps odd ones from growing the map without end.
 */
function countedOnce(type: string): Record<string, number> {
  let counted = countedByType.get(type);
  if (!counted) {
    if (countedByType.size >= COUNTED_TYPES_LIMIT) countedByType.clear();
    countedByType.set(type, (counted = Object.freeze({ [type]: 1 })));
  }
  return counted;
}
const COUNTED_TYPES_LIMIT = 1000;
const countedByType = new Map<string, Record<string, number>>();

/** The event as rule expressions see it: a number for its amount (0 without one), and its id null when absent. */
function expressionEventOf(event: EngineEvent): ExpressionEvent {
  const amount = numericValue(event.amount);
  return {
    type: event.type,
    id: event.id ?? null,
    amount: Number.isNaN(amount) ? 0 : amount,
    currency: event.currency,
    occurred_at: event.occurred_at,
    meta: event.meta,
  };
}

/** Seed limits on participant tags. */
export const MAX_TAGS = 20;
const MAX_TAG_LENGTH = 32;

/**
 * The participant as it evolves while one event is evaluated, and everything
 * the evaluation produces. Rules run in order against this working state, so
 * a later rule sees the XP, balances and tags an earlier one granted.
 * Mutable, but local to one evaluate call.
 */
export class Session {
  /*
   * The lists most evaluations leave empty start as the one shared empty
   * list (frozen: nothing may add to it) and get their own on the first
   * addition (`added`): a batch runs a Session per event, and a dozen empty
   * lists and a Map each were a good part of what it allocated per event.
   * The delta hands them out as they are; its readers never change them.
   * So do the effects, the trace and the ledger (a settlement or a session
   * has none): a list's first push grows it to 17 slots, ≈ 150 bytes. The
   * records (balance changes, rule runs, missions) likewise start as the
   * shared empty record.
   */
  effects: ApiEffect[] = none();
  refused: Refusal[] = none();
  skipped: Skip[] = none();
  trace: RuleTrace[] = none();
  private xpDelta = 0;
  private ledger: LedgerLine[] = none();
  private balanceDeltas: Record<string, number> = noRecord();
  private lotsConsumed: Map<string, number> | null = null;
  private lotsCreated: NewLot[] = none();
  private ruleRuns: Record<string, RuleRunUpdate> = noRecord();
  private missions: Record<string, MissionState> = noRecord();
  private rewards: RewardGrant[] = none();
  private badges: StateDelta["badges"] = none();
  private leaderboard: StateDelta["leaderboard"] = none();
  private tagsAdded: StateDelta["tagsAdded"] = none();
  private notifications: StateDelta["notifications"] = none();
  private webhooks: StateDelta["webhooks"] = none();
  private readonly thresholds: readonly number[];
  private participantNow: ExpressionParticipant | null = null;
  private contextNow: ConditionContext | null = null;
  private variablesEvent: EngineEvent | null = null;
  private variablesNow: ExpressionVariables | null = null;
  private nowText: string | undefined;
  private tierLevel = -1;
  private tierAtLevel = "";

  constructor(
    readonly config: EngineConfig,
    readonly state: ParticipantState,
    readonly now: Date,
    readonly timeZone: string,
    /** Set when the caller asked for the "why" trace (see trace.ts); null keeps evaluation free of it. */
    readonly tracer: TraceBuilder | null = null,
  ) {
    this.thresholds = levelThresholds(config.progression.curve);
  }

  /** `now` as ISO text, for every record of this evaluation (formatted once, and once for a batch's evaluations: see isoText). */
  get nowIso(): string {
    return (this.nowText ??= isoText(this.now));
  }

  get xp(): number {
    return this.state.xp + this.xpDelta;
  }

  get level(): number {
    return levelForXp(this.thresholds, this.xp);
  }

  /** The tier after the level changes (see tierAfterLevelChange), worked out once per level this evaluation reaches. */
  get tierCode(): string {
    const level = this.level;
    if (level !== this.tierLevel) {
      this.tierLevel = level;
      this.tierAtLevel = tierAfterLevelChange(this.config.progression.tiers, this.state.tierCode, level);
    }
    return this.tierAtLevel;
  }

  /** The participant's tags now; the stored list itself until a tag is added (read-only, as every list of the state). */
  get tags(): string[] {
    if (this.tagsAdded.length === 0) return this.state.tags;
    return [...this.state.tags, ...this.tagsAdded.map((added) => added.tag)];
  }

  /**
   * The participant as expressions and conditions see it. Every rule's
   * conditions and every expression ask for it, and only an XP grant or a tag
   * changes it: built once and again after those (grantXp, tag). Read-only.
   */
  get participant(): ExpressionParticipant {
    return (this.participantNow ??= { xp: this.xp, level: this.level, tier: this.tierCode, tags: this.tags });
  }

  /**
   * What conditions are evaluated against for `event`. Read-only: kept while
   * the event and the participant (see `participant`) stay the same, as the
   * rules and missions of one event ask for it one after the other.
   */
  conditionContext(event: EngineEvent): ConditionContext {
    const participant = this.participant;
    const kept = this.contextNow;
    if (kept !== null && kept.event === event && kept.participant === participant) return kept;
    return (this.contextNow = { event, participant, eventCountBefore: this.state.eventCountsBefore[event.type] ?? 0 });
  }

  /**
   * The CEL variables of a rule amount for `event`: the event as expressions
   * see it (built once per evaluation) and the participant now. Read-only:
   * kept while the participant stays the same (see conditionContext).
   */
  expressionVariables(event: EngineEvent): ExpressionVariables {
    const participant = this.participant;
    const kept = this.variablesEvent === event ? this.variablesNow : null;
    if (kept !== null && kept.participant === participant) return kept;
    this.variablesEvent = event;
    return (this.variablesNow = { event: kept !== null ? kept.event : expressionEventOf(event), participant });
  }

  balance(currency: string): number {
    return (this.state.balances[currency] ?? 0) + (this.balanceDeltas[currency] ?? 0);
  }

  // Loops, not `find` with a closure: asked for each grant of each event.
  currency(code: string): CurrencyConfig | undefined {
    const { currencies } = this.config;
    for (let i = 0; i < currencies.length; i++) if (currencies[i].code === code) return currencies[i];
    return undefined;
  }

  reward(code: string): RewardConfig | undefined {
    const { rewards } = this.config;
    for (let i = 0; i < rewards.length; i++) if (rewards[i].code === code) return rewards[i];
    return undefined;
  }

  mission(id: string): MissionState | undefined {
    return this.missions[id] ?? this.state.missions[id];
  }

  private effect(effect: ApiEffect): void {
    this.effects = added(this.effects, effect);
  }

  private ledgerLine(line: LedgerLine): void {
    this.ledger = added(this.ledger, line);
  }

  /** Why a rule triggered by the event fired or not (see RuleTrace). */
  traceRule(entry: RuleTrace): void {
    this.trace = added(this.trace, entry);
  }

  recordRun(ruleId: string, update: RuleRunUpdate): void {
    this.ruleRuns = own(this.ruleRuns);
    this.ruleRuns[ruleId] = update;
  }

  skip(ruleId: string, effect: RuleEffect["type"], reason: SkipReason, detail: string): void {
    this.skipped = added(this.skipped, { rule_id: ruleId, effect, reason, detail });
  }

  /**
   * `amount` (main units) as a positive whole number of units with `decimals`
   * places, truncated toward zero; null, reported in `skipped`, when that
   * comes to nothing or is out of range.
   */
  positiveUnits(ruleId: string, effect: RuleEffect["type"], amount: number | string, decimals: number): number | null {
    if (Number(amount) <= 0) {
      this.skip(ruleId, effect, "non_positive", `the amount ${amount} is not positive`);
      return null;
    }
    let units: number;
    try {
      units = toMinorUnits(amount, decimals);
    } catch (error) {
      this.skip(ruleId, effect, "out_of_range", (error as RangeError).message);
      return null;
    }
    if (units === 0) this.skip(ruleId, effect, "non_positive", `the amount ${amount} is less than one unit`);
    return units === 0 ? null : units;
  }

  refuse(ruleId: string, effect: RuleEffect["type"], reason: RefusalReason): void {
    this.refused = added(this.refused, { rule_id: ruleId, effect, reason });
  }

  grantXp(amount: number, ruleId: string): void {
    this.xpDelta += amount;
    this.participantNow = null;
    this.ledgerLine({ unit: "xp", delta: amount, reason: "grant_xp", ruleId });
    this.effect({ type: "xp_granted", amount, rule_id: ruleId });
  }

  /** Credits `amount` minor units; a currency with `expiresInDays` credits a lot that expires. */
  grantCurrency(currency: CurrencyConfig, amount: number, ruleId: string): void {
    this.changeBalance(currency.code, amount, "grant_currency", ruleId);
    if (currency.expiresInDays !== null) {
      this.lotsCreated = added(this.lotsCreated, {
        currency: currency.code,
        amount,
        grantedAt: this.nowIso,
        expiresAt: addDays(this.now, currency.expiresInDays).toISOString(),
        ruleId,
      });
    }
    this.effect({ type: "currency_granted", currency: currency.code, amount: fromMinorUnits(amount, currency.decimals), rule_id: ruleId });
  }

  /**
   * Debits `amount` minor units, spending the oldest unexpired lots first.
   * Returns false, changing nothing, when the spendable balance (expired lots
   * not counted) is short.
   */
  debitCurrency(currency: CurrencyConfig, amount: number, ruleId: string): boolean {
    const spendable = this.balance(currency.code) - expiredAmount(this.remainingLots(), currency.code, this.now);
    if (spendable < amount) return false;
    let left = amount;
    const consumed = (this.lotsConsumed ??= new Map());
    for (const { lotId, amount: taken } of spendLots(this.remainingLots(), currency.code, amount, this.now)) {
      consumed.set(lotId, (consumed.get(lotId) ?? 0) + taken);
      left -= taken;
    }
    // Lots credited earlier in this same evaluation are the newest of all.
    for (const lot of this.lotsCreated) {
      if (left === 0) break;
      if (lot.currency !== currency.code) continue;
      const taken = Math.min(left, lot.amount);
      lot.amount -= taken;
      left -= taken;
    }
    this.changeBalance(currency.code, -amount, "debit_currency", ruleId);
    this.effect({ type: "currency_debited", currency: currency.code, amount: fromMinorUnits(amount, currency.decimals), rule_id: ruleId });
    return true;
  }

  /** The participant's lots with what this evaluation already spent taken out. */
  private remainingLots() {
    return this.state.lots.map((lot) => ({ ...lot, remaining: lot.remaining - (this.lotsConsumed?.get(lot.id) ?? 0) }));
  }

  private changeBalance(currency: string, delta: number, reason: LedgerLine["reason"], ruleId: string): void {
    this.balanceDeltas = own(this.balanceDeltas);
    this.balanceDeltas[currency] = (this.balanceDeltas[currency] ?? 0) + delta;
    this.ledgerLine({ unit: currency, delta, reason, ruleId });
  }

  grantReward(reward: RewardConfig, ruleId: string): void {
    this.rewards = added(this.rewards, {
      effectIndex: this.effects.length,
      rewardCode: reward.code,
      ruleId,
      type: reward.type,
      payload: reward.payload,
      expiresAt: reward.expiresInDays === null ? null : addDays(this.now, reward.expiresInDays).toISOString(),
      delivery: reward.type !== "internal",
    });
    this.effect({ type: "reward_granted", reward_code: reward.code, rule_id: ruleId });
    this.creditRewardPayload(reward, ruleId);
  }

  /**
   * An `internal` reward whose payload names a `currency` and an `amount`
   * (main units, number or decimal string) credits that amount when granted,
   * through the same path as a `<currency>:<n>` spec: a ledger entry, a lot
   * when the currency expires, and a `currency_granted` effect after the
   * `reward_granted` one. Other reward types leave the payload to whoever
   * delivers them; an unknown currency or a bad amount is reported in `skipped`.
   */
  private creditRewardPayload(reward: RewardConfig, ruleId: string): void {
    if (reward.type !== "internal") return;
    const { currency: code, amount } = reward.payload as { currency?: unknown; amount?: unknown };
    if (typeof code !== "string" || (typeof amount !== "number" && typeof amount !== "string")) return;
    const currency = this.currency(code);
    if (!currency) {
      this.skip(ruleId, "grant_currency", "unknown_currency", `reward ${JSON.stringify(reward.code)} names no known currency ${JSON.stringify(code)}`);
      return;
    }
    const units = this.positiveUnits(ruleId, "grant_currency", amount, currency.decimals);
    if (units !== null) this.grantCurrency(currency, units, ruleId);
  }

  /** A badge is granted once: a badge the participant has is a silent no-op. */
  grantBadge(badgeCode: string, ruleId: string): void {
    if (this.state.badges.includes(badgeCode) || this.badges.some((badge) => badge.badgeCode === badgeCode)) return;
    this.badges = added(this.badges, { badgeCode, ruleId });
    this.effect({ type: "badge_granted", badge_code: badgeCode, rule_id: ruleId });
  }

  /** Adds a tag within the seed's limits; a tag the participant has is a silent no-op. */
  tag(tag: string, ruleId: string): RefusalReason | null {
    const tags = this.tags;
    if (tags.includes(tag)) return null;
    if (tag.length > MAX_TAG_LENGTH) return "tag_too_long";
    if (tags.length >= MAX_TAGS) return "tag_limit";
    this.tagsAdded = added(this.tagsAdded, { tag, ruleId });
    this.participantNow = null;
    this.effect({ type: "tagged", tag, rule_id: ruleId });
    return null;
  }

  addLeaderboardPoints(campaignId: string, points: number, ruleId: string): void {
    this.leaderboard = added(this.leaderboard, { campaignId, points, ruleId });
    this.effect({ type: "leaderboard_points", campaign_id: campaignId, points, rule_id: ruleId });
  }

  notify(template: string, ruleId: string): void {
    this.notifications = added(this.notifications, { template, ruleId });
  }

  requestWebhook(event: string, ruleId: string): void {
    this.webhooks = added(this.webhooks, { event, ruleId });
  }

  recordMissionProgress(mission: MissionConfig, next: MissionState, completedNow: boolean): void {
    this.missions = own(this.missions);
    this.missions[mission.id] = next;
    this.effect({ type: "mission_progressed", mission_id: mission.id, progress: next.progress, target: mission.goal.target });
    if (completedNow) this.effect({ type: "mission_completed", mission_id: mission.id, period: next.periodKey });
  }

  /** Marks a completed mission's reward as claimed (the grant itself is separate). */
  markMissionClaimed(missionId: string, state: MissionState): void {
    this.missions = own(this.missions);
    this.missions[missionId] = { ...state, claimed: true };
  }

  /**
   * Closes the evaluation: level and tier effects after all XP changes, and
   * the delta. `countedEventType` is the type of the event evaluated, whose
   * counter goes up by one (null when no event is involved, as for a claim).
   */
  finish(countedEventType: string | null): Evaluation {
    const level = this.level;
    const tierCode = this.tierCode;
    if (level > this.state.level) this.effect({ type: "level_up", from: this.state.level, to: level });
    if (tierCode !== this.state.tierCode) this.effect({ type: "tier_changed", from: this.state.tierCode, to: tierCode });
    const month = monthKey(this.now, this.timeZone);
    const stored = this.state.peakLevel;
    const peak = stored?.monthKey === month ? Math.max(stored.level, level) : level;
    const evaluation: Evaluation = {
      effects: this.effects,
      refused: this.refused,
      skipped: this.skipped,
      trace: this.trace,
      delta: {
        xp: this.xpDelta,
        level,
        tierCode,
        // The state's own object when the peak did not move (most events; read-only like the rest of the delta).
        peakLevel: stored !== null && stored.monthKey === month && stored.level === peak ? stored : { monthKey: month, level: peak },
        ledger: this.ledger,
        balances: this.balanceDeltas,
        lotsConsumed: this.lotsConsumed === null ? none() : [...this.lotsConsumed].map(([lotId, amount]) => ({ lotId, amount })),
        lotsCreated: this.lotsCreated.length === 0 ? this.lotsCreated : this.lotsCreated.filter((lot) => lot.amount > 0),
        ruleRuns: this.ruleRuns,
        eventCounts: countedEventType === null ? {} : countedOnce(countedEventType),
        missions: this.missions,
        rewards: this.rewards,
        badges: this.badges,
        leaderboard: this.leaderboard,
        tagsAdded: this.tagsAdded,
        notifications: this.notifications,
        webhooks: this.webhooks,
      },
    };
    // Added after, not spread in: a spread adding keys costs microseconds on Node 20 (bench/micro/object-spread.ts).
    if (this.tracer) evaluation.explanation = this.tracer.finish(this.config, countedEventType, this.skipped, this.refused);
    return evaluation;
  }
}
