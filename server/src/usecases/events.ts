import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../generated/types.js";
import { evaluate } from "../engine/evaluate.js";
import type { ApiEffect } from "../engine/config.js";
import { toMinorUnits } from "../engine/money.js";
import type { EngineEvent } from "../engine/types.js";
import { Event, OutboxMessage, Participant } from "../db/entities/index.js";
import { newId } from "../db/ids.js";
import type { Database } from "../db/orm.js";
import type { Scope } from "../db/scope.js";
import { requirePublishedConfig, type PublishedConfig } from "./config.js";
import { notFound } from "./errors.js";
import { clubTimeZone, loadParticipantState, lockParticipant, persistEvaluation } from "./participant-state.js";
import { ensureParticipant } from "./participants.js";
import { qualifyReferralOnEvent } from "./referrals.js";

export type EventInput = components["schemas"]["EventInput"];
export type EventResult = components["schemas"]["EventResult"];
export type EventsQueued = components["schemas"]["EventsQueued"];

export interface IngestOptions {
  now: Date;
  /** The base URL of the delivery confirm/fail links sent in webhooks. */
  publicUrl: string;
}

/**
 * The event as the engine sees it. `input` has passed the contract's
 * validator, which filled `currency` and `meta` with their defaults; the
 * generated type still marks them optional because they are in requests.
 */
