import type { FilterQuery } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { TestClock, WebhookAttempt, WebhookEndpoint, WebhookSending } from "../db/entities/index.js";
import type { Database } from "../db/orm.js";
import type { Scope } from "../db/scope.js";
import { takeSqliteWriteLock } from "../db/write-lock.js";
import { attemptRow, lastAttemptNumbers } from "./attempt-log.js";
import type { AttemptTiming, Outcome, SendingStore, Target } from "./sending-store.js";
import type { Success } from "./throughput.js";

/** Sendings inserted per statement (13 columns: far below either database's parameter limit). */
const INSERT_CHUNK = 500;

/**
 * The sending store through the ORM: the SQLite adapter (its bench figure is
 * not bound by the ORM, and the embedded queue writes through the same
 * connection), and the PostgreSQL adapter's statements off the first
 * attempt's path (claims, retries, outcomes), which it inherits.
 */
export class OrmSendingStore implements SendingStore {
  constructor(protected readonly db: Database) {}

  async enabledEndpoints(clubIds: readonly string[]): Promise<Target[]> {
    return this.db.em().find(WebhookEndpoint, { clubId: { $in: [...clubIds] }, enabled: true, deletedAt: null }, { disableIdentityMap: true });
  }

  /**
   * One statement per INSERT_CHUNK; when some were skipped, one read of the
   * chunk's ids tells which (exact even when another worker inserted the
   * same pair at the same moment).
   */
  async insertNew(sendings: readonly WebhookSending[]): Promise<Set<string>> {
    const em = this.db.em();
    const inserted = new Set<string>();
    for (let i = 0; i < sendings.length; i += INSERT_CHUNK) {
      const chunk = sendings.slice(i, i + INSERT_CHUNK);
      const result = await em.createQueryBuilder(WebhookSending).insert(chunk).onConflict(["endpointId", "eventId"]).ignore().execute("run");
      const ids = chunk.map((sending) => sending.id);
      const stored =
        result.affectedRows === chunk.length
          ? ids
          : (await em.find(WebhookSending, { id: { $in: ids } }, { fields: ["id"], disableIdentityMap: true })).map((row) => row.id);
      for (const id of stored) inserted.add(id);
    }
    return inserted;
  }

  /**
   * In one transaction holding the write lock: which of them are still
   * pending at their attempt count, one update per (attempts, status code)
   * group of those (usually one), and their attempt log rows.
   */
  async recordSuccesses(batch: readonly Success[], updatedAt: Date): Promise<void> {
    await this.db.em().transactional(async (em) => {
      await takeSqliteWriteLock(em);
      const current = new Map<string, Pick<WebhookSending, "id" | "attempts" | "clubId" | "env">>();
      const ids = batch.map((success) => success.id);
      for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
        const rows = await em.find(
          WebhookSending,
          { id: { $in: ids.slice(i, i + INSERT_CHUNK) }, status: "pending" },
          { fields: ["id", "attempts", "clubId", "env"], disableIdentityMap: true },
        );
        for (const row of rows) current.set(row.id, row);
      }
      const applied = batch.filter((success) => current.get(success.id)?.attempts === success.attempts);
      if (applied.length === 0) return;
      const last = await lastAttemptNumbers(
        em,
        applied.map((success) => success.id),
      );
      const groups = new Map<string, Success[]>();
      for (const success of applied) {
        const key = `${success.attempts}:${success.statusCode}`;
        const group = groups.get(key);
        if (group) group.push(success);
        else groups.set(key, [success]);
      }
      for (const group of groups.values()) {
        const { attempts, statusCode } = group[0];
        await em.nativeUpdate(
          WebhookSending,
          { id: { $in: group.map((success) => success.id) }, status: "pending", attempts },
          { status: "succeeded", attempts: attempts + 1, lastError: null, lastStatusCode: statusCode, nextAttemptAt: null, updatedAt },
        );
      }
      const rows = applied.map((success) =>
        attemptRow(current.get(success.id)!, success.attempts, last.get(success.id) ?? 0, success, {
          succeeded: true,
          httpStatus: success.statusCode,
          error: null,
        }),
      );
      for (let i = 0; i < rows.length; i += INSERT_CHUNK) await em.insertMany(WebhookAttempt, rows.slice(i, i + INSERT_CHUNK));
    });
  }

  async dueInRealTime(now: Date, limit: number): Promise<string[]> {
    const clocked = await this.db.em().find(TestClock, {}, { fields: ["clubId"], disableIdentityMap: true });
    const where: FilterQuery<WebhookSending> = clocked.length === 0 ? {} : { $not: { env: "test", clubId: { $in: clocked.map((clock) => clock.clubId) } } };
    return this.dueWhere(where, now, limit);
  }

  async dueRetriesOf(scope: Scope, now: Date, limit: number): Promise<string[]> {
    return this.dueWhere({ ...scope, $or: [{ lastError: { $ne: null } }, { lastStatusCode: { $ne: null } }] }, now, limit);
  }

  private async dueWhere(where: FilterQuery<WebhookSending>, now: Date, limit: number): Promise<string[]> {
    const due = await this.db
      .em()
      .find(
        WebhookSending,
        { $and: [where, { status: "pending", nextAttemptAt: { $lte: now } }] },
        { orderBy: { nextAttemptAt: "asc" }, limit, fields: ["id"] },
      );
    return due.map((sending) => sending.id);
  }

  async claim(id: string, dueBy: Date, leaseUntil: Date): Promise<boolean> {
    const claimed = await this.db.em().nativeUpdate(WebhookSending, { id, status: "pending", nextAttemptAt: { $lte: dueBy } }, { nextAttemptAt: leaseUntil });
    return claimed === 1;
  }

  async load(id: string): Promise<{ sending: WebhookSending; endpoint: WebhookEndpoint | null }> {
    const em: SqlEntityManager = this.db.em();
    const sending = await em.findOneOrFail(WebhookSending, { id });
    const endpoint = await em.findOne(WebhookEndpoint, { id: sending.endpointId });
    return { sending, endpoint };
  }

  /** The guarded update first (on SQLite it takes the write lock), then the log row if it applied. */
  async finish(sending: Pick<WebhookSending, "id" | "attempts" | "clubId" | "env">, outcome: Outcome, updatedAt: Date, attempt?: AttemptTiming): Promise<void> {
    const guard = { id: sending.id, status: "pending" as const, attempts: sending.attempts };
    if (!attempt) {
      await this.db.em().nativeUpdate(WebhookSending, guard, { ...outcome, updatedAt });
      return;
    }
    await this.db.em().transactional(async (em) => {
      if ((await em.nativeUpdate(WebhookSending, guard, { ...outcome, updatedAt })) !== 1) return;
      const last = (await lastAttemptNumbers(em, [sending.id])).get(sending.id) ?? 0;
      const result = { succeeded: outcome.status === "succeeded", httpStatus: outcome.lastStatusCode ?? null, error: outcome.lastError ?? null };
      await em.insert(WebhookAttempt, attemptRow(sending, sending.attempts, last, attempt, result));
    });
  }
}

/** The SQLite adapter. */
export function ormSendingStore(db: Database): SendingStore {
  return new OrmSendingStore(db);
}
