import type { components } from "../../../../generated/types.js";
import { Replay, Tally, currencyDecimals, type ReplayedEvent, type SourceTally } from "../../engine/backtest/replay.js";
import type { ApiEffect, ClubConfig } from "../../engine/config.js";
import { levelForXp, levelThresholds } from "../../engine/progression.js";
import { tierForLevel } from "../../engine/tiers.js";
import type { ParticipantState } from "../../engine/types.js";
import { Backtest, ConfigVersion, Event, LedgerEntry, OutboxMessage } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { yieldToEventLoop } from "../../db/yield-to-event-loop.js";
import { validateClubConfig } from "../club/index.js";
import { notFound, validationFailed } from "../shared/errors.js";
import { clubTimeZone } from "../evaluation/index.js";

type Schemas = components["schemas"];
export type BacktestRequest = Schemas["BacktestRequest"];
export type BacktestResult = Schemas["BacktestResult"];
export type BacktestJob = Schemas["BacktestJob"];

/** The most events one backtest replays (documented in spec/manage/backtests.tsp). */
export const MAX_BACKTEST_EVENTS = 10_000;

/** Participants whose history is read per query. */
const PARTICIPANTS_PER_QUERY = 500;

/** Periods with up to this many events are answered at once; larger ones run as a job (202). */
export const SYNC_BACKTEST_EVENTS = 2_000;

/** Events replayed between two progress reports of a job. */
const PROGRESS_EVERY = 1_000;

interface Period {
  version: number;
  from: Date;
  to: Date;
}

async function periodOf(db: Database, scope: Scope, version: number, request: BacktestRequest): Promise<Period & { count: number }> {
  const from = new Date(request.from);
  const to = new Date(request.to);
  if (!(from < to)) throw validationFailed("body.to must be after body.from");
  const row = await db.em().findOne(ConfigVersion, { ...scope, version }, { fields: ["id"], disableIdentityMap: true });
  if (!row) throw notFound(`Configuration version ${version}`);
  const count = await db.em().count(Event, periodEvents(scope, from, to));
  if (count > MAX_BACKTEST_EVENTS) throw validationFailed(`body.to: the period holds more than ${MAX_BACKTEST_EVENTS} events; split it into shorter periods`);
  return { version, from, to, count };
}

function periodEvents(scope: Scope, from: Date, to: Date) {
  return { ...scope, status: "processed" as const, duplicateOf: null, receivedAt: { $gte: from, $lt: to } };
}

/**
 * POST /v1/config/versions/{version}/backtest: answers the result at once
 * for a period of up to SYNC_BACKTEST_EVENTS events; a larger one (or with
 * `Prefer: respond-async`) is stored as a job with an outbox row, in one
 * transaction, and answered 202 with the job (see processBacktest).
 */
export async function startBacktest(
  db: Database,
  scope: Scope,
  version: number,
  request: BacktestRequest,
  opts: { now: Date; async: boolean },
): Promise<{ status: 200; body: BacktestResult } | { status: 202; body: BacktestJob }> {
  const period = await periodOf(db, scope, version, request);
  if (!opts.async && period.count <= SYNC_BACKTEST_EVENTS) return { status: 200, body: await computeBacktest(db, scope, period) };
  const row: Backtest = {
    id: newId("btr"),
    ...scope,
    version,
    from: period.from,
    to: period.to,
    status: "queued",
    eventsTotal: period.count,
    eventsDone: 0,
    result: null,
    error: null,
    createdAt: opts.now,
    finishedAt: null,
  };
  await db.em().transactional(async (em) => {
    await em.insert(Backtest, row);
    await em.insert(OutboxMessage, { id: newId("out"), ...scope, kind: "backtest", payload: { backtest_id: row.id }, createdAt: opts.now });
  });
  return { status: 202, body: jobView(row) };
}

/** GET /v1/config/backtests/{id}. */
export async function getBacktest(db: Database, scope: Scope, id: string): Promise<BacktestJob> {
  const row = await db.em().findOne(Backtest, { ...scope, id }, { disableIdentityMap: true });
  if (!row) throw notFound(`Backtest ${JSON.stringify(id)}`);
  return jobView(row);
}

function jobView(row: Backtest): BacktestJob {
  return {
    id: row.id,
    status: row.status,
    version: row.version,
    from: row.from.toISOString(),
    to: row.to.toISOString(),
    events_total: row.eventsTotal,
    events_done: row.eventsDone,
    result: (row.result as BacktestResult | null) ?? null,
    error: row.error ?? null,
    created_at: row.createdAt.toISOString(),
    finished_at: row.finishedAt?.toISOString() ?? null,
  };
}

/**
 * The worker side: runs a stored backtest job, reporting progress, and stores
 * its result. A job already finished is left alone (a redelivered message
 * changes nothing); one found running was interrupted and starts over.
 */
export async function processBacktest(db: Database, scope: Scope, id: string, now: () => Date): Promise<void> {
  const em = db.em();
  const row = await em.findOne(Backtest, { ...scope, id }, { disableIdentityMap: true });
  if (!row || row.status === "done" || row.status === "failed") return;
  await em.nativeUpdate(Backtest, { id }, { status: "running", eventsDone: 0 });
  try {
    const result = await computeBacktest(db, scope, row, (done) => em.nativeUpdate(Backtest, { id }, { eventsDone: done }));
    await em.nativeUpdate(
      Backtest,
      { id },
      { status: "done", eventsDone: result.events, result: result as unknown as Record<string, unknown>, finishedAt: now() },
    );
  } catch (error) {
    // A configuration that no longer validates, or the like: retrying would fail the same way.
    await em.nativeUpdate(Backtest, { id }, { status: "failed", error: error instanceof Error ? error.message : String(error), finishedAt: now() });
  }
}

