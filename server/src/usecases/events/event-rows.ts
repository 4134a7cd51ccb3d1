import type { components } from "../../../../generated/types.js";
import type { ApiEffect, ClubConfig } from "../../engine/config.js";
import { fromMinorUnits, toMinorUnits } from "../../engine/money.js";
import { isoText } from "../../engine/time.js";
import type { EventTrace } from "../../engine/trace.js";
import type { EngineEvent } from "../../engine/types.js";
import type { Event, EventStatus } from "../../db/entities/index.js";
import { newTimeOrderedId } from "../../db/ids.js";
import type { Scope } from "../../db/scope.js";
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
export function eventRow(
  scope: Scope,
  participantId: string,
  event: EngineEvent,
  idempotencyKey: string | null,
  receivedAt: Date,
  status: EventStatus,
  processedAt: Date | null,
) {
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
export function duplicateResult(original: Pick<Event, "id" | "effects">, config: ClubConfig): EventResult {
  const effects = (original.effects as Record<string, unknown>[]).map((effect) => {
    if (typeof effect.amount_minor !== "number") return effect;
    const { amount_minor: minor, ...rest } = effect;
    return { ...rest, amount: fromMinorUnits(minor as number, config.currencies.find((currency) => currency.code === effect.currency)?.decimals ?? 0) };
  });
  return { event_id: original.id, duplicate: true, effects: effects as ApiEffect[] };
}

/** An event of a request, ready to apply. */
export interface Incoming {
  event: EngineEvent;
  /** The `Idempotency-Key` header, else the event's `id`; null without either. */
  key: string | null;
  /** When its request arrived (events applied together in a group commit each keep their own). */
  receivedAt: Date;
}

export function incoming(input: EventInput, idempotencyKey: string | undefined, receivedAt: Date): Incoming {
  return { event: engineEvent(input, receivedAt), key: idempotencyKey ?? input.id ?? null, receivedAt };
}
