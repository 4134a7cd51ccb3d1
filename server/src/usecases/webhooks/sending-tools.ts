import type { components } from "../../../../generated/types.js";
import { OutboxMessage, WebhookAttempt, WebhookEndpoint, WebhookSending } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { ApiError, notFound } from "../shared/errors.js";
import { sendingView } from "./endpoints.js";
import { webhookMessage } from "./outbox.js";

type Schemas = components["schemas"];

/**
 * Queues a `webhook.test` to one endpoint on demand (the console's "send
 * test"): through the outbox like every webhook, so it is signed, retried and
 * listed among the endpoint's sendings the same way.
 */
export async function sendEndpointTest(db: Database, scope: Scope, endpointId: string, now: Date): Promise<Schemas["WebhookTestQueued"]> {
  const em = db.em();
  const endpoint = await em.findOne(WebhookEndpoint, { id: endpointId, ...scope, deletedAt: null }, { fields: ["id", "enabled"] });
  if (!endpoint) throw notFound(`Webhook endpoint '${endpointId}'`);
  // The dispatcher sends nothing to a disabled endpoint: say so rather than queue a test that never leaves.
  if (!endpoint.enabled) throw new ApiError(409, "conflict", `Webhook endpoint '${endpointId}' is disabled; enable it to send a test`);
  const message = webhookMessage(scope, "webhook.test", { endpoint_id: endpointId, message: "Test sent from the console" }, now);
  await em.insert(OutboxMessage, message);
  return { endpoint_id: endpointId, event_id: String((message.payload as { id: string }).id), type: "webhook.test" };
}

/** One sending with the exact body it sends and its attempt log, newest first. */
export async function getSending(db: Database, scope: Scope, id: string): Promise<Schemas["WebhookSendingDetail"]> {
  const em = db.em();
  const row = await em.findOne(WebhookSending, { id, ...scope });
  if (!row) throw notFound(`Webhook sending '${id}'`);
  const log = await em.find(WebhookAttempt, { sendingId: id, ...scope }, { orderBy: { number: "desc" }, disableIdentityMap: true });
  return { ...sendingView(row), body: row.body, attempt_log: log.map(attemptView) };
}

function attemptView(row: WebhookAttempt): Schemas["WebhookAttempt"] {
  return {
    number: row.number,
    started_at: row.startedAt.toISOString(),
    duration_ms: row.durationMs,
    outcome: row.outcome,
    http_status: row.httpStatus ?? null,
    error: row.error ?? null,
    resend: row.resend,
  };
}