/**
 * Replays the period's events through the version's configuration on the
 * participants' state at `from` (rebuilt from history, see the contract),
 * reading only, and compares with the effects the events actually had.
 */
async function computeBacktest(db: Database, scope: Scope, period: Period, progress?: (done: number) => Promise<unknown>): Promise<BacktestResult> {
  const { version, from, to } = period;
  const em = db.em();
  const row = await em.findOne(ConfigVersion, { ...scope, version }, { disableIdentityMap: true });
  if (!row) throw notFound(`Configuration version ${version}`);
  const config = validateClubConfig(row.config);

  const events = await em.find(Event, periodEvents(scope, from, to), {
    orderBy: [{ receivedAt: "asc" }, { id: "asc" }],
    limit: MAX_BACKTEST_EVENTS,
    disableIdentityMap: true,
  });
  const participantIds = [...new Set(events.map((event) => event.participantId))];
  const starts = await statesAt(db, scope, config, participantIds, from);
  const replayed: ReplayedEvent[] = events.map((event) => ({
    participant: event.participantId,
    at: event.processedAt ?? event.receivedAt,
    event: {
      type: event.type,
      id: event.externalEventId,
      amount: event.amount,
      currency: event.currency,
      occurred_at: event.occurredAt.toISOString(),
      meta: event.meta,
    },
  }));
  const replay = new Replay(config, clubTimeZone(config), starts, () => blankState(config, 0, {}, {}));
  for (let i = 0; i < replayed.length; i += PROGRESS_EVERY) {
    replay.run(replayed.slice(i, i + PROGRESS_EVERY));
    if (progress) await progress(Math.min(i + PROGRESS_EVERY, replayed.length));
    await yieldToEventLoop();
  }
  const actual = new Tally(currencyDecimals(config));
  for (const event of events) actual.add(event.participantId, event.effects as ApiEffect[]);

  return {
    version,
    from: from.toISOString(),
    to: to.toISOString(),
    events: events.length,
    participants: participantIds.length,
    sources: compare(replay.result(), actual.result()),
  };
}

const EMPTY: SourceTally = { runs: 0, participants: 0, xp: 0, currencies: {}, rewards: 0, completions: 0 };

function compare(draft: Record<string, SourceTally>, published: Record<string, SourceTally>): BacktestResult["sources"] {
  const view = (tally: SourceTally) => {
    const { currencies, ...rest } = tally;
    return { ...rest, currencies_minor: currencies };
  };
  return [...new Set([...Object.keys(draft), ...Object.keys(published)])].sort().map((source) => {
    const a = draft[source] ?? EMPTY;
    const b = published[source] ?? EMPTY;
    const currencies: Record<string, number> = {};
    for (const code of new Set([...Object.keys(a.currencies), ...Object.keys(b.currencies)]))
      currencies[code] = (a.currencies[code] ?? 0) - (b.currencies[code] ?? 0);
    return {
      source,
      draft: view(a),
      published: view(b),
      difference: view({
        runs: a.runs - b.runs,
        participants: a.participants - b.participants,
        xp: a.xp - b.xp,
        currencies,
        rewards: a.rewards - b.rewards,
        completions: a.completions - b.completions,
      }),
    };
  });
}

function blankState(config: ClubConfig, xp: number, balances: Record<string, number>, eventCounts: Record<string, number>): ParticipantState {
  const level = levelForXp(levelThresholds(config.progression.curve), xp);
  return {
    xp,
    level,
    tierCode: tierForLevel(config.progression.tiers, level).code,
    tags: [],
    balances,
    lots: [],
    badges: [],
    eventCountsBefore: eventCounts,
    ruleRuns: {},
    missions: {},
    peakLevel: null,
  };
}

/** Each participant's state at `from`, rebuilt from the ledger and the events before it. */
async function statesAt(db: Database, scope: Scope, config: ClubConfig, participantIds: string[], from: Date): Promise<Map<string, ParticipantState>> {
  const em = db.em();
  const states = new Map<string, ParticipantState>();
  for (let i = 0; i < participantIds.length; i += PARTICIPANTS_PER_QUERY) {
    const ids = participantIds.slice(i, i + PARTICIPANTS_PER_QUERY);
    const units = new Map<string, Record<string, number>>();
    const ledger = await em.find(
      LedgerEntry,
      { ...scope, participantId: { $in: ids }, createdAt: { $lt: from } },
      { fields: ["participantId", "unit", "delta"], disableIdentityMap: true },
    );
    for (const line of ledger) {
      const sums = units.get(line.participantId) ?? {};
      sums[line.unit] = (sums[line.unit] ?? 0) + Number(line.delta);
      units.set(line.participantId, sums);
    }
    const counts = new Map<string, Record<string, number>>();
    const before = await em.find(
      Event,
      { ...scope, participantId: { $in: ids }, status: "processed", duplicateOf: null, receivedAt: { $lt: from } },
      { fields: ["participantId", "type"], disableIdentityMap: true },
    );
    for (const event of before) {
      const byType = counts.get(event.participantId) ?? {};
      byType[event.type] = (byType[event.type] ?? 0) + 1;
      counts.set(event.participantId, byType);
    }
    for (const id of ids) {
      const { xp = 0, ...balances } = units.get(id) ?? {};
      states.set(id, blankState(config, xp, balances, counts.get(id) ?? {}));
    }
    await yieldToEventLoop();
  }
  return states;
}
