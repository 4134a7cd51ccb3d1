import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { maintainTables } from "../../db/table-maintenance.js";
import { purgeRelayedOutbox } from "../../jobs/outbox.js";
import type { ScheduledTask } from "../../jobs/schedules.js";
import { warnUnconfirmedDeliveries } from "../../jobs/warnings.js";
import { WebhookDispatcher } from "../../webhooks/dispatch.js";
import { creditDueCashbackForAllClubs } from "../cashback/index.js";
import { purgeOldTraces } from "../events/index.js";
import { reviewTiers } from "../participants/index.js";
import { expireCurrencyLots, expireRewards } from "../rewards/index.js";
import { testClockAt } from "../sandbox/index.js";
import { settleTournaments, settleTournamentsForAllClubs } from "../tournaments/index.js";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
/** How often a worker checks whether tables need ANALYZE or VACUUM (db/table-maintenance.ts: big tables are acted on at most every 30 s). */
const TABLE_MAINTENANCE_MS = 5_000;

/**
 * The periodic jobs of every worker, each safe to run in several workers at
 * once. The interval is how late a job may act: a delivery warning or a lot
 * expiry comes at most 5 minutes late; a tier review (once per club month)
 * and an `auto` cashback payment (due at the program's hour) at most an hour;
 * a tournament edition is settled at most a minute after it closes (2 minutes
 * after its end, see LATE_EVENT_GRACE_MS).
 */
export function workerTasks(db: Database, publicUrl: string | undefined): ScheduledTask[] {
  const tasks: ScheduledTask[] = [
    {
      name: "unconfirmed delivery warnings",
      intervalMs: 5 * MINUTE_MS,
      run: (now) => warnUnconfirmedDeliveries(db, now),
      runFor: (scope, now) => warnUnconfirmedDeliveries(db, now, undefined, scope),
    },
    {
      name: "currency lot expiry",
      intervalMs: 5 * MINUTE_MS,
      run: (now) => expireCurrencyLots(db, now),
      runFor: (scope, now) => expireCurrencyLots(db, now, undefined, scope),
    },
    {
      name: "reward expiry",
      intervalMs: 5 * MINUTE_MS,
      run: (now) => expireRewards(db, now),
      runFor: (scope, now) => expireRewards(db, now, scope),
    },
    { name: "monthly tier review", intervalMs: HOUR_MS, run: (now) => reviewTiers(db, now), runFor: (scope, now) => reviewTiers(db, now, scope) },
    { name: "event trace retention", intervalMs: HOUR_MS, run: (now) => purgeOldTraces(db, now) },
    { name: "relayed outbox retention", intervalMs: HOUR_MS, run: (now) => purgeRelayedOutbox(db, now) },
    // Often, so that a fresh install or a club that grows fast is planned for its size within seconds; a pass that finds nothing to do is two catalog reads.
    { name: "table statistics and vacuum", intervalMs: TABLE_MAINTENANCE_MS, run: () => maintainTables(db) },
  ];
  if (publicUrl !== undefined) {
    tasks.push({
      name: "automatic cashback",
      intervalMs: HOUR_MS,
      run: (now) => creditDueCashbackForAllClubs(db, { now, publicUrl }),
      runFor: (scope, now) => creditDueCashbackForAllClubs(db, { now, publicUrl }, scope),
    });
    // Prizes are paid at most a minute after an edition closes; a pass over settled editions only reads.
    tasks.push({
      name: "tournament settlement",
      intervalMs: MINUTE_MS,
      run: (now) => settleTournamentsForAllClubs(db, { now, publicUrl }),
      runFor: (scope, now) => settleTournaments(db, scope, { now, publicUrl }),
    });
  }
  return tasks;
}

/**
 * What `POST /v1/test_clock/advance` runs at each step: the worker's tasks,
 * then the webhook retries due on the club's test clock. (A worker's
 * dispatcher retries on real time; a clocked test environment's sendings are
 * scheduled on its clock, see WebhookDispatcherOptions.clockFor, so only an
 * advance makes them due.)
 */
export function testClockTasks(db: Database, publicUrl: string | undefined): ScheduledTask[] {
  const dispatcher = new WebhookDispatcher({ db, clockFor: (scope) => clockOf(db, scope) });
  return [
    ...workerTasks(db, publicUrl),
    { name: "webhook retries", intervalMs: MINUTE_MS, run: () => dispatcher.runDue(), runFor: (scope, now) => dispatcher.runDueFor(scope, now) },
  ];
}

/** A scope's test clock: only a test environment has one. */
export function clockOf(db: Database, scope: Scope): Promise<Date | null> {
  return scope.env === "test" ? testClockAt(db, scope.clubId) : Promise.resolve(null);
}
