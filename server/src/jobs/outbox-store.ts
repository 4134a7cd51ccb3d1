import type { Database } from "../db/orm.js";
import type { Env, Scope } from "../db/scope.js";
import type { ScopeEndpoints } from "../webhooks/subscribers.js";
import { postgresOutboxStore } from "./outbox-store-postgres.js";
import { ormOutboxStore } from "./outbox-store-sqlite.js";

/**
 * The outbox store port: what the outbox relay (outbox.ts) reads and writes,
 * implemented per database (`outbox-store-postgres.ts` on the driver,
 * `outbox-store-sqlite.ts` through the ORM) and chosen once when the relay is
 * made (`openOutboxStore`). Both pass the same contract suite
 * (test/jobs/outbox-store-contract.test.ts).
 */
export interface OutboxStore {
  /**
   * One relay batch: `use` reads the oldest unrelayed rows and marks those it
   * handed over. On PostgreSQL the batch is a transaction held until `use`
   * returns, its rows claimed (`FOR UPDATE SKIP LOCKED`), so two relays hand
   * over different rows; on SQLite (one host, writes serialised, the
   * embedded queue on the same connection) there is no claim, and two
   * batches may read the same row, which the consumers tolerate.
   */
  batch<T>(use: (batch: OutboxBatch) => Promise<T>): Promise<T>;
  /** Deletes the rows relayed before `cutoff`; how many. */
  purgeRelayed(cutoff: Date): Promise<number>;
}

/** What one relay batch does with the store. */
export interface OutboxBatch {
  /** Up to `limit` unrelayed rows, oldest first (creation time, then id). */
  pending(limit: number): Promise<PendingRow[]>;
  /** The enabled endpoints of the rows' scopes (read in the batch, so a claim and the endpoints it saw go together). */
  endpoints(scopes: readonly Scope[]): Promise<ScopeEndpoints>;
  /** Marks these rows relayed at `at`. */
  markRelayed(ids: readonly string[], at: Date): Promise<void>;
}

/** An unrelayed outbox row as the relay reads it. */
export interface PendingRow {
  id: string;
  clubId: string;
  env: Env;
  kind: string;
  payload: Record<string, unknown>;
}

/** The adapter of `db`'s database, chosen once. */
export function openOutboxStore(db: Database): OutboxStore {
  return db.dialect === "postgresql" ? postgresOutboxStore(db) : ormOutboxStore(db);
}
