import type { RequiredEntityData } from "@mikro-orm/core";
import type { OutboxMessage } from "../../db/entities/index.js";
import { newId, newTimeOrderedId } from "../../db/ids.js";
import type { Scope } from "../../db/scope.js";

/**
 * The outbox row of a webhook event. The payload is the envelope every
 * endpoint receives (`id` `evt_…`, `type`, `created_at`, `club_id`, `env`,
 * `data`); the relay hands it to the webhook dispatcher.
 */
export function webhookMessage(scope: Scope, type: string, data: Record<string, unknown>, now: Date): RequiredEntityData<OutboxMessage> {
  return {
    id: newTimeOrderedId("out"),
    ...scope,
    kind: "webhook",
    payload: { id: newId("evt"), type, created_at: now.toISOString(), club_id: scope.clubId, env: scope.env, data },
    createdAt: now,
  };
}
