import type { SqlEntityManager } from "@mikro-orm/knex";
import { WebhookSending } from "../db/entities/index.js";
import { shapeOf, withAutocommitHotStore } from "../db/hot/index.js";
import type { Database } from "../db/orm.js";
import type { SendingStore, Target } from "./sending-store.js";
import { OrmSendingStore } from "./sending-store-sqlite.js";
import type { Success } from "./throughput.js";

/*
 * The statements of the first attempt (read the endpoints, insert the
 * sendings, record the successes with their attempt log rows) on the driver, as prepared statements with
 * array parameters, each committing on its own (one statement each, so
 * atomic). Through the ORM they cost more than the HTTP request itself:
 * query building, hydration and every value (the bodies) inlined and escaped
 * into the SQL text. HotStore takes a text per dialect; this adapter only
 * ever runs on PostgreSQL, so its statements name no SQLite text.
 */
const postgresOnly = (postgresql: string) => ({ postgresql, sqlite: "" });

const ENABLED_ENDPOINTS = postgresOnly(
  "select id, club_id, env, url, events, secret, previous_secret, previous_secret_expires_at from webhook_endpoints where club_id = any(?::text[]) and enabled and deleted_at is null",
);

/**
 * Succeeded attempts, guarded like `finish` (status and attempt count), any
 * mix of attempt counts and statuses in one statement, with the attempt log
 * rows of those the update applied to (a data-modifying CTE: one statement,
 * so both or neither). Numbering as sending-store.ts says; the start times
 * come as epoch milliseconds.
 */
const RECORD_SUCCESSES = postgresOnly(
  "with done as (" +
    "update webhook_sendings as s set status = 'succeeded', attempts = u.attempts + 1, last_error = null, last_status_code = u.status_code, next_attempt_at = null, updated_at = ?::timestamptz " +
    "from unnest(?::text[], ?::int4[], ?::int4[], ?::float8[], ?::int4[]) as u(id, attempts, status_code, started_ms, duration_ms) " +
    "where s.id = u.id and s.status = 'pending' and s.attempts = u.attempts " +
    "returning s.id, s.club_id, s.env, u.attempts, u.status_code, u.started_ms, u.duration_ms) " +
    "insert into webhook_attempts (sending_id, number, club_id, env, started_at, duration_ms, outcome, http_status, error, resend) " +
    "select d.id, greatest(l.last, d.attempts) + 1, d.club_id, d.env, to_timestamp(d.started_ms / 1000), d.duration_ms, 'succeeded', d.status_code, null, l.last > d.attempts " +
    "from done as d cross join lateral (select coalesce(max(a.number), 0) as last from webhook_attempts as a where a.sending_id = d.id) as l",
);

interface StoredEndpoint {
  id: string;
  club_id: string;
  env: Target["env"];
  url: string;
  events: string[];
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | string | null;
}

function targetOf(row: StoredEndpoint): Target {
  const expires = row.previous_secret_expires_at;
  return {
    id: row.id,
    clubId: row.club_id,
    env: row.env,
    url: row.url,
    events: row.events,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretExpiresAt: expires === null ? null : new Date(expires),
  };
}

/** The PostgreSQL adapter: the first attempt's statements on the driver, the rest through the ORM as on SQLite. */
class PostgresSendingStore extends OrmSendingStore {
  private driverEm: SqlEntityManager | undefined;

  /**
   * The entity manager the driver statements go through: only its connection
   * pool, platform and metadata are used (no entity is loaded in it), so one
   * serves every call instead of a fork per statement.
   */
  private em(): SqlEntityManager {
    return (this.driverEm ??= this.db.em());
  }

  override async enabledEndpoints(clubIds: readonly string[]): Promise<Target[]> {
    const rows = await withAutocommitHotStore(this.em(), (hot) => hot.select<StoredEndpoint>(ENABLED_ENDPOINTS, [clubIds]));
    return rows.map(targetOf);
  }

  /** One statement for all of them, answering with the ids it inserted. */
  override async insertNew(sendings: readonly WebhookSending[]): Promise<Set<string>> {
    if (sendings.length === 0) return new Set();
    const em = this.em();
    return withAutocommitHotStore(em, (hot) => hot.insertAbsent(shapeOf(em, WebhookSending), [...sendings], ["endpoint_id", "event_id"]));
  }

  override async recordSuccesses(batch: readonly Success[], updatedAt: Date): Promise<void> {
    const ids = new Array<string>(batch.length),
      attempts = new Array<number>(batch.length),
      codes = new Array<number | null>(batch.length),
      started = new Array<number>(batch.length),
      durations = new Array<number>(batch.length);
    for (let i = 0; i < batch.length; i++) {
      ids[i] = batch[i].id;
      attempts[i] = batch[i].attempts;
      codes[i] = batch[i].statusCode;
      started[i] = batch[i].startedAt.getTime();
      durations[i] = batch[i].durationMs;
    }
    await withAutocommitHotStore(this.em(), (hot) => hot.run(RECORD_SUCCESSES, [updatedAt.toISOString(), ids, attempts, codes, started, durations]));
  }
}

export function postgresSendingStore(db: Database): SendingStore {
  return new PostgresSendingStore(db);
}
