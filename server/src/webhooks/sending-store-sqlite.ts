import type { FilterQuery } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { TestClock, WebhookEndpoint, WebhookSending } from "../db/entities/index.js";
import type { Database } from "../db/orm.js";
import type { Scope } from "../db/scope.js";
import type { Outcome, SendingStore, Target } from "./sending-store.js";
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

  /** One statement per (attempts, status code) group, usually one. */
  async recordSuccesses(batch: readonly Success[], updatedAt: Date): Promise<void> {
    const em = this.db.em();
    const groups = new Map<string, Success[]>();
    for (const success of batch) {
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

  async finish(sending: Pick<WebhookSending, "id" | "attempts">, outcome: Outcome, updatedAt: Date): Promise<void> {
    await this.db.em().nativeUpdate(WebhookSending, { id: sending.id, status: "pending", attempts: sending.attempts }, { ...outcome, updatedAt });
  }
}

/** The SQLite adapter. */
export function ormSendingStore(db: Database): SendingStore {
  return new OrmSendingStore(db);
}
