import { DeadlockException, UniqueConstraintViolationException } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import { evaluate } from "../../engine/evaluate.js";
import type { ApiEffect, ClubConfig } from "../../engine/config.js";
import { fromMinorUnits, toMinorUnits } from "../../engine/money.js";
import { isoText } from "../../engine/time.js";
import { qualifiesReferral, type ReferralConfig } from "../../engine/referral.js";
import type { EngineEvent, ParticipantState } from "../../engine/types.js";
import { unknownTypeWarning, type EventTrace } from "../../engine/trace.js";
import { Event, Participant, type EventStatus } from "../../db/entities/index.js";
import { newTimeOrderedId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { stateAfter } from "../evaluation/index.js";
import { checkEngineInputs } from "./event-inputs.js";
import { requirePublishedConfig, type PublishedConfig } from "../club/index.js";
import {
  clubTimeZone, gatherEvaluation, loadStatesForEvents, type ParticipantSnapshot,
} from "../evaluation/index.js";
import { PendingWrites } from "../evaluation/index.js";
import { gatherTournamentScores } from "../tournaments/index.js";
import { qualifyReferralOnEvent } from "../referrals/index.js";
import { yieldToEventLoop } from "../../db/yield-to-event-loop.js";
import { assertSameEvent, type StoredOriginal } from "./event-id-conflict.js";
import { groupCommitPer } from "../../db/group-commit.js";
import { lockOrCreateParticipants, readLocked } from "./participant-locks.js";
import { hotStore } from "../../db/hot/index.js";
import { byScopedKeys } from "../../db/hot/scoped-reads.js";
import { clockOverride } from "../sandbox/index.js";
import type { AfterCommit } from "../shared/after-commit.js";

export type EventInput = components["schemas"]["EventInput"];
export type EventResult = components["schemas"]["EventResult"];
export type EventsQueued = components["schemas"]["EventsQueued"];

export interface IngestOptions {
  now: Date;
  /** The base URL of the delivery confirm/fail links sent in webhooks. */
  publicUrl: string;
  /**
   * Set to collect the engine's "why" trace of each evaluated event, by event
   * row id (the trace is then stored with the event and returned).
   */
  traces?: Map<string, EventTrace>;
  /**
   * Told `"outbox"` when the work wrote (or may have written) outbox rows, so
   * the caller wakes the relay only then (conservative: a created participant
   * or a paid referral counts).
   */
  afterCommit?: AfterCommit;
}

/** Tells the caller's after-commit hook that outbox rows were written. */
export function wroteOutbox(opts: IngestOptions): void {
  opts.afterCommit?.("outbox");
}

/**
 * The event as the engine sees it. `input` has passed the contract's
 * validator, which filled `currency` and `meta` with their defaults; the
 * generated type still marks them optional because they are in requests.
 */
export function engineEvent(input: EventInput, receivedAt: Date): EngineEvent {
  if (input.currency === undefined || input.meta === undefined) throw new Error("events take a validated EventInput (currency and meta filled)");
  return {
    type: input.type,
    id: input.id ?? null,
    amount: input.amount ?? null,
    // Any three letters are accepted; the code is used and stored in upper case (ISO 4217).
    currency: input.currency.toUpperCase(),
    occurred_at: input.occurred_at ?? isoText(receivedAt),
    meta: input.meta,
  };
}

/** The amount in hundredths, exact; null without an amount or when it does not fit a safe integer. */
function amountInHundredths(amount: number | string | null | undefined): number | null {
  if (amount === null || amount === undefined) return null;
  try {
    return toMinorUnits(amount, 2);
  } catch {
    return null;
  }
}

/**
 * The stored row of a received event, before its effects are known: `status`
 * "processed" (and `processedAt`) or "queued" as the caller says. Every
 * column the caller sets after is already a key here, so completing the row
 * stores into it without growing it (once per event of a batch).
 */
export function eventRow(scope: Scope, participantId: string, event: EngineEvent, idempotencyKey: string | null, receivedAt: Date, status: EventStatus, processedAt: Date | null) {
  return {
    id: newTimeOrderedId("evt"),
    clubId: scope.clubId,
    env: scope.env,
    participantId,
    externalEventId: event.id ?? null,
    idempotencyKey,
    type: event.type,
    amount: event.amount === null || event.amount === undefined ? null : String(event.amount),
    amountMinor: amountInHundredths(event.amount),
    currency: event.currency,
    // An event without its own time happened when received: the same Date then (a batch's rows share one, formatted once when bound).
    occurredAt: event.occurred_at === isoText(receivedAt) ? receivedAt : new Date(event.occurred_at),
    meta: event.meta,
    effects: [] as ApiEffect[],
    effectsCount: 0,
    error: null,
    trace: null as Record<string, unknown> | null,
    receivedAt,
    status,
    processedAt,
    duplicateOf: null as string | null,
  };
}

/**
 * The event stored under an idempotency key, as the answer to a repeat.
 * Results stored while currency effects were served in minor units carry
 * `amount_minor`: a repeat answers them in the contract's main-unit `amount`.
 */
function duplicateResult(original: Pick<Event, "id" | "effects">, config: ClubConfig): EventResult {
  const effects = (original.effects as Record<string, unknown>[]).map((effect) => {
    if (typeof effect.amount_minor !== "number") return effect;
    const { amount_minor: minor, ...rest } = effect;
    return { ...rest, amount: fromMinorUnits(minor as number, config.currencies.find((currency) => currency.code === effect.currency)?.decimals ?? 0) };
  });
  return { event_id: original.id, duplicate: true, effects: effects as ApiEffect[] };
}

/**
 * Locks the participants with `externalIds` on the driver (see
 * lockOrCreateParticipants), creating those seen for the first time (with
 * their `participant.created`); by external id.
 */
async function lockOrCreate(em: SqlEntityManager, db: Database, scope: Scope, externalIds: string[], now: Date, onCreate?: () => void): Promise<Map<string, ParticipantSnapshot>> {
  const config = async () => (await requirePublishedConfig(db, scope, em)).config;
  return lockOrCreateParticipants(em, await hotStore(em), scope, externalIds, { now, config, onCreate });
}

/** An event of a request, ready to apply. */
interface Incoming {
  event: EngineEvent;
  /** The `Idempotency-Key` header, else the event's `id`; null without either. */
  key: string | null;
  /** When its request arrived (events applied together in a group commit each keep their own). */
  receivedAt: Date;
}

function incoming(input: EventInput, idempotencyKey: string | undefined, receivedAt: Date): Incoming {
  return { event: engineEvent(input, receivedAt), key: idempotencyKey ?? input.id ?? null, receivedAt };
}

/** Stored events of one locked participant, to evaluate in order. */
export interface ParticipantRun {
  participant: ParticipantSnapshot;
  stored: { id: string; event: EngineEvent }[];
}

/**
 * Evaluates stored events of locked participants, each participant's one
 * after the other, and gathers their deltas into `writes`; returns each
 * event's effects (with reward and delivery ids filled in), per participant.
 * The states are read once for all the events and carried forward in memory,
 * as reading them back after each event would give.
 *
 * An event that qualifies the participant's pending referral also pays it,
 * and the referred participant's reward joins the event's effects. Paying
 * reads and writes the stored state of the participant and of its referrer
 * (who may be among the participants here), so what is gathered is written
 * first, and the states of the participants still to evaluate are read again
 * after.
 */
export async function evaluateInOrder(
  em: SqlEntityManager,
  db: Database,
  scope: Scope,
  published: PublishedConfig,
  runs: ParticipantRun[],
  writes: PendingWrites,
  opts: IngestOptions,
): Promise<ApiEffect[][][]> {
  const { config } = published;
  const { now, publicUrl } = opts;
  const at = { now, timeZone: clubTimeZone(config) };
  const loaded = new Map<ParticipantRun, { snapshot: ParticipantSnapshot; state: ParticipantState; referral: ReferralConfig | null }>();
  // A participant's columns as stored when read again (after a referral paid), else as locked.
  const current = new Map<ParticipantRun, ParticipantSnapshot>();
  const load = async (loading: ParticipantRun[]) => {
    // The driver's snapshots as they are (plain objects, never changed: each event's columns after are a new one).
    const snapshots = loading.map((run) => current.get(run) ?? run.participant);
    // Issued together: on PostgreSQL the reads share one round trip (see HotStore.select).
    const [states, referrals] = await Promise.all([
      loadStatesForEvents(em, snapshots, config, at, loading.map((run) => run.stored.map(({ event }) => event))),
      pendingReferrals(em, scope, config, loading),
    ]);
    loading.forEach((run, i) => loaded.set(run, { snapshot: snapshots[i], state: states[i], referral: referrals.get(run.participant.id) ?? null }));
  };
  await load(runs);
  const results: ApiEffect[][][] = new Array(runs.length);
  const trace = opts.traces !== undefined;
  /*
   * Index loops and literals without spreads: this body runs once per event of a batch. The three calls' arguments
   * are one object each for the whole loop, their per-event fields set before each call: none of the calls keeps
   * its argument or hands it on (they read it, and what they keep they copy), and three literals per event were
   * ≈ 250 bytes of each event's allocation.
   */
  const input = { config, state: undefined as unknown as ParticipantState, event: undefined as unknown as EngineEvent, now, timeZone: at.timeZone, trace };
  const target = { scope, config, participant: undefined as unknown as ParticipantSnapshot, state: input.state, now, publicUrl, event: { id: "", type: "" } };
  const scoring = { scope, participantId: "", config, event: input.event, now, timeZone: at.timeZone };
  for (let r = 0; r < runs.length; r++) {
    const run = runs[r];
    const { participant } = run;
    let { snapshot, state, referral } = loaded.get(run)!;
    // Of the exact length, filled by index (pushing grows a list to 17 slots: once per participant of a batch).
    const effects: ApiEffect[][] = new Array(run.stored.length);
    for (let i = 0; i < run.stored.length; i++) {
      const { id, event } = run.stored[i];
      input.state = state;
      input.event = event;
      const evaluation = evaluate(input);
      if (evaluation.explanation) opts.traces!.set(id, evaluation.explanation);
      target.participant = snapshot;
      target.state = state;
      target.event.id = id;
      target.event.type = event.type;
      const gathered = gatherEvaluation(writes, target, evaluation);
      scoring.participantId = participant.id;
      scoring.event = event;
      gatherTournamentScores(writes.standings, scoring);
      if (referral === null || !qualifiesReferral(referral, event)) {
        effects[i] = gathered.effects;
        // Carried only to the participant's next event here: after its last (a batch's usual one), nothing reads it.
        if (i + 1 < run.stored.length) {
          snapshot = gathered.participant;
          state = stateAfter(state, config, evaluation.delta, gathered);
        }
        continue;
      }
      wroteOutbox(opts);
      await writes.flush(em);
      const paid = await qualifyReferralOnEvent(em, scope, { dialect: db.dialect, config, participant, event, now, publicUrl });
      effects[i] = [...gathered.effects, ...paid];
      // This participant's later events and the next participants' start from their stored rows, read again.
      const rest = { participant, stored: run.stored.slice(i + 1) };
      const later = runs.slice(r + 1);
      const stored = await readLocked(await hotStore(em), [participant.id, ...later.map((next) => next.participant.id)]);
      for (const next of [rest, ...later]) current.set(next, stored.get(next.participant.id)!);
      await load([rest, ...later]);
      ({ snapshot, state, referral } = loaded.get(rest)!);
    }
    results[r] = effects;
  }
  return results;
}

/** The pending referrals of referred participants (ids), one index probe each (db/hot/scoped-reads.ts). */
export const PENDING_REFERRALS = byScopedKeys({ table: "referrals", columns: ["referred_id"], key: "referred_id", where: "status = 'pending'" });

/**
 * The club's referral program for each participant with a pending referral
 * that one of its events may qualify, by participant id; the others' events
 * need not ask one by one (qualifyReferralOnEvent decides for each that may).
 */
async function pendingReferrals(em: SqlEntityManager, scope: Scope, config: ClubConfig, runs: ParticipantRun[]): Promise<Map<string, ReferralConfig>> {
  const referral = config.referral as ReferralConfig | undefined;
  if (!referral?.enabled) return new Map();
  const candidates = runs.filter((run) => run.stored.some(({ event }) => qualifiesReferral(referral, event))).map((run) => run.participant.id);
  if (candidates.length === 0) return new Map();
  const pending = await (await hotStore(em)).select<{ referred_id: string }>(
    PENDING_REFERRALS,
    [scope.clubId, scope.env, candidates],
  );
  return new Map(pending.map((row) => [row.referred_id, referral]));
}

/** One probe of the key index per key (see db/hot/scoped-reads.ts). */
const ORIGINALS = byScopedKeys({ table: "events", columns: ["id", "idempotency_key", "effects", "participant_id", "type"], key: "idempotency_key" });

/** The stored events under `keys` (the originals a repeat answers with), by key; in `em`'s transaction, else in one of its own. */
async function findOriginals(em: SqlEntityManager, scope: Scope, keys: (string | null)[]): Promise<Map<string, StoredOriginal>> {
  const wanted = keys.filter((key) => key !== null);
  if (wanted.length === 0) return new Map();
  if (!em.getTransactionContext()) return em.transactional((trx) => findOriginals(trx, scope, keys));
  const store = await hotStore(em);
  const rows = await store.select<{ id: string; idempotency_key: string; effects: ApiEffect[] | string; participant_id: string; type: string }>(
    ORIGINALS,
    [scope.clubId, scope.env, wanted],
  );
  // SQLite hands JSON columns back as text.
  return new Map(rows.map((row) => [row.idempotency_key, {
    id: row.id, participantId: row.participant_id, type: row.type, effects: typeof row.effects === "string" ? JSON.parse(row.effects) : row.effects,
  }]));
}

/** One participant's events of a request, in request order. */
interface ParticipantEvents {
  externalId: string;
  items: Incoming[];
}

/**
 * Applies participants' events in their transaction, holding their locks:
 * each event whose key was stored before is logged as a repeat and answered
 * with the original's result; the others are evaluated (each participant's in
 * order) and stored with their effects. Everything is written at the end,
 * one statement per table. The keys must all differ (a batch repeating a key
 * sends the repeat once the first has committed).
 */
async function applyInOrder(
  em: SqlEntityManager,
  db: Database,
  scope: Scope,
  published: PublishedConfig,
  groups: ParticipantEvents[],
  opts: IngestOptions,
): Promise<EventResult[][]> {
  const { now } = opts;
  const participants = await lockOrCreate(em, db, scope, groups.map((group) => group.externalId), now, () => wroteOutbox(opts));
  const originals = await findOriginals(em, scope, groups.flatMap((group) => group.items.map((item) => item.key)));
  const originalOf = (item: Incoming) => (item.key === null ? undefined : originals.get(item.key));
  // One pass over each group's items (once per event of a batch): the repeats checked, the others' rows built.
  const plans = groups.map((group) => {
    const participant = participants.get(group.externalId)!;
    // Each also as the run evaluates it ({ id, event }: see ParticipantRun), so the runs below reuse these lists.
    const planned = (item: Incoming) => {
      const row = eventRow(scope, participant.id, item.event, item.key, item.receivedAt, "processed", now);
      return { item, row, id: row.id, event: item.event };
    };
    let repeats = false;
    for (const item of group.items) {
      const original = originalOf(item);
      if (original) {
        assertSameEvent(original, item.key!, participant.id, item.event.type);
        repeats = true;
      }
    }
    // Mapped when nothing repeats (the usual case: a list of the exact length, where pushing grows one to 17 slots).
    const fresh = repeats ? group.items.filter((item) => !originalOf(item)).map(planned) : group.items.map(planned);
    return { group, participant, fresh };
  });
  const writes = new PendingWrites();
  const runs: ParticipantRun[] = plans.map(({ participant, fresh }) => ({ participant, stored: fresh }));
  const effects = await evaluateInOrder(em, db, scope, published, runs, writes, opts);
  const results = plans.map(({ group, participant, fresh }, g) => {
    const applied = fresh.map(({ item, row }, i): EventResult => {
      const eventEffects = effects[g][i];
      const trace = opts.traces?.get(row.id);
      // The row completed in place (it is this event's own, built above, and only its id is read after): a copy
      // of its keys cost about a kilobyte per event; stores into keys it has, not a second object assigned.
      row.effects = eventEffects;
      row.effectsCount = eventEffects.length;
      row.trace = (trace as unknown as Record<string, unknown>) ?? null;
      writes.events.push(row);
      const warning = unknownTypeWarning(published.config, item.event.type);
      const result: EventResult = { event_id: row.id, duplicate: false, effects: eventEffects };
      if (warning) result.warnings = [warning];
      if (trace) result.trace = trace;
      return result;
    });
    // `fresh` holds the group's items without an original, in order: the n-th such item's answer is applied[n].
    if (fresh.length === group.items.length) return applied;
    let next = 0;
    return group.items.map((item) => {
      const original = originalOf(item);
      if (!original) return applied[next++];
      const repeat = eventRow(scope, participant.id, item.event, null, item.receivedAt, "processed", now);
      repeat.duplicateOf = original.id;
      writes.events.push(repeat);
      return duplicateResult(original, published.config);
    });
  });
  if (writes.outbox.length > 0) wroteOutbox(opts);
  await writes.flush(em);
  return results;
}

/**
 * Participants' events in one transaction (see applyInOrder); results per
 * participant. When another request stored one of the keys meanwhile (the
 * same key sent at the same time for another participant, which committed
 * first), the unique key refuses the write, and the events are applied again
 * apart — participant by participant, then event by event — until the one
 * whose key is taken is answered as a repeat of the stored event. Several
 * participants locked together may also deadlock with another transaction
 * (a referral locks its referrer too): they are then applied one by one.
 */
async function ingestTogether(
  db: Database,
  scope: Scope,
  published: PublishedConfig,
  groups: ParticipantEvents[],
  opts: IngestOptions,
): Promise<EventResult[][]> {
  try {
    return await db.em().transactional((em) => applyInOrder(em, db, scope, published, groups, opts));
  } catch (err) {
    const conflict = err instanceof UniqueConstraintViolationException;
    if (groups.length > 1 && (conflict || err instanceof DeadlockException)) return applyApart(groups, (group) => ingestTogether(db, scope, published, [group], opts));
    const [{ externalId, items }] = groups;
    if (!conflict || items.every((item) => item.key === null)) throw err;
    if (items.length > 1) return [(await applyApart(items, (item) => ingestTogether(db, scope, published, [{ externalId, items: [item] }], opts))).flat()];
    const original = (await findOriginals(db.em(), scope, [items[0].key])).get(items[0].key!);
    if (!original) throw err;
    const participant = await db.em().findOne(Participant, { ...scope, externalId }, { fields: ["id"], disableIdentityMap: true });
    assertSameEvent(original, items[0].key!, participant?.id ?? "", items[0].event.type);
    return [[duplicateResult(original, published.config)]];
  }
}

/** `apply` for each part in turn, the results concatenated. */
async function applyApart<T>(parts: T[], apply: (part: T) => Promise<EventResult[][]>): Promise<EventResult[][]> {
  const results: EventResult[][] = [];
  for (const part of parts) {
    results.push(...(await apply(part)));
    await yieldToEventLoop();
  }
  return results;
}

/**
 * A batch is one transaction (every event applied, or none), its
 * participants taken a step at a time (every statement of a step serves all
 * of them, with array parameters). On PostgreSQL each statement is a round
 * trip, which a loaded machine makes cost far more than the rows do, so a
 * whole batch (at most 500 events) is one step. SQLite too: it runs
 * in-process without yielding, but a step's fixed costs (each read, the
 * writes' statements, the flush) are paid once instead of five times (a
 * stored batch's event-loop CPU 57 → 50 ms), and the batch's transaction
 * holds the one connection for all its steps anyway: a request that needs
 * the database waits for its commit whatever the steps.
 */
const PARTICIPANTS_PER_STEP = { postgresql: 500, sqlite: 500 } as const;
/**
 * How often a whole batch is tried again after losing a race: another request
 * stored one of its keys first (the retry answers it as a repeat) or a
 * deadlock with another transaction (a referral also locks its referrer).
 */
const BATCH_ATTEMPTS = 5;

interface BatchItem extends Incoming {
  /** The event's place in the request. */
  index: number;
  participant: string;
}

/**
 * The batch's events by participant, each participant's in request order,
 * and apart the repeats: events whose key an earlier event of the batch
 * (of any participant) already has.
 */
function planBatch(items: BatchItem[]): { byParticipant: BatchItem[][]; repeats: BatchItem[] } {
  const byParticipant = new Map<string, BatchItem[]>();
  const repeats: BatchItem[] = [];
  const keys = new Set<string>();
  for (const item of items) {
    if (item.key !== null && keys.has(item.key)) {
      repeats.push(item);
      continue;
    }
    if (item.key !== null) keys.add(item.key);
    const group = byParticipant.get(item.participant);
    if (group) group.push(item);
    else byParticipant.set(item.participant, [item]);
  }
  return { byParticipant: [...byParticipant.values()], repeats };
}

function chunks<T>(items: T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}

/**
 * Applies `items` (their `index` numbering them from 0) in `em`'s
 * transaction as if sent one after the other: by participant, many
 * participants per step (see applyInOrder), and the repeats of a key already
 * in `items` answered after the originals. The results in item order.
 */
async function applyPlanned(em: SqlEntityManager, db: Database, scope: Scope, published: PublishedConfig, items: BatchItem[], opts: IngestOptions): Promise<EventResult[]> {
  const { byParticipant, repeats } = planBatch(items);
  const results: EventResult[] = new Array(items.length);
  const answer = async (groups: BatchItem[][]) => {
    const answered = await applyInOrder(em, db, scope, published, groups.map((group) => ({ externalId: group[0].participant, items: group })), opts);
    groups.forEach((group, g) => group.forEach((item, i) => (results[item.index] = answered[g][i])));
  };
  for (const step of chunks(byParticipant, PARTICIPANTS_PER_STEP[db.dialect])) {
    await answer(step);
    await yieldToEventLoop();
  }
  for (const repeat of repeats) await answer([[repeat]]);
  return results;
}

/** A single event waiting for its group commit (see ingestEvent). */
interface SingleEvent extends Incoming {
  db: Database;
  scope: Scope;
  participant: string;
  publicUrl: string;
  /** The caller's after-commit hook, told after the group's commit. */
  afterCommit?: AfterCommit;
}

/** At most this many single events share one transaction. */
export const GROUP_CAP = 128;

/**
 * Groups of one club environment applied at a time: SQLite writes one
 * transaction at a time anyway; on PostgreSQL a second group evaluates while
 * the first waits for its commit.
 */
export function groupsInFlight(db: Database): number {
  return db.dialect === "sqlite" ? 1 : 2;
}

/** The latest of `times`: events applied together are evaluated when the last of them arrived. */
export function latest(times: Date[]): Date {
  return new Date(Math.max(...times.map((time) => time.getTime())));
}

/** Tells each caller whose work shared a commit that wrote outbox rows. */
export function signalOutbox(written: boolean, callers: { afterCommit?: AfterCommit }[]): void {
  if (written) for (const caller of callers) caller.afterCommit?.("outbox");
}

/**
 * Single events of one club environment applied in one transaction, as a
 * batch of them would be (each participant's in arrival order, a repeated
 * key answered after its original); answers in arrival order.
 */
async function ingestGroup(events: SingleEvent[]): Promise<EventResult[]> {
  const [{ db, scope, publicUrl }] = events;
  const published = await requirePublishedConfig(db, scope);
  let written = false;
  const opts: IngestOptions = { now: latest(events.map((event) => event.receivedAt)), publicUrl, afterCommit: () => (written = true) };
  const results = await db.em().transactional((em) => applyPlanned(em, db, scope, published, events.map((event, index) => Object.assign({}, event, { index })), opts));
  signalOutbox(written, events);
  return results;
}

/** One single event in its own transaction (a group of one, or a group's event applied again alone). */
async function ingestAlone(event: SingleEvent): Promise<EventResult> {
  const { db, scope, publicUrl } = event;
  const published = await requirePublishedConfig(db, scope);
  let written = false;
  const opts: IngestOptions = { now: event.receivedAt, publicUrl, afterCommit: () => (written = true) };
  const [[result]] = await ingestTogether(db, scope, published, [{ externalId: event.participant, items: [event] }], opts);
  signalOutbox(written, [event]);
  return result;
}

const singleEventsOf = groupCommitPer<Database, SingleEvent, EventResult>((db) => ({ cap: GROUP_CAP, maxInFlight: groupsInFlight(db), applyGroup: (_, events) => ingestGroup(events), applyOne: (_, event) => ingestAlone(event) }));

/**
 * What may share a transaction: the same club environment and base URL, the
 * same kind of clock (a test clock's work never mixes with real time's), and
 * the same second — a group is evaluated at its latest arrival, and within a
 * second no day, week or month turns over, so a clock that jumps (a test's)
 * never gets its events evaluated at another event's time.
 */
export function groupKey(scope: Scope, publicUrl: string, now: Date): string {
  return [scope.clubId, scope.env, publicUrl, clockOverride() === undefined ? "real" : "test", Math.floor(now.getTime() / 1000)].join("\u0000");
}

/**
 * POST /v1/events: one event, applied atomically. The participant is created
 * when absent and locked; an event whose idempotency key (the
 * `Idempotency-Key` header, else the event's `id`) was seen before answers the
 * first result with `duplicate: true` and applies nothing (the repeat is
 * logged as its own row pointing at the original); otherwise the rules and
 * missions are evaluated against the published configuration and everything
 * they changed is stored with the event and its effects.
 *
 * Concurrent single events of the same club environment are gathered for one
 * turn of the event loop and applied in one transaction (group commit, see
 * db/group-commit.ts); if that transaction fails, each is applied again
 * alone, so an event fails only for its own fault. A traced event (the test
 * console's) is applied alone.
 */
export async function ingestEvent(
  db: Database,
  scope: Scope,
  input: EventInput,
  opts: IngestOptions & { idempotencyKey?: string; trace?: boolean },
): Promise<EventResult> {
  checkEngineInputs([input], () => "body");
  if (opts.trace) {
    const published = await requirePublishedConfig(db, scope);
    const [[result]] = await ingestTogether(db, scope, published, [{ externalId: input.participant, items: [incoming(input, opts.idempotencyKey, opts.now)] }], { ...opts, traces: new Map() });
    return result;
  }
  const event: SingleEvent = { db, scope, participant: input.participant, publicUrl: opts.publicUrl, afterCommit: opts.afterCommit, ...incoming(input, opts.idempotencyKey, opts.now) };
  return singleEventsOf(db).submit(groupKey(scope, opts.publicUrl, opts.now), event);
}

/**
 * POST /v1/events/batch: each event with its own idempotency (its `id`) and
 * its own result, in request order, evaluated as if sent one after the other;
 * a second copy of an id later in the batch is a duplicate of the first. The
 * whole batch is evaluated against the configuration published when it
 * arrived.
 *
 * Atomic: everything the engine needs of each event (real instants, usable
 * amounts) is checked before the first write (422 naming the field), and the
 * whole batch is one transaction, so a failure anywhere leaves nothing
 * written and resending is safe.
 *
 * An event only changes its own participant's state (but for the referrer
 * a qualifying event pays), so the events are applied by participant, many
 * participants per step (see applyInOrder), and the repeats are answered
 * after the originals, in the same transaction. The one order that can differ
 * from sending the events one by one: a referrer's own events of the same
 * batch that follow the qualifying event may be evaluated before the referral pays.
 */
export async function ingestBatch(db: Database, scope: Scope, events: EventInput[], opts: IngestOptions): Promise<{ results: EventResult[] }> {
  checkEngineInputs(events, (i) => `body.events[${i}]`);
  const published = await requirePublishedConfig(db, scope);
  // Built directly (as incoming() would, without an Idempotency-Key): one object per event, no spread.
  const items = events.map((input, index): BatchItem => ({ index, participant: input.participant, event: engineEvent(input, opts.now), key: input.id ?? null, receivedAt: opts.now }));
  for (let attempt = 1; ; attempt++) {
    try {
      return { results: await db.em().transactional((em) => applyPlanned(em, db, scope, published, items, opts)) };
    } catch (err) {
      const lostRace = err instanceof UniqueConstraintViolationException || err instanceof DeadlockException;
      if (!lostRace || attempt >= BATCH_ATTEMPTS) throw err;
      await yieldToEventLoop();
    }
  }
}

export { processQueuedEvent, queueEvents, queuedEventIds, type QueuedEventsMessage } from "./queued.js";
