import type { components } from "../../../../generated/types.js";
import { replay, Tally, type ReplayedEvent, type SourceTally } from "../../engine/backtest/replay.js";
import type { ApiEffect, ClubConfig } from "../../engine/config.js";
import { levelForXp, levelThresholds } from "../../engine/progression.js";
import { tierForLevel } from "../../engine/tiers.js";
import type { ParticipantState } from "../../engine/types.js";
import { ConfigVersion, Event, LedgerEntry } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { yieldToEventLoop } from "../../db/yield-to-event-loop.js";
import { validateClubConfig } from "../config.js";
import { notFound, validationFailed } from "../errors.js";
import { clubTimeZone } from "../participant-state.js";

type Schemas = components["schemas"];
export type BacktestRequest = Schemas["BacktestRequest"];
export type BacktestResult = Schemas["BacktestResult"];

/** The most events one backtest replays (documented in spec/manage/backtests.tsp). */
export const MAX_BACKTEST_EVENTS = 10_000;

/** Participants whose history is read per query. */
const PARTICIPANTS_PER_QUERY = 500;

/**
 * POST /v1/config/versions/{version}/backtest: replays the period's events
 * through the version's configuration on the participants' state at `from`
 * (rebuilt from history, see the contract), reads only, and compares with
 * the effects the events actually had.
 */
export async function runBacktest(db: Database, scope: Scope, version: number, request: BacktestRequest): Promise<BacktestResult> {
  const from = new Date(request.from);
  const to = new Date(request.to);
  if (!(from < to)) throw validationFailed("body.to must be after body.from");
  const em = db.em();
  const row = await em.findOne(ConfigVersion, { ...scope, version }, { disableIdentityMap: true });
  if (!row) throw notFound(`Configuration version ${version}`);
  const config = validateClubConfig(row.config);

  const events = await em.find(
    Event,
    { ...scope, status: "processed", duplicateOf: null, receivedAt: { $gte: from, $lt: to } },
    { orderBy: [{ receivedAt: "asc" }, { id: "asc" }], limit: MAX_BACKTEST_EVENTS + 1, disableIdentityMap: true },
  );
  if (events.length > MAX_BACKTEST_EVENTS) throw validationFailed(`body.to: the period holds more than ${MAX_BACKTEST_EVENTS} events; split it into shorter periods`);

  const participantIds = [...new Set(events.map((event) => event.participantId))];
  const starts = await statesAt(db, scope, config, participantIds, from);
  const replayed: ReplayedEvent[] = events.map((event) => ({
    participant: event.participantId,
    at: event.processedAt ?? event.receivedAt,
    event: { type: event.type, id: event.externalEventId, amount: event.amount, currency: event.currency, occurred_at: event.occurredAt.toISOString(), meta: event.meta },
  }));
  const draft = replay(config, clubTimeZone(config), starts, () => blankState(config, 0, {}, {}), replayed);
  const actual = new Tally();
  for (const event of events) actual.add(event.participantId, event.effects as ApiEffect[]);

  return {
    version,
    from: from.toISOString(),
    to: to.toISOString(),
    events: events.length,
    participants: participantIds.length,
    sources: compare(draft, actual.result()),
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
    for (const code of new Set([...Object.keys(a.currencies), ...Object.keys(b.currencies)])) currencies[code] = (a.currencies[code] ?? 0) - (b.currencies[code] ?? 0);
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
    const ledger = await em.find(LedgerEntry, { ...scope, participantId: { $in: ids }, createdAt: { $lt: from } }, { fields: ["participantId", "unit", "delta"], disableIdentityMap: true });
    for (const line of ledger) {
      const sums = units.get(line.participantId) ?? {};
      sums[line.unit] = (sums[line.unit] ?? 0) + Number(line.delta);
      units.set(line.participantId, sums);
    }
    const counts = new Map<string, Record<string, number>>();
    const before = await em.find(Event, { ...scope, participantId: { $in: ids }, status: "processed", duplicateOf: null, receivedAt: { $lt: from } }, { fields: ["participantId", "type"], disableIdentityMap: true });
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
