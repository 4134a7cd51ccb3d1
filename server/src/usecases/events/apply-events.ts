import { DeadlockException, UniqueConstraintViolationException } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { unknownTypeWarning } from "../../engine/trace.js";
import { Participant } from "../../db/entities/index.js";
import { storedEventsByKey } from "../../db/events/event-keys.js";
import { hotStore } from "../../db/hot/index.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { yieldToEventLoop } from "../../db/yield-to-event-loop.js";
import { requirePublishedConfig, type PublishedConfig } from "../club/index.js";
import { PendingWrites, type ParticipantSnapshot } from "../evaluation/index.js";
import { assertSameEvent, type StoredOriginal } from "./event-id-conflict.js";
import { duplicateResult, eventRow, wroteOutbox, type EventResult, type Incoming, type IngestOptions } from "./event-rows.js";
import { evaluateInOrder, type ParticipantRun } from "./evaluate-in-order.js";
import { lockOrCreateParticipants } from "./participant-locks.js";

/*
 * Applying participants' events in a transaction: their locks, the repeats
 * of stored keys, the evaluations in order, one flush; and what is tried
 * again, apart, when a group loses a race.
 */

/**
 * Locks the participants with `externalIds` on the driver (see
 * lockOrCreateParticipants), creating those seen for the first time (with
 * their `participant.created`); by external id.
 */
async function lockOrCreate(
  em: SqlEntityManager,
  db: Database,
  scope: Scope,
  externalIds: string[],
  now: Date,
  onCreate?: () => void,
): Promise<Map<string, ParticipantSnapshot>> {
  const config = async () => (await requirePublishedConfig(db, scope, em)).config;
  return lockOrCreateParticipants(em, await hotStore(em), scope, externalIds, { now, config, onCreate });
}

/** The stored events under `keys` (the originals a repeat answers with), by key; in `em`'s transaction, else in one of its own. */
export async function findOriginals(em: SqlEntityManager, scope: Scope, keys: (string | null)[]): Promise<Map<string, StoredOriginal>> {
  const wanted = keys.filter((key) => key !== null);
  if (wanted.length === 0) return new Map();
  if (!em.getTransactionContext()) return em.transactional((trx) => findOriginals(trx, scope, keys));
  return storedEventsByKey(await hotStore(em), scope, wanted) as Promise<Map<string, StoredOriginal>>;
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
  const participants = await lockOrCreate(
    em,
    db,
    scope,
    groups.map((group) => group.externalId),
    now,
    () => wroteOutbox(opts),
  );
  const originals = await findOriginals(
    em,
    scope,
    groups.flatMap((group) => group.items.map((item) => item.key)),
  );
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
export async function ingestTogether(
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
    if (groups.length > 1 && (conflict || err instanceof DeadlockException))
      return applyApart(groups, (group) => ingestTogether(db, scope, published, [group], opts));
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
 * writes' statements, the flush) are paid once instead of five times
 * (docs/performance-log.md#cpu-per-event), and the batch's transaction
 * holds the one connection for all its steps anyway: a request that needs
 * the database waits for its commit whatever the steps.
 */
const PARTICIPANTS_PER_STEP = 500;
/**
 * How often a whole batch is tried again after losing a race: another request
 * stored one of its keys first (the retry answers it as a repeat) or a
 * deadlock with another transaction (a referral also locks its referrer).
 */
export const BATCH_ATTEMPTS = 5;

export interface BatchItem extends Incoming {
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
export async function applyPlanned(
  em: SqlEntityManager,
  db: Database,
  scope: Scope,
  published: PublishedConfig,
  items: BatchItem[],
  opts: IngestOptions,
): Promise<EventResult[]> {
  const { byParticipant, repeats } = planBatch(items);
  const results: EventResult[] = new Array(items.length);
  const answer = async (groups: BatchItem[][]) => {
    const answered = await applyInOrder(
      em,
      db,
      scope,
      published,
      groups.map((group) => ({ externalId: group[0].participant, items: group })),
      opts,
    );
    groups.forEach((group, g) => group.forEach((item, i) => (results[item.index] = answered[g][i])));
  };
  for (const step of chunks(byParticipant, PARTICIPANTS_PER_STEP)) {
    await answer(step);
    await yieldToEventLoop();
  }
  for (const repeat of repeats) await answer([[repeat]]);
  return results;
}
