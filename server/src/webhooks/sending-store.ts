import type { Database } from "../db/orm.js";
import type { Scope } from "../db/scope.js";
import type { WebhookEndpoint, WebhookSending } from "../db/entities/index.js";
import { ormSendingStore } from "./sending-store-sqlite.js";
import { postgresSendingStore } from "./sending-store-postgres.js";
import type { Success } from "./throughput.js";

/**
 * The sending store port: what the webhook dispatcher (dispatch.ts) reads and
 * writes, implemented per database (`sending-store-postgres.ts` on the
 * driver, `sending-store-sqlite.ts` through the ORM) and chosen once when the
 * dispatcher is made (`openSendingStore`). Both pass the same contract suite
 * (test/webhooks/sending-store-contract.test.ts).
 *
 * Every HTTP attempt recorded on a sending (`recordSuccesses`, `finish` with
 * its timing) also leaves a row in the sending's attempt log, in the same
 * statement or transaction: only when the sending's guarded update applied,
 * so the log and the sending never disagree. Its `number` goes on across
 * resends: one more than the greater of the log's last number and the
 * sending's attempts before it (sendings attempted before the log existed
 * start at their count); `resend` is set when the log is ahead of the
 * sending's count, which only a resend (restarting the count) makes.
 */
export interface SendingStore {
  /** The enabled, not deleted endpoints of these clubs (every environment). */
  enabledEndpoints(clubIds: readonly string[]): Promise<Target[]>;
  /**
   * Inserts those of `sendings` whose (endpoint, event) has no sending yet,
   * skipping the others (a concurrent creator never fails the insert); the
   * ids inserted. The ids are new, so a row carrying one was inserted here.
   */
  insertNew(sendings: readonly WebhookSending[]): Promise<Set<string>>;
  /**
   * Marks succeeded attempts, each guarded like `finish` (still pending, at
   * the attempt count it was sent with): `attempts` + 1, the status code, no
   * error and no next attempt; and an attempt log row each.
   */
  recordSuccesses(batch: readonly Success[], updatedAt: Date): Promise<void>;
  /** Ids of up to `limit` pending sendings due at `now`, soonest first, leaving out test environments that follow a test clock. */
  dueInRealTime(now: Date, limit: number): Promise<string[]>;
  /** Ids of up to `limit` pending sendings of `scope` due at `now` that were attempted before (retries and resends), soonest first. */
  dueRetriesOf(scope: Scope, now: Date, limit: number): Promise<string[]>;
  /** Claims the attempt of a pending sending due by `dueBy` by moving its next attempt to `leaseUntil`; false when it was not due or someone else claimed it. */
  claim(id: string, dueBy: Date, leaseUntil: Date): Promise<boolean>;
  /** A sending and its endpoint (null when the endpoint row is gone). */
  load(id: string): Promise<{ sending: WebhookSending; endpoint: WebhookEndpoint | null }>;
  /**
   * Records the outcome of the attempt held on `sending`: only while it is
   * still pending at the attempt count it was read with. With `attempt` (an
   * HTTP attempt was made, not a sending stopped without one), its attempt
   * log row too, in the same transaction.
   */
  finish(sending: Pick<WebhookSending, "id" | "attempts" | "clubId" | "env">, outcome: Outcome, updatedAt: Date, attempt?: AttemptTiming): Promise<void>;
}

/** What sending to an endpoint needs of it. */
export type Target = Pick<WebhookEndpoint, "id" | "clubId" | "env" | "url" | "events" | "secret" | "previousSecret" | "previousSecretExpiresAt">;

/** What an attempt leaves on its sending. */
export type Outcome = Pick<WebhookSending, "status" | "attempts" | "lastError" | "lastStatusCode" | "nextAttemptAt">;

/** When an attempt's request started and how long it took, in whole milliseconds. */
export interface AttemptTiming {
  startedAt: Date;
  durationMs: number;
}

/** The adapter of `db`'s database, chosen once. */
export function openSendingStore(db: Database): SendingStore {
  return db.dialect === "postgresql" ? postgresSendingStore(db) : ormSendingStore(db);
}
