import type { SqlEntityManager } from "@mikro-orm/knex";
import { OutboxMessage } from "../db/entities/index.js";
import { hotStore } from "../db/hot/index.js";
import type { Database } from "../db/orm.js";
import type { Env, Scope } from "../db/scope.js";
import { endpointsByScope, type ScopeEndpoints } from "../webhooks/subscribers.js";
import type { OutboxBatch, OutboxStore, PendingRow } from "./outbox-store.js";

/*
 * The relay's read and mark on the driver: a server relays after every commit
 * that wrote rows, often a row or two at a time, and the ORM's query building
 * and hydration cost more than the rows. HotStore takes a text per dialect;
 * this adapter only ever runs on PostgreSQL, so its statements name no SQLite text.
 */
const postgresOnly = (postgresql: string) => ({ postgresql, sqlite: "" });

/** The oldest unrelayed rows, claimed (through the partial index of unrelayed rows, see the entity). */
const CLAIM_PENDING = postgresOnly(
  "select id, club_id, env, kind, payload from outbox_messages where relayed_at is null order by created_at, id limit ? for update skip locked",
);
const MARK_RELAYED = postgresOnly("update outbox_messages set relayed_at = ?::timestamptz where id = any(?::text[])");

interface StoredPendingRow {
  id: string;
  club_id: string;
  env: Env;
  kind: string;
  payload: Record<string, unknown>;
}

/** Module-level, not a closure per pass: see the comment above propertyColumn in db/hot/postgres.ts. */
function pendingRowOf(row: StoredPendingRow): PendingRow {
  return { id: row.id, clubId: row.club_id, env: row.env, kind: row.kind, payload: row.payload };
}

/** A relay batch inside the transaction `tx` that holds its claim. */
class PostgresOutboxBatch implements OutboxBatch {
  constructor(private readonly tx: SqlEntityManager) {}

  async pending(limit: number): Promise<PendingRow[]> {
    const rows = await (await hotStore(this.tx)).select<StoredPendingRow>(CLAIM_PENDING, [limit]);
    return rows.map(pendingRowOf);
  }

  endpoints(scopes: readonly Scope[]): Promise<ScopeEndpoints> {
    return endpointsByScope(this.tx, scopes);
  }

  async markRelayed(ids: readonly string[], at: Date): Promise<void> {
    await (await hotStore(this.tx)).run(MARK_RELAYED, [at.toISOString(), ids]);
  }
}

/** The PostgreSQL adapter: each batch one transaction, its rows claimed until they are marked. */
export function postgresOutboxStore(db: Database): OutboxStore {
  return {
    batch: (use) => db.em().transactional((tx) => use(new PostgresOutboxBatch(tx))),
    purgeRelayed: (cutoff) => db.em().nativeDelete(OutboxMessage, { relayedAt: { $lt: cutoff } }),
  };
}
