import { raw, type EntityName, type RequiredEntityData } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import {
  Badge, Balance, CurrencyLot, Delivery, Event, LeaderboardEntry, LedgerEntry, MissionProgress, Notification, OutboxMessage, Participant, ParticipantReward, RuleRun,
} from "../db/entities/index.js";
import type { PeakColumns } from "./peak-level.js";
import { StandingWrites } from "./tournaments/standing-writes.js";

/** The participant columns an evaluation sets; XP is added to the stored value instead, atomically. */
export type ParticipantChanges = Pick<Participant, "level" | "tierCode" | "tags" | "eventCounts" | "updatedAt"> & Partial<PeakColumns>;

type Rows<T extends object> = RequiredEntityData<T>[];

/**
 * Rows per statement. SQLite allows 32,766 bound values per statement and
 * PostgreSQL 65,535; the widest table here has 13 columns.
 */
const ROWS_PER_INSERT = 500;

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
  readonly ruleRuns: Rows<RuleRun> = [];
  readonly rewards: Rows<ParticipantReward> = [];
  readonly deliveries: Rows<Delivery> = [];
  readonly badges: Rows<Badge> = [];
  readonly notifications: Rows<Notification> = [];
  readonly outbox: Rows<OutboxMessage> = [];
  readonly events: Rows<Event> = [];
  private readonly balances = new Map<string, RequiredEntityData<Balance>>();
  private readonly lotsSpent = new Map<string, number>();
  private readonly missions = new Map<string, RequiredEntityData<MissionProgress>>();
  private readonly leaderboard = new Map<string, RequiredEntityData<LeaderboardEntry>>();
  /** Tournament standings the events scored in (one upsert per standing). */
  readonly standings = new StandingWrites();

  /** Adds `xp` to the participant's XP and sets the other columns to `changes`. */
  updateParticipant(participantId: string, xp: number, changes: ParticipantChanges): void {
    const pending = this.participants.get(participantId);
    this.participants.set(participantId, { xp: (pending?.xp ?? 0) + xp, changes: { ...pending?.changes, ...changes } });
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
    const key = `${row.participantId}:${row.missionId}:${row.periodKey}`;
    const pending = this.missions.get(key);
    // Keeps the first completion and claim times, as the stored row does.
    this.missions.set(key, pending ? { ...row, completedAt: pending.completedAt ?? row.completedAt, claimedAt: pending.claimedAt ?? row.claimedAt } : row);
  }

  addLeaderboardPoints(row: RequiredEntityData<LeaderboardEntry>): void {
    const key = `${row.participantId}:${row.campaignId}`;
    const pending = this.leaderboard.get(key);
    this.leaderboard.set(key, pending ? { ...pending, points: pending.points + row.points, updatedAt: row.updatedAt } : row);
  }

  /** Writes everything gathered in `em`'s transaction and starts empty again. */
  async flush(em: SqlEntityManager): Promise<void> {
    for (const [id, { xp, changes }] of this.participants) {
      await em.nativeUpdate(Participant, { id }, { ...changes, xp: raw("xp + ?", [xp]) });
    }
    await insertRows(em, LedgerEntry, this.ledger);
    await this.flushBalances(em);
    // New lots first: a later event of the batch may already have spent from them.
    await insertRows(em, CurrencyLot, this.lots);
    for (const [id, amount] of this.lotsSpent) await em.nativeUpdate(CurrencyLot, { id }, { remaining: raw("remaining - ?", [amount]) });
    await insertRows(em, RuleRun, this.ruleRuns);
    await this.flushMissions(em);
    await insertRows(em, ParticipantReward, this.rewards);
    await insertRows(em, Delivery, this.deliveries);
    await insertRows(em, Badge, this.badges);
    await this.flushLeaderboard(em);
    await this.standings.flush(em);
    await insertRows(em, Notification, this.notifications);
    await insertRows(em, OutboxMessage, this.outbox);
    await insertRows(em, Event, this.events);
    this.clear();
  }

  /** Added to the stored amounts in one statement, atomically, creating rows on first use. */
  private async flushBalances(em: SqlEntityManager): Promise<void> {
    if (this.balances.size === 0) return;
    await em
      .createQueryBuilder(Balance)
      .insert([...this.balances.values()])
      .onConflict(["participantId", "currency"])
      .merge({ amount: raw("balances.amount + excluded.amount"), updatedAt: raw("excluded.updated_at") })
      .execute();
  }

  /** Upserted in one statement; the first completion and claim times already stored are kept. */
  private async flushMissions(em: SqlEntityManager): Promise<void> {
    if (this.missions.size === 0) return;
    await em
      .createQueryBuilder(MissionProgress)
      .insert([...this.missions.values()])
      .onConflict(["participantId", "missionId", "periodKey"])
      .merge({
        progress: raw("excluded.progress"),
        completedAt: raw("coalesce(mission_progress.completed_at, excluded.completed_at)"),
        claimedAt: raw("coalesce(mission_progress.claimed_at, excluded.claimed_at)"),
        updatedAt: raw("excluded.updated_at"),
      })
      .execute();
  }

  private async flushLeaderboard(em: SqlEntityManager): Promise<void> {
    if (this.leaderboard.size === 0) return;
    await em
      .createQueryBuilder(LeaderboardEntry)
      .insert([...this.leaderboard.values()])
      .onConflict(["participantId", "campaignId"])
      .merge({ points: raw("leaderboard_entries.points + excluded.points"), updatedAt: raw("excluded.updated_at") })
      .execute();
  }

  private clear(): void {
    this.participants.clear();
    for (const rows of [this.ledger, this.lots, this.ruleRuns, this.rewards, this.deliveries, this.badges, this.notifications, this.outbox, this.events]) rows.length = 0;
    this.balances.clear();
    this.lotsSpent.clear();
    this.missions.clear();
    this.leaderboard.clear();
    this.standings.clear();
  }
}

/** Multi-row INSERTs straight to the table: these rows are never read back in the transaction, so the unit of work has nothing to track. */
async function insertRows<T extends object>(em: SqlEntityManager, entity: EntityName<T>, rows: Rows<T>): Promise<void> {
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    await em.insertMany<T>(entity, rows.slice(start, start + ROWS_PER_INSERT));
  }
}
