import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { groupCommitPer, groupsInFlight } from "../../db/group-commit.js";
import { yieldToEventLoop } from "../../db/yield-to-event-loop.js";
import { requirePublishedConfig } from "../club/index.js";
import { DeadlockException, UniqueConstraintViolationException } from "@mikro-orm/core";
import { applyPlanned, BATCH_ATTEMPTS, ingestTogether, type BatchItem } from "./apply-events.js";
import { GROUP_CAP, groupKey, latest, signalOutbox } from "./commit-groups.js";
import { checkEngineInputs } from "./event-inputs.js";
import { engineEvent, incoming, type EventInput, type EventResult, type Incoming, type IngestOptions } from "./event-rows.js";
import type { AfterCommit } from "../shared/after-commit.js";

/*
 * POST /v1/events and /v1/events/batch: single events gathered into group
 * commits, batches applied as one transaction (apply-events.ts).
 */

export { GROUP_CAP } from "./commit-groups.js";
export { engineEvent, eventRow, type EventInput, type EventResult, type IngestOptions } from "./event-rows.js";

/** A single event waiting for its group commit (see ingestEvent). */
interface SingleEvent extends Incoming {
  db: Database;
  scope: Scope;
  participant: string;
  publicUrl: string;
  /** The caller's after-commit hook, told after the group's commit. */
  afterCommit?: AfterCommit;
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
  const results = await db.em().transactional((em) =>
    applyPlanned(
      em,
      db,
      scope,
      published,
      events.map((event, index) => Object.assign({}, event, { index })),
      opts,
    ),
  );
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

const singleEventsOf = groupCommitPer<Database, SingleEvent, EventResult>((db) => ({
  cap: GROUP_CAP,
  maxInFlight: groupsInFlight(db),
  applyGroup: (_, events) => ingestGroup(events),
  applyOne: (_, event) => ingestAlone(event),
}));

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
    const [[result]] = await ingestTogether(
      db,
      scope,
      published,
      [{ externalId: input.participant, items: [incoming(input, opts.idempotencyKey, opts.now)] }],
      { ...opts, traces: new Map() },
    );
    return result;
  }
  const event: SingleEvent = {
    db,
    scope,
    participant: input.participant,
    publicUrl: opts.publicUrl,
    afterCommit: opts.afterCommit,
    ...incoming(input, opts.idempotencyKey, opts.now),
  };
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
  const items = events.map((input, index): BatchItem => ({
    index,
    participant: input.participant,
    event: engineEvent(input, opts.now),
    key: input.id ?? null,
    receivedAt: opts.now,
  }));
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

export { processQueuedEvent, queueEvents, queuedEventIds } from "./queued.js";
