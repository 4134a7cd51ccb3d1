import type { EntityName, RequiredEntityData } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { hotStore, shapeOf, type HotStore, type Upsert, type Write } from "../../db/hot/index.js";
import type { Participant } from "../../db/entities/index.js";
import {
  Badge,
  Balance,
  CurrencyLot,
  Delivery,
  Event,
  LeaderboardEntry,
  LedgerEntry,
  MissionProgress,
  Notification,
  OutboxMessage,
  ParticipantReward,
  RuleDedupeKey,
  RuleRunDay,
} from "../../db/entities/index.js";
import type { PeakColumns } from "./peak-level.js";
import { BALANCE_ADD, LEADERBOARD_ADD, MISSION_PROGRESS_KEEP_FIRST, ruleRunDayAdd } from "../../db/evaluation/upserts.js";
import { StandingWrites } from "./standing-writes.js";

/**
 * The new lots with what later events already spent from them taken off
 * `remaining`, and the spending left for stored lots: the writes of one flush
 * never read each other's rows (see HotStore.writeAll), so a lot created and
 * spent from in the same flush is written as it stands after the spending.
 */
export function lotsAfterSpending<L extends { id?: string | null; remaining: number }>(
  lots: L[],
  spent: Map<string, number>,
): { lots: L[]; spent: { id: string; amount: number }[] } {
  const left = new Map(spent);
  const written = lots.map((lot) => {
    const amount = lot.id ? left.get(lot.id) : undefined;
    if (amount === undefined) return lot;
    left.delete(lot.id!);
    return { ...lot, remaining: lot.remaining - amount };
  });
  return { lots: written, spent: [...left].map(([id, amount]) => ({ id, amount })) };
}

/** The participant columns an evaluation sets; XP is added to the stored value instead, atomically. */
export type ParticipantChanges = Pick<Participant, "level" | "tierCode" | "tags" | "eventCounts" | "updatedAt"> & Partial<PeakColumns>;

type Rows<T extends object> = RequiredEntityData<T>[];

/** A rule run day as gathered: its counters in JS values, changed in place until the flush. */
type RuleRunDayRow = RequiredEntityData<RuleRunDay> & { runs: number; amounts: Record<string, number>; lastRunAt: Date };

/**
 * What evaluations write, gathered in memory and written by `flush` with one
 * statement per table. A batch evaluates one participant's events one after
 * the other against state carried in memory, so its writes can wait for the
 * last event: every statement saved is a database round trip and an ORM pass.
 *
 * Increments add up (XP, balances, leaderboard points, lots spent); mission
 * progress keeps the latest state of each mission period; the participant's
 * other columns take their latest values. Rows are written in the order they
 * were added. Nothing is shared between transactions: one instance belongs to
 * the transaction that flushes it.
 */
export class PendingWrites {
  private readonly participants = new Map<string, { xp: number; changes: ParticipantChanges }>();
  readonly ledger: Rows<LedgerEntry> = [];
  readonly lots: Rows<CurrencyLot> = [];
  readonly dedupeKeys: Rows<RuleDedupeKey> = [];
  readonly rewards: Rows<ParticipantReward> = [];
  readonly deliveries: Rows<Delivery> = [];
  readonly badges: Rows<Badge> = [];
  readonly notifications: Rows<Notification> = [];
  readonly outbox: Rows<OutboxMessage> = [];
  readonly events: Rows<Event> = [];
  private readonly balances = new Map<string, RequiredEntityData<Balance>>();
  private readonly lotsSpent = new Map<string, number>();
  /** Mission progress rows in the order first set, and where each participant's first one is (see setMission). */
  private readonly missions: RequiredEntityData<MissionProgress>[] = [];
  private readonly firstMissionOf = new Map<string, number>();
  private readonly leaderboard = new Map<string, RequiredEntityData<LeaderboardEntry>>();
  /** Rule run days by participant, rule and day: one row each per flush (an upsert may touch a row once per statement on PostgreSQL). */
  private readonly ruleRunDays = new Map<string, RuleRunDayRow>();
  /** Tournament standings the events scored in (one upsert per standing). */
  readonly standings = new StandingWrites();