function engineEvent(input: EventInput, receivedAt: Date): EngineEvent {
  if (input.currency === undefined || input.meta === undefined) throw new Error("events take a validated EventInput (currency and meta filled)");
  return {
    type: input.type,
    id: input.id ?? null,
    amount: input.amount ?? null,
    currency: input.currency,
    occurred_at: input.occurred_at ?? receivedAt.toISOString(),
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

/** The stored row of a received event, before its effects are known. */
function eventRow(scope: Scope, participantId: string, event: EngineEvent, idempotencyKey: string | null, receivedAt: Date) {
  return {
    id: newId("evt"),
    ...scope,
    participantId,
    externalEventId: event.id ?? null,
    idempotencyKey,
    duplicateOf: null,
    type: event.type,
    amount: event.amount === null || event.amount === undefined ? null : String(event.amount),
    amountMinor: amountInHundredths(event.amount),
    currency: event.currency,
    occurredAt: new Date(event.occurred_at),
    meta: event.meta,
    effects: [] as ApiEffect[],
    effectsCount: 0,
    error: null,
    receivedAt,
  };
}

/** The event stored under an idempotency key, as the answer to a repeat. */
function duplicateResult(original: Pick<Event, "id" | "effects">): EventResult {
  return { event_id: original.id, duplicate: true, effects: original.effects as ApiEffect[] };
}

/**
 * Runs `work` in one transaction holding the lock of the participant with
 * `externalId`; a participant seen for the first time is created in that
 * same transaction (with its `participant.created`).
 */
async function withParticipantLocked<T>(
  db: Database,
  scope: Scope,
  externalId: string,
  now: Date,
  work: (em: SqlEntityManager, participant: Participant) => Promise<T>,
): Promise<T> {
  return db.em().transactional(async (em) => {
    const where = { ...scope, externalId };
    let participant = await lockParticipant(em, db.dialect, where);
    if (!participant) {
      await ensureParticipant(db, scope, externalId, { em, now });
      participant = await lockParticipant(em, db.dialect, where);
    }
    return work(em, participant!);
  });
}

/**
 * Evaluates a stored event for its locked participant and writes the delta;
 * returns the effects (with reward and delivery ids filled in). An event that
 * qualifies the participant's pending referral also pays it, and the referred
 * participant's reward joins the event's effects.
 */
async function applyEvent(
  em: SqlEntityManager,
  db: Database,
  scope: Scope,
  published: PublishedConfig,
  participant: Participant,
  stored: { id: string; event: EngineEvent },
  opts: IngestOptions,
): Promise<ApiEffect[]> {
  const { config } = published;
  const { now, publicUrl } = opts;
  const timeZone = clubTimeZone(config);
  const state = await loadParticipantState(em, participant, config, { now, timeZone, event: stored.event });
  const evaluation = evaluate({ config, state, event: stored.event, now, timeZone });
  const effects = await persistEvaluation(
    { em, scope, config, participant, state, now, publicUrl, event: { id: stored.id, type: stored.event.type } },
    evaluation,
  );
  const referral = await qualifyReferralOnEvent(em, scope, { dialect: db.dialect, config, participant, event: stored.event, now, publicUrl });
  return [...effects, ...referral];
}

/**
 * POST /v1/events: one event in one transaction. The participant is created
 * when absent and locked; an event whose idempotency key (the
 * `Idempotency-Key` header, else the event's `id`) was seen before answers the
 * first result with `duplicate: true` and applies nothing (the repeat is
 * logged as its own row pointing at the original); otherwise the rules and
 * missions are evaluated against the published configuration and everything
 * they changed is stored with the event and its effects.
 */
export async function ingestEvent(
  db: Database,
  scope: Scope,
  input: EventInput,
  opts: IngestOptions & { idempotencyKey?: string },
): Promise<EventResult> {
  return ingestWith(db, scope, await requirePublishedConfig(db, scope), input, opts);
}

/**
 * POST /v1/events/batch: each event on its own, in request order, with its
 * own idempotency (its `id`), so a second copy of an id later in the batch is
 * a duplicate of the first. The whole batch is evaluated against the
 * configuration published when it arrived.
 */
export async function ingestBatch(db: Database, scope: Scope, events: EventInput[], opts: IngestOptions): Promise<{ results: EventResult[] }> {
  const published = await requirePublishedConfig(db, scope);
  const results: EventResult[] = [];
  for (const input of events) results.push(await ingestWith(db, scope, published, input, opts));
  return { results };
}

async function ingestWith(
  db: Database,
  scope: Scope,
  published: PublishedConfig,
  input: EventInput,
  opts: IngestOptions & { idempotencyKey?: string },
): Promise<EventResult> {
  const event = engineEvent(input, opts.now);
  const key = opts.idempotencyKey ?? input.id ?? null;
  try {
    return await withParticipantLocked(db, scope, input.participant, opts.now, async (em, participant) => {
      const original = key === null ? null : await em.findOne(Event, { ...scope, idempotencyKey: key }, { fields: ["id", "effects"] });
      if (original) {
        await em.insert(Event, { ...eventRow(scope, participant.id, event, null, opts.now), duplicateOf: original.id, status: "processed", processedAt: opts.now });
        return duplicateResult(original);
      }
      const row = eventRow(scope, participant.id, event, key, opts.now);
      const effects = await applyEvent(em, db, scope, published, participant, { id: row.id, event }, opts);
      await em.insert(Event, { ...row, status: "processed", effects, effectsCount: effects.length, processedAt: opts.now });
      return { event_id: row.id, duplicate: false, effects };
    });
  } catch (err) {
    // The same key sent at the same time for another participant, whose event committed first.
    if (key === null || !(err instanceof UniqueConstraintViolationException)) throw err;
    const original = await db.em().findOne(Event, { ...scope, idempotencyKey: key }, { fields: ["id", "effects"] });
    if (!original) throw err;
    return duplicateResult(original);
  }
}

/**
 * `Prefer: respond-async`: stores each event as `queued` (creating absent
 * participants) with an outbox message that hands it to the queue after
 * commit, and answers the stored ids in request order at once; a repeated
 * idempotency key gives the first event's id and stores nothing.
 * `idempotencyKey` (the header) applies to a single event only.
 */
export async function queueEvents(
  db: Database,
  scope: Scope,
  inputs: EventInput[],
  opts: { now: Date; idempotencyKey?: string },
): Promise<EventsQueued> {
  if (opts.idempotencyKey !== undefined && inputs.length !== 1) throw new Error("an Idempotency-Key header names one event");
  const eventIds: string[] = [];
  for (const input of inputs) {
    const event = engineEvent(input, opts.now);
    const key = opts.idempotencyKey ?? input.id ?? null;
    try {
      eventIds.push(
        await withParticipantLocked(db, scope, input.participant, opts.now, async (em, participant) => {
          const original = key === null ? null : await em.findOne(Event, { ...scope, idempotencyKey: key }, { fields: ["id"] });
          if (original) return original.id;
          const row = eventRow(scope, participant.id, event, key, opts.now);
          await em.insert(Event, { ...row, status: "queued", processedAt: null });
          await em.insert(OutboxMessage, { id: newId("out"), ...scope, kind: "event", payload: { event_id: row.id }, createdAt: opts.now });
          return row.id;
        }),
      );
    } catch (err) {
      if (key === null || !(err instanceof UniqueConstraintViolationException)) throw err;
      const original = await db.em().findOne(Event, { ...scope, idempotencyKey: key }, { fields: ["id"] });
      if (!original) throw err;
      eventIds.push(original.id);
    }
  }
  return { queued: true, event_ids: eventIds };
}

/** The engine's view of a stored event. */
function storedEvent(row: Event): EngineEvent {
  return {
    type: row.type,
    id: row.externalEventId,
    amount: row.amount,
    currency: row.currency,
    occurred_at: row.occurredAt.toISOString(),
    meta: row.meta,
  };
}

/**
 * Processes an event stored as `queued` (the worker side of
 * `Prefer: respond-async`), exactly as `ingestEvent` would have. Idempotent:
 * an event already processed is not evaluated again and its stored result is
 * answered, so a queue that delivers a message twice changes nothing.
 */
export async function processQueuedEvent(db: Database, scope: Scope, eventRowId: string, opts: IngestOptions): Promise<EventResult> {
  const published = await requirePublishedConfig(db, scope);
  const queued = await db.em().findOne(Event, { ...scope, id: eventRowId }, { fields: ["participantId"] });
  if (!queued) throw notFound(`Event ${JSON.stringify(eventRowId)}`);
  return db.em().transactional(async (em) => {
    const participant = await lockParticipant(em, db.dialect, { ...scope, id: queued.participantId });
    if (!participant) throw notFound(`The participant of event ${JSON.stringify(eventRowId)}`);
    // Read again under the lock: another worker may have processed it meanwhile.
    const row = await em.findOneOrFail(Event, { id: eventRowId });
    if (row.status !== "queued") return { event_id: row.id, duplicate: false, effects: row.effects as ApiEffect[] };
    const effects = await applyEvent(em, db, scope, published, participant, { id: row.id, event: storedEvent(row) }, opts);
    await em.nativeUpdate(Event, { id: row.id }, { status: "processed", effects, effectsCount: effects.length, processedAt: opts.now });
    return { event_id: row.id, duplicate: false, effects };
  });
}
