import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import type { ClubConfig } from "../../engine/config.js";
import type { ParticipantState } from "../../engine/types.js";
import type { Participant } from "../../db/entities/index.js";
import type { Scope } from "../../db/scope.js";
import type { ParticipantSnapshot } from "./participant-snapshot.js";

/* What an evaluation is about, as the rows recording it name it. */

export type Schemas = components["schemas"];
export type WebhookParticipant = Schemas["WebhookParticipant"];

/** What an evaluation is about, for the rows that record it. */
export interface EvaluationTarget {
  scope: Scope;
  config: ClubConfig;
  /** The participant as the evaluation found it (the locked row, or its state carried in memory). */
  participant: ParticipantSnapshot;
  /** The state the evaluation started from: XP and balances before it. */
  state: ParticipantState;
  now: Date;
  /** The base URL of the confirm/fail links in `reward.delivery_requested`. */
  publicUrl: string;
  /** The stored event evaluated; null for a claim or a redemption. */
  event: { id: string; type: string } | null;
  /**
   * Whether some endpoint takes webhooks of `type`, when the caller knows
   * (a redemption reads the scope's subscriptions with its payment): the
   * messages nobody takes are then not built. Every type when absent.
   */
  announces?: (type: string) => boolean;
  /**
   * The participant bought what the evaluation grants (a redemption): the
   * inbox does not announce the rewards bought, which the purchase's answer
   * shows (their delivery's outcome it does, when it comes).
   */
  purchase?: boolean;
}

/** Where an evaluation's delta is written and what it is about. */
export interface PersistTarget extends EvaluationTarget {
  /** The transaction holding the participant's lock. */
  em: SqlEntityManager;
}

export function webhookParticipant(participant: Pick<Participant, "id" | "externalId">): WebhookParticipant {
  return { id: participant.id, external_id: participant.externalId };
}

/**
 * Where a reward came from, as `source` says it: `rule:<id>` for a configured
 * rule; the engine's other attributions (`mission:<id>`, `redemption:<code>`,
 * `checkin:<day>`…) are already in that form.
 */
export function rewardSource(config: ClubConfig, ruleId: string): string {
  return config.rules.some((rule) => rule.id === ruleId) ? `rule:${ruleId}` : ruleId;
}
