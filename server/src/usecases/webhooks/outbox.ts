import type { SqlEntityManager } from "@mikro-orm/knex";
import { OutboxMessage } from "../../db/entities/index.js";
import type { Scope } from "../../db/scope.js";
import { webhookMessage } from "../shared/webhook-message.js";

export { webhookMessage };

/**
 * Records a webhook event in the outbox, in the caller's transaction, so it is
 * sent if and only if the change it reports commits.
 */
export async function recordWebhook(em: SqlEntityManager, scope: Scope, type: string, data: Record<string, unknown>, now: Date): Promise<void> {
  await em.insert(OutboxMessage, webhookMessage(scope, type, data, now));
}
