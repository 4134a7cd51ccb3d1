import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { enumColumn, idColumn, refColumn, tenancyColumns } from "./columns.js";

export type OutboxKind = "webhook" | "event" | "backtest";
export type WebhookSendingStatus = "pending" | "succeeded" | "failed";
export type WebhookAttemptOutcome = "succeeded" | "failed";

/**
 * Where a club sends webhooks in one environment. `events` empty = the default
 * subscription. `secret` (`whsec_…`) is the HMAC key, kept in clear because
 * signing needs it. After a rotation `previousSecret` keeps signing next to it
 * until `previousSecretExpiresAt` (the overlap a receiver needs to switch).
 * Deleting sets `deletedAt` so past sendings keep their endpoint.
 */
export const WebhookEndpoint = defineEntity({
  name: "WebhookEndpoint",
  tableName: "webhook_endpoints",
  indexes: [{ properties: ["clubId", "env", "createdAt"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    url: p.text(),
    events: p.json<string[]>(),
    description: p.string().length(200).nullable(),
    enabled: p.boolean(),
    secret: p.string().length(64),
    previousSecret: p.string().length(64).nullable(),
    previousSecretExpiresAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    deletedAt: p.datetime().nullable(),
  },
});
export type WebhookEndpoint = InferEntity<typeof WebhookEndpoint>;

/**
 * The transactional outbox: written in the same transaction as the change it
 * announces, handed to the queue after commit by the relay. `relayedAt` null =
 * not yet handed over. Payload by kind:
 * - `webhook`: the webhook envelope every endpoint receives
 *   (`{id: "evt_…", type, created_at, club_id, env, data}`, see usecases/webhooks/outbox.ts);
 * - `event`: `{event_ids}`, the events one accept stored as queued (`Prefer: respond-async`) to process
 *   (`{event_id}`, one event, from earlier versions);
 * - `backtest`: `{backtest_id}`, a backtest job to run.
 */
export const OutboxMessage = defineEntity({
  name: "OutboxMessage",
  tableName: "outbox_messages",
  indexes: [
    {
      // Only the unrelayed rows: the relay's scan stays small however many relayed rows accumulate.
      name: "outbox_messages_unrelayed_created_at_index",
      expression: (table, columns, name) => `create index ${name} on ${table.name} (${columns.createdAt}) where ${columns.relayedAt} is null`,
    },
  ],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    kind: enumColumn<OutboxKind>(),
    payload: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
    relayedAt: p.datetime().nullable(),
  },
});
export type OutboxMessage = InferEntity<typeof OutboxMessage>;

/**
 * One webhook event sent to one endpoint, with its retries. `body` is the exact
 * JSON sent, fixed at creation so every retry signs the same bytes; unique per
 * (endpoint, envelope id) so a redelivered outbox message creates no second sending.
 */
export const WebhookSending = defineEntity({
  name: "WebhookSending",
  tableName: "webhook_sendings",
  uniques: [{ properties: ["endpointId", "eventId"] }],
  indexes: [{ properties: ["status", "nextAttemptAt"] }, { properties: ["endpointId", "createdAt"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    endpointId: refColumn(),
    eventId: refColumn(),
    eventType: p.string().length(64),
    body: p.text(),
    status: enumColumn<WebhookSendingStatus>(),
    attempts: p.integer(),
    lastError: p.text().nullable(),
    lastStatusCode: p.integer().nullable(),
    nextAttemptAt: p.datetime().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type WebhookSending = InferEntity<typeof WebhookSending>;

/**
 * One HTTP attempt of a sending (the console's attempt log), written in the
 * same statement or transaction as the sending's outcome, so the log and the
 * sending always agree. `number` is 1-based and never restarts: a resend's
 * attempts go on from the sending's last number (the sending's own `attempts`
 * restarts at 0), and `resend` marks the attempts of a resent round.
 * Keyed by (sending, number): the log of one sending is one index range.
 * At most KEPT_ATTEMPTS (webhooks/attempt-log.ts) are kept per sending.
 */
export const WebhookAttempt = defineEntity({
  name: "WebhookAttempt",
  tableName: "webhook_attempts",
  properties: {
    sendingId: refColumn().primary(),
    number: p.integer().primary(),
    ...tenancyColumns(),
    startedAt: p.datetime(),
    durationMs: p.integer(),
    outcome: enumColumn<WebhookAttemptOutcome>(),
    httpStatus: p.integer().nullable(),
    error: p.text().nullable(),
    resend: p.boolean(),
  },
});
export type WebhookAttempt = InferEntity<typeof WebhookAttempt>;
