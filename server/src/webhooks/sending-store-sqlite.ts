import type { FilterQuery } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { TestClock, WebhookAttempt, WebhookEndpoint, WebhookSending } from "../db/entities/index.js";
import type { Database } from "../db/orm.js";
import type { Scope } from "../db/scope.js";
import { hotStore } from "../db/hot/index.js";
import { attemptRow, lastAttemptNumbers } from "./attempt-log.js";
import type { AttemptTiming, Outcome, SendingStore, Target } from "./sending-store.js";
import type { Success } from "./throughput.js";

/*
 * The successes' statements, SQLite only (the PostgreSQL adapter has its
 * own): each success is `[id, attempts before, status code, started at (epoch
 * ms, as datetimes are stored), duration ms]` in one JSON array parameter.
 * Log numbering as sending-store.ts says.
 */
const SUCCESSES =
  "select json_extract(value, '$[0]') as id, json_extract(value, '$[1]') as attempts, json_extract(value, '$[2]') as status_code, json_extract(value, '$[3]') as started_at, json_extract(value, '$[4]') as duration_ms from json_each(?)";
const sqliteOnly = (sqlite: string) => ({ postgresql: "", sqlite });
const INSERT_SUCCESS_ATTEMPTS = sqliteOnly(
  "insert into webhook_attempts (sending_id, number, club_id, env, started_at, duration_ms, outcome, http_status, error, resend) " +
    "select id, max(last, attempts) + 1, club_id, env, started_at, duration_ms, 'succeeded', status_code, null, last > attempts from (" +
    "select s.id, s.attempts, s.club_id, s.env, u.status_code, u.started_at, u.duration_ms, " +
    "(select coalesce(max(a.number), 0) from webhook_attempts as a where a.sending_id = s.id) as last " +
    `from (${SUCCESSES}) as u join webhook_sendings as s on s.id = u.id where s.status = 'pending' and s.attempts = u.attempts)`,
);
const RECORD_SUCCESSES = sqliteOnly(
  "update webhook_sendings as s set status = 'succeeded', attempts = u.attempts + 1, last_error = null, last_status_code = u.status_code, next_attempt_at = null, updated_at = ? " +
    `from (${SUCCESSES}) as u where s.id = u.id and s.status = 'pending' and s.attempts = u.attempts`,
);

/** Sendings inserted per statement (13 columns: far below either database's parameter limit). */
const INSERT_CHUNK = 500;

/**
 * The sending store through the ORM: the SQLite adapter (its bench figure is
 * not bound by the ORM, and the embedded queue writes through the same
 * connection; only its successes go on the driver, see RECORD_SUCCESSES),
 * and the PostgreSQL adapter's statements off the first attempt's path
 * (claims, retries, outcomes), which it inherits.
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
   * Two driver statements in one transaction, the log rows first: an insert
   * is a write, so it holds the write lock from its start, and both see the
   * same sendings still pending at their attempt count; then one update for
   * the same ones. The successes go in as one JSON parameter per statement.
   */
  async recordSuccesses(batch: readonly Success[], updatedAt: Date): Promise<void> {
    if (batch.length === 0) return;
    const rows = batch.map((success) => [success.id, success.attempts, success.statusCode, success.startedAt.getTime(), success.durationMs]);
    await this.db.em().transactional(async (em) => {
      const hot = await hotStore(em);
      await hot.run(INSERT_SUCCESS_ATTEMPTS, [rows]);
      await hot.run(RECORD_SUCCESSES, [updatedAt, rows]);
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
