import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { ApiEffect } from "../../engine/config.js";
import type { EngineEvent } from "../../engine/types.js";
import { Event, Job, OutboxMessage, Participant } from "../../db/entities/index.js";
import { newTimeOrderedId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { withAutocommitWhereItPays } from "../../db/autocommit.js";
import { storedEventIds } from "../../db/events/event-keys.js";
import { ownersOf, queuedRows, type QueuedRow } from "../../db/events/queued-rows.js";
import { hotStore, shapeOf, type HotStore } from "../../db/hot/index.js";
import { lockById, participantIdsOf } from "../../db/participants/locks.js";
import { takeSqliteWriteLock } from "../../db/write-lock.js";
import { requirePublishedConfig } from "../club/index.js";
import { notFound } from "../shared/errors.js";
import { newParticipantRow, participantCreatedMessage } from "../participants/index.js";
import { PendingWrites } from "../evaluation/index.js";
import { GROUP_CAP, groupKey, latest, signalOutbox } from "./commit-groups.js";
import { engineEvent, eventRow, wroteOutbox, type EventInput, type EventResult, type EventsQueued, type IngestOptions } from "./event-rows.js";
import { evaluateInOrder, type ParticipantRun } from "./evaluate-in-order.js";
import { groupCommitPer, groupsInFlight } from "../../db/group-commit.js";
import { jobHandOff, type JobHandOff } from "./hand-off.js";
import type { AfterCommit } from "../shared/after-commit.js";

/*
 * The `Prefer: respond-async` path: accepting events (stored as queued with
 * an outbox row that hands them to the queue) and processing them later on a
 * worker through the same evaluation as synchronous events.
 */

/** An event accepted with `Prefer: respond-async`, waiting for its group commit (see queueEvents). */
interface Accepted {
  db: Database;
  scope: Scope;
  /** The participant's external id. */
  participant: string;
  event: EngineEvent;
  /** The `Idempotency-Key` header, else the event's `id`; null without either. */
  key: string | null;
  receivedAt: Date;
  /** Told `"outbox"` once the group's commit wrote outbox rows (the relay has work). */
  afterCommit?: AfterCommit;
}

/**
 * Creates the group's participants not in `participantIds` (external id →
 * id) with one insert and their `participant.created` with another, and adds
 * them. One by one (ensureParticipant) each cost several round trips inside
 * the group's transaction — on a fresh audience most of an accept's time.
 * A participant another transaction created meanwhile is skipped by the
 * insert (`on conflict do nothing`) and read as it stored it, so a race no
 * longer fails the group. Each is created as of its first event's arrival.
 */
async function createAbsent(
  em: SqlEntityManager,
  hot: HotStore,
  db: Database,
  scope: Scope,
  items: Accepted[],
  participantIds: Map<string, string>,
): Promise<boolean> {
  const firstSeen = new Map<string, Date>();
  for (const item of items) if (!participantIds.has(item.participant) && !firstSeen.has(item.participant)) firstSeen.set(item.participant, item.receivedAt);
  if (firstSeen.size === 0) return false;
  const { config } = await requirePublishedConfig(db, scope, em);
  // Sorted: concurrent creators insert shared keys in the same order, so neither waits on a key the other holds.
  const rows = [...firstSeen.keys()].sort().map((externalId) => newParticipantRow(scope, config, { external_id: externalId }, firstSeen.get(externalId)!));
  const inserted = await hot.insertAbsent(shapeOf(em, Participant), rows, ["club_id", "env", "external_id"]);
  const created = rows.filter((row) => inserted.has(row.id));
  await hot.insert(
    shapeOf(em, OutboxMessage),
    created.map((row) => participantCreatedMessage(scope, row, firstSeen.get(row.externalId)!)),
  );
  for (const row of created) participantIds.set(row.externalId, row.id);
  const raced = rows.filter((row) => !inserted.has(row.id)).map((row) => row.externalId);
  if (raced.length > 0) for (const [externalId, id] of await participantIdsOf(hot, scope, raced)) participantIds.set(externalId, id);
  return created.length > 0;
}

/**
 * Stores accepted events of one club environment: one read of their
 * participants, the absent ones created together (with their
 * `participant.created`, see createAbsent), one read of the keys stored
 * before (read with the participants), then the events (status queued) and
 * the row handing them over (see handOver) in one write. On PostgreSQL, when every
 * participant exists, that is two statements outside any transaction (the
 * write is one statement, atomic by itself: two round trips instead of four);
 * otherwise all in one transaction. A key stored
 * before answers the stored event's id; a key repeated within the group
 * answers its first event's id. Answers in item order.
 *
 * No participant lock: accepting touches no participant state. A repeat
 * racing its original is refused by the unique (club, env, key) — the group
 * then fails as a whole and each event is accepted again alone (acceptAlone),
 * where the repeat finds the stored original; a participant created by
 * another transaction meanwhile is skipped and read (createAbsent). The
 * order events of a participant are applied in is decided when they are
 * processed (relay order, then the participant's lock there); holding the
 * lock here serialised accepts without ordering them, as each took its time
 * before waiting for the lock.
 */
async function acceptGroup(items: Accepted[]): Promise<string[]> {
  const [{ db }] = items;
  // What the group's commit wrote, told once it is committed.
  const wrote = { outbox: false, jobs: false };
  const autocommit = db.em();
  let ids = await withAutocommitWhereItPays(autocommit, (hot) => acceptWith(autocommit, hot, items, false, wrote));
  ids ??= await db.em().transactional(async (em) => {
    await takeSqliteWriteLock(em);
    return (await acceptWith(em, await hotStore(em), items, true, wrote))!;
  });
  if (wrote.jobs) jobHandOff(db)!.stored();
  signalOutbox(wrote.outbox, items);
  return ids;
}

/**
 * The body of acceptGroup on `hot`. Without `create` (PostgreSQL, outside a
 * transaction: its reads and its one write each commit by themselves) a group
 * with an absent participant is left to a transaction: null. Creating a
 * participant takes two statements (the row, its `participant.created`),
 * which must commit together; storing events takes one.
 */
async function acceptWith(
  em: SqlEntityManager,
  hot: HotStore,
  items: Accepted[],
  create: boolean,
  wrote: { outbox: boolean; jobs: boolean },
): Promise<string[] | null> {
  const [{ db, scope }] = items;
  const externalIds = [...new Set(items.map((item) => item.participant))];
  const keys = [...new Set(items.map((item) => item.key).filter((key) => key !== null))];
  // Both reads issued in the same turn: on PostgreSQL they share one round trip (see HotStore.select).
  const [participantIds, idOfKey] = await Promise.all([
    participantIdsOf(hot, scope, externalIds),
    keys.length === 0 ? new Map<string, string>() : storedEventIds(hot, scope, keys),
  ]);
  if (participantIds.size < externalIds.length) {
    if (!create) return null;
    if (await createAbsent(em, hot, db, scope, items, participantIds)) wrote.outbox = true;
  }
  const events: { id: string; receivedAt: Date }[] = [];
  const ids = items.map((item) => {
    const original = item.key === null ? undefined : idOfKey.get(item.key);
    if (original !== undefined) return original;
    const row = eventRow(scope, participantIds.get(item.participant)!, item.event, item.key, item.receivedAt, "queued", null);
    if (item.key !== null) idOfKey.set(item.key, row.id);
    events.push(row);
    return row.id;
  });
  const jobs = jobHandOff(db);
  const handed = handOver(scope, events, jobs);
  // One statement, one round trip on PostgreSQL (the hand-off row names the events in its payload only: neither insert reads the other's rows).
  await hot.writeAll([
    { insert: shapeOf(em, Event), rows: events },
    { insert: jobs ? shapeOf(em, Job) : shapeOf(em, OutboxMessage), rows: handed },
  ]);
  if (handed.length > 0) wrote[jobs ? "jobs" : "outbox"] = true;
  return ids;
}

/**
 * The row that hands a group's stored events to the queue: one message
 * naming them all (`{event_ids}`, in the order accepted), not one per event.
 * Every message costs an outbox insert and update, a publish and its
 * confirm, a delivery and its acknowledgement (on the embedded queue a job's
 * claim and completion) on the cores that accept; the consumer applies the
 * ids of a message together anyway (group commit). An outbox row for the
 * relay, or with the embedded queue the job row itself (see JobHandOff).
 */
function handOver(scope: Scope, events: { id: string; receivedAt: Date }[], jobs: JobHandOff | undefined): object[] {
  if (events.length === 0) return [];
  const payload: QueuedEventsMessage = { event_ids: events.map((event) => event.id) };
  const createdAt = events.reduce((first, event) => (event.receivedAt < first ? event.receivedAt : first), events[0].receivedAt);
  if (jobs) return [jobs.row(scope, payload, createdAt)];
  return [{ id: newTimeOrderedId("out"), ...scope, kind: "event", payload, createdAt, relayedAt: null }];
}

/**
 * The payload of an `event` message: the queued events to process, in the
 * order accepted. `event_id` (one event) is what earlier versions wrote;
 * rows of theirs may still wait in the outbox or the queue.
 */
export type QueuedEventsMessage = { event_ids: string[] } | { event_id: string };

/** The event ids of an `event` message's payload; null when it names none. */
export function queuedEventIds(payload: Record<string, unknown>): string[] | null {
  const { event_ids: ids, event_id: id } = payload;
  if (Array.isArray(ids) && ids.length > 0 && ids.every((each) => typeof each === "string")) return ids as string[];
  return typeof id === "string" ? [id] : null;
}

/** One accepted event in its own transaction: when its key was stored meanwhile (a racing repeat committed first), the stored event's id. */
async function acceptAlone(item: Accepted): Promise<string> {
  try {
    const [id] = await acceptGroup([item]);
    return id;
  } catch (err) {
    if (item.key === null || !(err instanceof UniqueConstraintViolationException)) throw err;
    const original = await item.db.em().transactional(async (em) => (await storedEventIds(await hotStore(em), item.scope, [item.key!])).get(item.key!));
    if (original === undefined) throw err;
    return original;
  }
}

const acceptsOf = groupCommitPer<Database, Accepted, string>((db) => ({
  cap: GROUP_CAP,
  maxInFlight: groupsInFlight(db),
  applyGroup: (_, items) => acceptGroup(items),
  applyOne: (_, item) => acceptAlone(item),
}));

/**
 * `Prefer: respond-async`: stores each event as `queued` (creating absent
 * participants) with an outbox message that hands it to the queue after
 * commit (or the embedded queue's job, see JobHandOff), and answers the
 * stored ids in request order at once; a repeated idempotency key gives the
 * first event's id and stores nothing. `idempotencyKey` (the header) applies
 * to a single event only; `afterCommit` is told when the commit wrote
 * outbox rows, for the caller to wake the relay.
 *
 * Events accepted concurrently (several requests, or the events of one
 * batch) are gathered and stored together (group commit, see acceptGroup);
 * when a group fails, each of its events is stored again alone, so an event
 * fails only for its own fault.
 */
export async function queueEvents(
  db: Database,
  scope: Scope,
  inputs: EventInput[],
  opts: { now: Date; idempotencyKey?: string; afterCommit?: AfterCommit },
): Promise<EventsQueued> {
  if (opts.idempotencyKey !== undefined && inputs.length !== 1) throw new Error("an Idempotency-Key header names one event");
  const groups = acceptsOf(db);
  const key = [scope.clubId, scope.env].join("\u0000");
  const eventIds = await Promise.all(
    inputs.map((input) =>
      groups.submit(key, {
        db,
        scope,
        participant: input.participant,
        event: engineEvent(input, opts.now),
        key: opts.idempotencyKey ?? input.id ?? null,
        receivedAt: opts.now,
        afterCommit: opts.afterCommit,
      }),
    ),
  );
  return { queued: true, event_ids: eventIds };
}

/** A queued event waiting for its group commit (see processQueuedEvent). */
interface QueuedEvent {
  db: Database;
  scope: Scope;
  eventRowId: string;
  now: Date;
  publicUrl: string;
  afterCommit?: AfterCommit;
}

/** The answer for a queued event already processed. */
function processedResult(row: Pick<QueuedRow, "id" | "effects">): EventResult {
  return { event_id: row.id, duplicate: false, effects: row.effects as ApiEffect[] };
}

/**
 * Processes queued events of one club environment in one transaction: their
 * participants locked together, each participant's events evaluated in the
 * order they were handed in, every write gathered into one flush, and the
 * events marked processed with one statement. An event already processed (a
 * redelivery, or the same message twice) is answered with its stored result
 * and not evaluated again. `missing` names what was not found in the error.
 */
async function processQueued(queued: QueuedEvent[], missing: { event: string; participant: string }): Promise<EventResult[]> {
  const [{ db, scope, publicUrl }] = queued;
  const published = await requirePublishedConfig(db, scope);
  const ids = [...new Set(queued.map((item) => item.eventRowId))];
  let written = false;
  const opts: IngestOptions = { now: latest(queued.map((item) => item.now)), publicUrl, afterCommit: () => (written = true) };
  const results = await db.em().transactional(async (em) => {
    await takeSqliteWriteLock(em);
    const hot = await hotStore(em);
    const owners = await ownersOf(hot, scope, ids);
    if (owners.size !== ids.length) throw notFound(missing.event);
    const participantIds = [...new Set(owners.values())];
    const locked = await lockById(hot, scope, participantIds);
    if (locked.length !== participantIds.length) throw notFound(missing.participant);
    // Read again under the locks: another worker may have processed some meanwhile.
    const rows = await queuedRows(hot, ids);
    const runs = new Map(locked.map((participant): [string, ParticipantRun] => [participant.id, { participant, stored: [] }]));
    for (const id of ids) {
      const row = rows.get(id)!;
      if (row.status === "queued") runs.get(row.participantId)!.stored.push({ id, event: row.event });
    }
    const busy = [...runs.values()].filter((run) => run.stored.length > 0);
    const writes = new PendingWrites();
    const effects = await evaluateInOrder(em, db, scope, published, busy, writes, opts);
    if (writes.outbox.length > 0) wroteOutbox(opts);
    await writes.flush(em);
    const processed = busy.flatMap((run, r) => run.stored.map(({ id }, i) => ({ id, effects: effects[r][i] })));
    await hot.markEventsProcessed(processed, opts.now);
    const answers = new Map(processed.map((row): [string, EventResult] => [row.id, { event_id: row.id, duplicate: false, effects: row.effects }]));
    return queued.map((item) => answers.get(item.eventRowId) ?? processedResult(rows.get(item.eventRowId)!));
  });
  signalOutbox(written, queued);
  return results;
}

async function processQueuedGroup(queued: QueuedEvent[]): Promise<EventResult[]> {
  return processQueued(queued, { event: "A queued event", participant: "The participant of a queued event" }); // each alone then names its own
}

/** One queued event in its own transaction. */
async function processQueuedAlone(item: QueuedEvent): Promise<EventResult> {
  const name = JSON.stringify(item.eventRowId);
  const [result] = await processQueued([item], { event: `Event ${name}`, participant: `The participant of event ${name}` });
  return result;
}

/**
 * How long queued events gather before their group is applied. Nobody waits
 * on a queued event's answer (it was accepted already; its lag may be
 * seconds), while every group costs a transaction's fixed round trips and
 * statements, on the same cores that accept: a window of a few
 * milliseconds gathers the messages of a steady stream into groups several
 * times bigger than one turn of the event loop does.
 */
const QUEUED_GATHER_MS = 50;

const queuedEventsOf = groupCommitPer<Database, QueuedEvent, EventResult>((db) => ({
  cap: GROUP_CAP,
  maxInFlight: groupsInFlight(db),
  applyGroup: (_, items) => processQueuedGroup(items),
  applyOne: (_, item) => processQueuedAlone(item),
  schedule: (end) => void setTimeout(end, QUEUED_GATHER_MS),
}));

/**
 * Processes an event stored as `queued` (the worker side of
 * `Prefer: respond-async`), exactly as `ingestEvent` would have. Idempotent:
 * an event already processed is not evaluated again and its stored result is
 * answered, so a queue that delivers a message twice changes nothing.
 *
 * Queued events handed in concurrently (a consumer's prefetched messages)
 * are gathered like single events (group commit) and processed in one
 * transaction; each call resolves once its group committed, so a message is
 * acknowledged only then. A failing group is processed again event by event.
 */
export async function processQueuedEvent(db: Database, scope: Scope, eventRowId: string, opts: IngestOptions): Promise<EventResult> {
  const item: QueuedEvent = { db, scope, eventRowId, now: opts.now, publicUrl: opts.publicUrl, afterCommit: opts.afterCommit };
  return queuedEventsOf(db).submit(groupKey(scope, opts.publicUrl, opts.now), item);
}
