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

/*
 * A rule's runs are stored by what reads them back (loadRuleRuns), not as one
 * row per run: the dedupe keys a rule fired for (probed by exact key) and, for
 * rules with limits only, one counter row per participant, rule and club day
 * (read a few rows per probe, however much the participant plays), so the
 * limit read stays flat as a player's runs of the day grow.
 * Why: docs/performance-log.md#rule-run-storage
 */

/**
 * A stored dedupe key: the rule fired for this value of its `idempotency`
 * path (the event id by default) for this participant, and never fires for it
 * again. The key leads with the rule and the key, not the participant: the
 * key is the event's id by default, and ids that grow with time then land at
 * the end of the key order, where a participant first would put every row of
 * a batch on a page of its own (a page written per run). A rowid table on
 * SQLite (docs/performance-log.md#rule-runs-rowid-tables).
 */
export const RuleDedupeKey = defineEntity({
  name: "RuleDedupeKey",
  tableName: "rule_dedupe_keys",
  properties: {
    ruleId: p.string().length(64).primary(),
    dedupeKey: p.string().length(200).primary(),
    participantId: refColumn().primary(),
    ...tenancyColumns(),
    eventId: refColumn().nullable(),
    firedAt: p.datetime(),
  },
});
export type RuleDedupeKey = InferEntity<typeof RuleDedupeKey>;

/**
 * What a rule with limits ran for a participant on one club day: `runs`, the
 * amounts granted per unit (`amounts`: "xp" in XP, a currency code in its minor
 * units; the daily caps read them) and the last run (cooldowns). A batch adds
 * its runs to the row (an upsert adding up, see PendingWrites.addRuleRun).
 */
export const RuleRunDay = defineEntity({
  name: "RuleRunDay",
  tableName: "rule_run_days",
  properties: {
    participantId: refColumn().primary(),
    ruleId: p.string().length(64).primary(),
    dayKey: p.string().length(10).primary(),
    ...tenancyColumns(),
    runs: p.integer(),
    amounts: p.json<Record<string, number>>(),
    lastRunAt: p.datetime(),
  },
});
export type RuleRunDay = InferEntity<typeof RuleRunDay>;
