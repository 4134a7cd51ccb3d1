import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { amountColumn, enumColumn, idColumn, refColumn, tenancyColumns } from "./columns.js";

export type EventStatus = "queued" | "processed" | "failed";

/** How long a stored "why" trace is kept (the event log shows none after). */
export const TRACE_RETENTION_DAYS = 7;

/**
 * A fact received from the client. `idempotencyKey` is the Idempotency-Key
 * header, else the event's own `id` (`externalEventId`); the unique index on
 * (key, club, env) is what makes a repeat a duplicate (NULL keys never
 * collide, so an event without either is never deduplicated). The key leads
 * it so that a probe by key has this one index to use, whatever the
 * statistics say about the club (see findOriginals); the (club, env) prefix
 * searches use the (club, env, receivedAt) index. A repeat is
 * logged as its own row with no key and `duplicateOf` pointing at the original.
 *
 * `amount` keeps the decimal string as received (main units); `amountMinor` is
 * the same amount in hundredths, exact. `effects` is the list of API effects
 * returned for it, so a duplicate can answer with the same effects.
 */
export const Event = defineEntity({
  name: "Event",
  tableName: "events",
  uniques: [{ properties: ["idempotencyKey", "clubId", "env"] }],
  // Every index here is read by some query (and costs each event's insert): no (status, receivedAt) one, which none read.
  indexes: [
    /*
     * The event log's, partial so that only a query naming received_at can use
     * it: the event path's probes by key (club, env, idempotency key) have the
     * unique index above as their one usable index. Otherwise, whenever the
     * planner believes the club has about one row (statistics of a table
     * analysed while nearly empty, or a club newer than them), both indexes
     * cost the same and the smaller one, this, is chosen: a scan of the whole
     * club per key (test/db/query-plans.test.ts).
     */
    {
      name: "events_club_id_env_received_at_partial_index",
      expression: (table, columns, name) =>
        `create index ${name} on ${table.name} (${columns.clubId}, ${columns.env}, ${columns.receivedAt}) where ${columns.receivedAt} is not null`,
    },
    { properties: ["participantId", "receivedAt"] },
  ],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    externalEventId: p.string().length(128).nullable(),
    idempotencyKey: p.string().length(128).nullable(),
    duplicateOf: refColumn().nullable(),
    type: p.string().length(64),
    amount: p.string().length(40).nullable(),
    amountMinor: amountColumn().nullable(),
    currency: p.string().length(3),
    occurredAt: p.datetime(),
    meta: p.json<Record<string, unknown>>(),
    status: enumColumn<EventStatus>(),
    effects: p.json<Record<string, unknown>[]>(),
    effectsCount: p.integer(),
    error: p.text().nullable(),
    /** The engine's "why" trace, when asked for (`?trace=true`, test events); cleared after TRACE_RETENTION_DAYS. */
    trace: p.json<Record<string, unknown>>().nullable(),
    receivedAt: p.datetime(),
    processedAt: p.datetime().nullable(),
  },
});
export type Event = InferEntity<typeof Event>;

/**
 * One firing of a rule for a participant: what the rule limits count
 * (`dayKey` = the club-day, `amounts` = what it granted per unit that run) and,
 * through the unique (participant, rule, dedupeKey), what makes a rule fire at
 * most once per value of its `idempotency` path (NULL dedupe keys never collide).
 * That index leads with the rule and the key, not the participant: the key is
 * the event's id by default, and ids that grow with time (sequences, ULIDs,
 * time-ordered ids) then land at the end of the index, where keys leading with
 * the participant put every run of a batch on a page of its own (a page
 * written per run; lookups give all three columns, so either order serves them).
 */
export const RuleRun = defineEntity({
  name: "RuleRun",
  tableName: "rule_runs",
  uniques: [{ properties: ["ruleId", "dedupeKey", "participantId"] }],
  indexes: [{ properties: ["participantId", "ruleId", "dayKey"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    ruleId: p.string().length(64),
    dedupeKey: p.string().length(200).nullable(),
    eventId: refColumn().nullable(),
    dayKey: p.string().length(10),
    amounts: p.json<Record<string, number>>(),
    runAt: p.datetime(),
  },
});
export type RuleRun = InferEntity<typeof RuleRun>;
