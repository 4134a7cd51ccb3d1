import type { components } from "../../../../generated/types.js";
import { WebhookEndpoint, WebhookSending } from "../../db/entities/index.js";
import { newId, randomBase62 } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { effectiveEvents } from "../../webhooks/envelope.js";
import { notFound, validationFailed } from "../shared/errors.js";
import { recordWebhook } from "./outbox.js";
import { parseWebhookUrl, refusedAddressOf } from "./address.js";
import { olderThan, pageOf } from "../shared/paging.js";

type Schemas = components["schemas"];
export type WebhookEndpointView = Schemas["WebhookEndpoint"];
export type WebhookEndpointWithSecret = Schemas["WebhookEndpointWithSecret"];
export type WebhookSendingView = Schemas["WebhookSending"];

export interface EndpointPolicy {
  /** `CLUBE_ALLOW_PRIVATE_WEBHOOKS=1`: live endpoints may point at private addresses. */
  allowPrivate: boolean;
}

/** `whsec_` + 32 base62 characters (≈190 bits). */
function newSecret(): string {
  return `whsec_${randomBase62(32)}`;
}

/** Creates an endpoint and, in the same transaction, queues `webhook.test` to it. */
export async function createEndpoint(
  db: Database,
  scope: Scope,
  input: Schemas["WebhookEndpointCreate"],
  policy: EndpointPolicy,
  now: Date,
): Promise<WebhookEndpointWithSecret> {
  await checkAddress(scope, input.url, policy);
  const secret = newSecret();
  const endpoint = await db.em().transactional(async (em) => {
    const row = em.create(WebhookEndpoint, {
      id: newId("we"),
      ...scope,
      url: input.url,
      events: unique(input.events ?? []),
      description: input.description ?? null,
      enabled: input.enabled ?? true,
      secret,
      previousSecret: null,
      previousSecretExpiresAt: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    });
    await em.flush();
    await sendTest(em, scope, row.id, "Endpoint registered", now);
    return row;
  });
  return { ...view(endpoint), secret };
}

export async function listEndpoints(
  db: Database,
  scope: Scope,
  page: { limit?: number; starting_after?: string },
): Promise<{ data: WebhookEndpointView[]; has_more: boolean }> {
  const limit = page.limit ?? 20;
  const where: Record<string, unknown> = { ...scope, deletedAt: null };
  if (page.starting_after) {
    const after = await find(db, scope, page.starting_after);
    Object.assign(where, olderThan("createdAt", after));
  }
  const rows = await db.em().find(WebhookEndpoint, where, { orderBy: [{ createdAt: "desc" }, { id: "desc" }], limit: limit + 1 });
  return pageOf(rows, limit, view);
}

export async function getEndpoint(db: Database, scope: Scope, id: string): Promise<WebhookEndpointView> {
  return view(await find(db, scope, id));
}

/** Updates the fields sent; a new URL is checked and gets a `webhook.test`. */
export async function updateEndpoint(
  db: Database,
  scope: Scope,
  id: string,
  input: Schemas["WebhookEndpointUpdate"],
  policy: EndpointPolicy,
  now: Date,
): Promise<WebhookEndpointView> {
  if (input.url !== undefined) await checkAddress(scope, input.url, policy);
  const updated = await db.em().transactional(async (em) => {
    const row = await em.findOne(WebhookEndpoint, { id, ...scope, deletedAt: null });
    if (!row) throw notFound(`Webhook endpoint '${id}'`);
    const urlChanged = input.url !== undefined && input.url !== row.url;
    if (input.url !== undefined) row.url = input.url;
    if (input.events !== undefined) row.events = unique(input.events);
    if (input.description !== undefined) row.description = input.description;
    if (input.enabled !== undefined) row.enabled = input.enabled;
    row.updatedAt = now;
    await em.flush();
    if (urlChanged) await sendTest(em, scope, row.id, "Endpoint URL changed", now);
    return row;
  });
  return view(updated);
}

/** Deletes (soft: past sendings keep their endpoint); nothing more is sent to it. */
export async function deleteEndpoint(db: Database, scope: Scope, id: string, now: Date): Promise<{ id: string; deleted: true }> {
  const changed = await db.em().nativeUpdate(WebhookEndpoint, { id, ...scope, deletedAt: null }, { deletedAt: now, enabled: false, updatedAt: now });
  if (changed === 0) throw notFound(`Webhook endpoint '${id}'`);
  return { id, deleted: true };
}

/** The overlap when the rotation does not say: a day, time for a receiver's deploy. */
export const DEFAULT_OLD_SECRET_OVERLAP_SECONDS = 86_400;