  /**
   * Adds `xp` to the participant's XP and sets the other columns to `changes`.
   * `changes` becomes this instance's (a later call for the same participant
   * merges into it), so the caller hands over a new object each time: a
   * batch calls this once per event, and merging in place saves two objects
   * per event.
   */
  updateParticipant(participantId: string, xp: number, changes: ParticipantChanges): void {
    const pending = this.participants.get(participantId);
    if (!pending) {
      this.participants.set(participantId, { xp, changes });
      return;
    }
    pending.xp += xp;
    Object.assign(pending.changes, changes);
  }

  /** Leaves the participant's row out of the flush (its caller wrote what changed of it). */
  dropParticipantUpdate(participantId: string): void {
    this.participants.delete(participantId);
  }

  /** Adds `row.amount` to the balance of the row's participant and currency, creating it on first use. */
  addToBalance(row: RequiredEntityData<Balance>): void {
    const key = `${row.participantId}:${row.currency}`;
    const pending = this.balances.get(key);
    this.balances.set(key, pending ? { ...pending, amount: pending.amount + row.amount, updatedAt: row.updatedAt } : row);
  }

  spendLot(lotId: string, amount: number): void {
    this.lotsSpent.set(lotId, (this.lotsSpent.get(lotId) ?? 0) + amount);
  }

  /** The mission period's progress as it stands now; a later call for the same period replaces it. */
  setMission(row: RequiredEntityData<MissionProgress>): void {
    // The participant's rows are looked for from its first one on, not under a key built per call (a text of three
    // parts per mission of each event): a participant's events are gathered one after the other, so its rows are
    // the last few; a row of another participant in between is only stepped over.
    const first = this.firstMissionOf.get(row.participantId);
    if (first === undefined) this.firstMissionOf.set(row.participantId, this.missions.length);
    else {
      for (let i = first; i < this.missions.length; i++) {
        const pending = this.missions[i];
        if (pending.participantId !== row.participantId || pending.missionId !== row.missionId || pending.periodKey !== row.periodKey) continue;
        // Keeps the first completion and claim times, as the stored row does.
        this.missions[i] = { ...row, completedAt: pending.completedAt ?? row.completedAt, claimedAt: pending.claimedAt ?? row.claimedAt };
        return;
      }
    }
    this.missions.push(row);
  }

  /** The mission progress rows flush writes, in the order first set. */
  get missionProgress(): readonly RequiredEntityData<MissionProgress>[] {
    return this.missions;
  }

  /**
   * Adds one run of a rule, with what it granted per unit (`amounts`, kept by
   * this instance), to the participant's row of that rule and day.
   */
  addRuleRun(row: Omit<RuleRunDayRow, "runs">): void {
    const key = `${row.participantId}\u0000${row.ruleId}\u0000${row.dayKey}`;
    const pending = this.ruleRunDays.get(key);
    if (!pending) {
      this.ruleRunDays.set(key, { ...row, runs: 1 });
      return;
    }
    // This map holds the only reference until the flush: changed in place.
    pending.runs += 1;
    for (const unit in row.amounts) pending.amounts[unit] = (pending.amounts[unit] ?? 0) + row.amounts[unit];
    if (row.lastRunAt > pending.lastRunAt) pending.lastRunAt = row.lastRunAt;
  }

  addLeaderboardPoints(row: RequiredEntityData<LeaderboardEntry>): void {
    const key = `${row.participantId}:${row.campaignId}`;
    const pending = this.leaderboard.get(key);
    this.leaderboard.set(key, pending ? { ...pending, points: pending.points + row.points, updatedAt: row.updatedAt } : row);
  }

