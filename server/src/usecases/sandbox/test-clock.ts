import type { components } from "../../../../generated/types.js";
import { Event, OutboxMessage, TestClock } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import type { ScheduledTask } from "../../jobs/schedules.js";
import { yieldToEventLoop } from "../../db/yield-to-event-loop.js";
import { ApiError, notFound, validationFailed } from "../shared/errors.js";
import { withClockAt } from "./test-clock-context.js";

type Schemas = components["schemas"];
export type TestClockView = Schemas["TestClock"];
export type TestClockAdvanced = Schemas["TestClockAdvanced"];

const DAY_MS = 86_400_000;

/**
 * How long a process trusts what it read of a club's clock. Requests of every
 * test environment consult it, so it is not read on each one; this process's
 * own advances and deletions update it at once, another process's show here
 * within this time.
 */
const CLOCK_CACHE_MS = 1_000;
const cached = new Map<string, { at: Date | null; readAt: number }>();

/** testClockAt when this process knows the clock (no promise); undefined when it must be read. */
export function knownTestClockAt(clubId: string): Date | null | undefined {
  const hit = cached.get(clubId);
  return hit && performance.now() - hit.readAt < CLOCK_CACHE_MS ? hit.at : undefined;
}

/** The club's test clock time, null without one (the test environment then runs in real time). */
export async function testClockAt(db: Database, clubId: string): Promise<Date | null> {
  const known = knownTestClockAt(clubId);
  if (known !== undefined) return known;
  // Callers that miss together (a worker's prefetched messages of one club) share one read instead of each querying.
  const pending = reading.get(clubId);
  if (pending) return pending;
  const read: Promise<Date | null> = db
    .em()
    .findOne(TestClock, { clubId }, { fields: ["now"], disableIdentityMap: true })
    .then(
      (row) => {
        const at = row?.now ?? null;
        // Not when this process changed the clock meanwhile (that dropped the read): what it wrote is newer.
        if (reading.get(clubId) === read) {
          reading.delete(clubId);
          remember(clubId, at);
        }
        return at;
      },
      (error: unknown) => {
        if (reading.get(clubId) === read) reading.delete(clubId);
        throw error;
      },
    );
  reading.set(clubId, read);
  return read;
}

/** Reads of a club's clock under way, shared by the callers that missed the cache meanwhile. */
const reading = new Map<string, Promise<Date | null>>();

/** This process changed the club's clock: reads under way began before, so their answer is not kept. */
function changed(clubId: string, at: Date | null | undefined): void {
  reading.delete(clubId);
  if (at === undefined) cached.delete(clubId);
  else remember(clubId, at);
}

function remember(clubId: string, at: Date | null): void {
  if (cached.size > 10_000) cached.clear();
  cached.set(clubId, { at, readAt: performance.now() });
}

/** The clock routes exist for test keys only: a live key gets 404, so the live environment never sees a clock. */
function requireTestEnv(scope: Scope): void {
  if (scope.env !== "test") throw notFound("A test clock (test clocks exist in the test environment only)");
}

/** GET /v1/test_clock. */
export async function getTestClock(db: Database, scope: Scope, realNow: Date): Promise<TestClockView> {
  requireTestEnv(scope);
  const at = await testClockAt(db, scope.clubId);
  return { now: (at ?? realNow).toISOString(), frozen: at !== null };
}

/** One year after `from` (the most one advance may move). */
function oneYearAfter(from: Date): Date {
  const limit = new Date(from);
  limit.setUTCFullYear(limit.getUTCFullYear() + 1);
  return limit;
}

/**
 * POST /v1/test_clock/advance: moves the club's test clock forward to `to`
 * (a clock starts at real now), one club day at a time at most: at each step
 * every scheduled task that can run for one scope (ScheduledTask.runFor) runs
 * for (club, test) at the step's time, in task order, so due work happens in
 * time order, all before the answer.
 */
export async function advanceTestClock(db: Database, scope: Scope, to: Date, tasks: readonly ScheduledTask[], realNow: Date): Promise<TestClockAdvanced> {
  requireTestEnv(scope);
  changed(scope.clubId, undefined);
  const from = (await testClockAt(db, scope.clubId)) ?? realNow;
  if (!(to.getTime() > from.getTime()))
    throw validationFailed(`body.to must be after the test clock's time ${from.toISOString()} (a test clock only moves forward)`);
  if (to.getTime() > oneYearAfter(from).getTime()) throw validationFailed(`body.to may be at most one year after the test clock's time ${from.toISOString()}`);
  const scoped = tasks.filter((task) => task.runFor !== undefined);
  const runs = new Map(scoped.map((task) => [task.name, 0]));
  let steps = 0;
  for (let at = from; at.getTime() < to.getTime();) {
    at = new Date(Math.min(at.getTime() + DAY_MS, to.getTime()));
    await setClock(db, scope.clubId, at);
    for (const task of scoped) {
      await withClockAt(at, () => task.runFor!(scope, at));
      runs.set(task.name, runs.get(task.name)! + 1);
    }
    steps += 1;
    await yieldToEventLoop();
  }
  const webhooks = await db.em().count(OutboxMessage, { ...scope, kind: "webhook", createdAt: { $gt: from, $lte: to } });
  return {
    from: from.toISOString(),
    to: to.toISOString(),
    steps,
    tasks: [...runs].map(([name, count]) => ({ name, runs: count })),
    webhooks_queued: webhooks,
  };
}

async function setClock(db: Database, clubId: string, at: Date): Promise<void> {
  const em = db.em();
  const updated = await em.nativeUpdate(TestClock, { clubId }, { now: at, updatedAt: at });
  if (updated === 0) await em.insert(TestClock, { id: newId("clk"), clubId, now: at, createdAt: at, updatedAt: at });
  changed(clubId, at);
}

/**
 * DELETE /v1/test_clock: back to real time; refused while events were
 * recorded after real now (real time would run backwards for them).
 */
export async function deleteTestClock(db: Database, scope: Scope, realNow: Date): Promise<TestClockView> {
  requireTestEnv(scope);
  const em = db.em();
  const later = await em.count(Event, { ...scope, receivedAt: { $gt: realNow } });
  if (later > 0) {
    throw new ApiError(
      409,
      "test_clock_in_use",
      `${later} event(s) of the test environment were recorded after real now; real time cannot go back before them. Keep the clock or use a new club.`,
    );
  }
  await em.nativeDelete(TestClock, { clubId: scope.clubId });
  changed(scope.clubId, null);
  return { now: realNow.toISOString(), frozen: false };
}