/**
 * A new secret, signing at once; the current one keeps signing beside it for
 * `expireOldAfterSeconds` (0: it stops at once). Only the secret current at the
 * rotation is kept: rotating again during an overlap drops the older one.
 */
export async function rotateSecret(
  db: Database,
  scope: Scope,
  id: string,
  input: Schemas["WebhookSecretRotation"] | undefined,
  now: Date,
): Promise<Schemas["WebhookEndpointRotated"]> {
  const overlapSeconds = input?.expire_old_after_seconds ?? DEFAULT_OLD_SECRET_OVERLAP_SECONDS;
  const secret = newSecret();
  const rotated = await db.em().transactional(async (em) => {
    const row = await em.findOne(WebhookEndpoint, { id, ...scope, deletedAt: null });
    if (!row) throw notFound(`Webhook endpoint '${id}'`);
    const keepOld = overlapSeconds > 0;
    row.previousSecret = keepOld ? row.secret : null;
    row.previousSecretExpiresAt = keepOld ? new Date(now.getTime() + overlapSeconds * 1000) : null;
    row.secret = secret;
    row.updatedAt = now;
    await em.flush();
    return row;
  });
  return { ...view(rotated), secret, old_secret_expires_at: rotated.previousSecretExpiresAt?.toISOString() ?? null };
}

/** The secrets a sending made at `now` is signed with: the current one, then the previous one during its overlap. */
export function signingSecrets(row: Pick<WebhookEndpoint, "secret" | "previousSecret" | "previousSecretExpiresAt">, now: Date): string[] {
  const overlapping = row.previousSecret && row.previousSecretExpiresAt && row.previousSecretExpiresAt.getTime() > now.getTime();
  return overlapping ? [row.secret, row.previousSecret!] : [row.secret];
}

/** An endpoint's sendings, newest first. */
export async function listSendings(
  db: Database,
  scope: Scope,
  endpointId: string,
  query: { status?: WebhookSendingView["status"]; limit?: number; starting_after?: string },
): Promise<{ data: WebhookSendingView[]; has_more: boolean }> {
  await find(db, scope, endpointId);
  const limit = query.limit ?? 20;
  const where: Record<string, unknown> = { ...scope, endpointId };
  if (query.status) where.status = query.status;
  if (query.starting_after) {
    const after = await db.em().findOne(WebhookSending, { id: query.starting_after, ...scope, endpointId });
    if (!after) throw validationFailed("query.starting_after is not a sending of this endpoint");
    Object.assign(where, olderThan("createdAt", after));
  }
  const rows = await db.em().find(WebhookSending, where, { orderBy: [{ createdAt: "desc" }, { id: "desc" }], limit: limit + 1 });
  return pageOf(rows, limit, sendingView);
}

export function sendingView(row: WebhookSending): WebhookSendingView {
  return {
    id: row.id,
    endpoint_id: row.endpointId,
    event_id: row.eventId,
    event_type: row.eventType as WebhookSendingView["event_type"],
    status: row.status,
    attempts: row.attempts,
    last_error: row.lastError ?? null,
    last_status_code: row.lastStatusCode ?? null,
    next_attempt_at: row.status === "pending" ? (row.nextAttemptAt?.toISOString() ?? null) : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

async function find(db: Database, scope: Scope, id: string): Promise<WebhookEndpoint> {
  const row = await db.em().findOne(WebhookEndpoint, { id, ...scope, deletedAt: null });
  if (!row) throw notFound(`Webhook endpoint '${id}'`);
  return row;
}

async function checkAddress(scope: Scope, url: string, policy: EndpointPolicy): Promise<void> {
  const parsed = parseWebhookUrl(url);
  if (!parsed) throw validationFailed("body.url must be an absolute http(s) URL with a valid host");
  if (scope.env === "test" || policy.allowPrivate) return;
  const address = await refusedAddressOf(parsed);
  if (address) throw validationFailed(`body.url resolves to a special-purpose address (${address}), refused in live`);
}

async function sendTest(em: Parameters<typeof recordWebhook>[0], scope: Scope, endpointId: string, message: string, now: Date): Promise<void> {
  await recordWebhook(em, scope, "webhook.test", { endpoint_id: endpointId, message }, now);
}

function view(row: WebhookEndpoint): WebhookEndpointView {
  const events = row.events as WebhookEndpointView["events"];
  return {
    id: row.id,
    url: row.url,
    events,
    effective_events: effectiveEvents(events) as WebhookEndpointView["effective_events"],
    description: row.description ?? null,
    enabled: row.enabled,
    created_at: row.createdAt.toISOString(),
  };
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