  /**
   * Writes everything gathered in `em`'s transaction (and the writes `also`) and starts empty again:
   * on the driver (db/hot), one round trip on PostgreSQL (one statement, a
   * CTE per table, array parameters) and one prepared statement per table on
   * SQLite.
   */
  async flush(em: SqlEntityManager, also: Write[] = [], on?: HotStore): Promise<void> {
    // `on`: a transaction of the caller's on the driver (db/hot/transaction.ts); `em` then only describes the tables.
    if (!on && !em.getTransactionContext()) {
      await em.transactional((trx) => this.flush(trx, also));
      return;
    }
    const store = on ?? (await hotStore(em));
    // `uniform`: the columns holding this flush's `now` in every row (bound once on PostgreSQL, see HotStore's Write).
    const insert = <T extends object>(entity: EntityName<T>, rows: Rows<T>, uniform: (keyof T & string)[], upsert?: Upsert): Write => ({
      insert: shapeOf(em, entity),
      rows,
      upsert,
      uniform,
    });
    const { lots, spent } = lotsAfterSpending(this.lots, this.lotsSpent);
    await store.writeAll([
      {
        updateParticipants: this.participantUpdates(),
      },
      insert(LedgerEntry, this.ledger, ["createdAt"]),
      // Added to the stored amounts atomically, creating rows on first use.
      insert(Balance, [...this.balances.values()], ["updatedAt"], BALANCE_ADD),
      insert(CurrencyLot, lots, ["createdAt"]),
      { spendLots: spent },
      insert(RuleDedupeKey, this.dedupeKeys, ["firedAt"]),
      // Added to the stored day (see RULE_RUN_DAY_SUMS in db/evaluation/upserts.ts).
      insert(RuleRunDay, [...this.ruleRunDays.values()], ["lastRunAt"], ruleRunDayAdd(store)),
      // The first completion and claim times already stored are kept.
      insert(MissionProgress, this.missions, ["updatedAt"], MISSION_PROGRESS_KEEP_FIRST),
      insert(ParticipantReward, this.rewards, ["grantedAt"]),
      insert(Delivery, this.deliveries, ["createdAt"]),
      insert(Badge, this.badges, ["grantedAt"]),
      insert(LeaderboardEntry, [...this.leaderboard.values()], ["updatedAt"], LEADERBOARD_ADD),
      ...this.standings.writes(em),
      insert(Notification, this.notifications, ["createdAt", "readAt"]),
      insert(OutboxMessage, this.outbox, ["createdAt"]),
      insert(Event, this.events, ["status", "processedAt"]),
      // The caller's own rows of other tables (a redemption), in the same round trip.
      ...also,
    ]);
    this.clear();
  }

  /** The participants' updates as written; forEach, not a spread of the entries: no pair array per participant. */
  private participantUpdates() {
    const updates: {
      id: string;
      xp: number;
      level: number;
      tierCode: string | null;
      tags: string[];
      eventCounts: Record<string, number>;
      peak: PeakColumns | null;
      updatedAt: Date;
    }[] = [];
    this.participants.forEach(({ xp, changes }, id) => {
      updates.push({
        id,
        xp,
        level: changes.level,
        tierCode: changes.tierCode ?? null,
        tags: changes.tags,
        eventCounts: changes.eventCounts,
        peak:
          changes.peakMonth === undefined
            ? null
            : { peakMonth: changes.peakMonth, peakLevel: changes.peakLevel ?? null, priorMonthPeakLevel: changes.priorMonthPeakLevel ?? null },
        updatedAt: changes.updatedAt,
      });
    });
    return updates;
  }

  private clear(): void {
    this.participants.clear();
    for (const rows of [this.ledger, this.lots, this.dedupeKeys, this.rewards, this.deliveries, this.badges, this.notifications, this.outbox, this.events])
      rows.length = 0;
    this.balances.clear();
    this.lotsSpent.clear();
    this.missions.length = 0;
    this.firstMissionOf.clear();
    this.leaderboard.clear();
    this.ruleRunDays.clear();
    this.standings.clear();
  }
}
