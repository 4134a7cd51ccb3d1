import type { RequiredEntityData } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { ApiEffect, ClubConfig } from "../../engine/config.js";
import type { MessageVariables, RenderedMessage } from "../../engine/messages/render.js";
import type { StateDelta } from "../../engine/types.js";
import { Notification } from "../../db/entities/index.js";
import { newTimeOrderedId } from "../../db/ids.js";
import type { Scope } from "../../db/scope.js";
import { messageRequest, participantVariables, renderClubMessage, type MessageRecipient } from "../shared/club-messages.js";
import { webhookMessage } from "../shared/webhook-message.js";
import type { EvaluationTarget } from "./evaluation-target.js";
import type { PendingWrites } from "./pending-writes.js";

/* The participant's inbox texts and the CRM's `message.requested` an evaluation causes. */

/** The effects the inbox shows (notificationsFor); of a purchase, all but the rewards bought. */
const NOTIFIED_EFFECTS: ReadonlySet<string> = new Set(["level_up", "mission_completed", "reward_granted"]);
const NOTIFIED_EFFECTS_OF_PURCHASE: ReadonlySet<string> = new Set(["level_up", "mission_completed"]);

export function hasEffectOf(effects: ApiEffect[], types: ReadonlySet<string>): boolean {
  for (let i = 0; i < effects.length; i++) if (types.has(effects[i].type)) return true;
  return false;
}

export interface NotificationText {
  kind: string;
  title: string;
  body: string | null;
  view: string | null;
}

/** A rule's `notify`, rendered for the participant as the evaluation left them. */
export interface NotifyMessage {
  template: string;
  rendered: RenderedMessage;
  variables: MessageVariables;
}

export function notifyMessages(config: ClubConfig, participant: MessageRecipient, delta: StateDelta): NotifyMessage[] {
  // Most events notify nothing: the participant's variables (a level name rendered) only when one does.
  if (delta.notifications.length === 0) return [];
  const variables = participantVariables(config, participant);
  return delta.notifications.map(({ template }) => ({
    template,
    // A template the club does not define: its name is the title (as before templates existed).
    rendered: renderClubMessage(config, template, variables) ?? { title: template, body: null },
    variables,
  }));
}

/**
 * The participant's inbox entries for what the evaluation did, from the
 * club's templates (else the built-in texts). A `purchase` (a redemption)
 * does not announce the rewards bought.
 */
export function notificationsFor(
  config: ClubConfig,
  participant: MessageRecipient,
  effects: ApiEffect[],
  messages: NotifyMessage[],
  purchase = false,
): NotificationText[] {
  const notified = purchase ? NOTIFIED_EFFECTS_OF_PURCHASE : NOTIFIED_EFFECTS;
  // Most events neither notify nor have an effect the inbox shows: no closure, no variables then.
  if (messages.length === 0 && !hasEffectOf(effects, notified)) return [];
  const texts: NotificationText[] = [];
  let base: MessageVariables | undefined;
  const builtIn = (kind: string, view: string, variables: MessageVariables) => {
    base ??= participantVariables(config, participant);
    // Object.assign, not `{ ...base, ...variables }`: a spread adding keys costs microseconds on Node 20 (bench/micro/object-spread.ts).
    const rendered = renderClubMessage(config, kind, Object.assign({}, base, variables));
    if (rendered) texts.push({ kind, title: rendered.title, body: rendered.body, view });
  };
  for (let i = 0; i < effects.length; i++) {
    const effect = effects[i];
    if (effect.type === "level_up") {
      // No level_name: renderClubMessage names `level` in the club's words itself.
      builtIn("level_up", "profile", { level: effect.to });
    } else if (effect.type === "mission_completed") {
      const mission = config.missions.find((candidate) => candidate.id === effect.mission_id);
      builtIn("mission_completed", "missions", { mission_title: mission?.title ?? effect.mission_id });
    } else if (effect.type === "reward_granted" && !purchase) {
      const reward = config.rewards.find((candidate) => candidate.code === effect.reward_code);
      builtIn("reward_granted", "rewards", { reward_title: reward?.title ?? effect.reward_code });
    }
  }
  for (const { rendered } of messages) texts.push({ kind: "message", title: rendered.title, body: rendered.body, view: null });
  return texts;
}

/** `message.requested` for each `notify` when the club's CRM is in webhook mode and the participant has a contact. */
export function gatherMessageRequests(
  writes: PendingWrites,
  { scope, config, now, announces }: EvaluationTarget,
  participant: MessageRecipient,
  messages: NotifyMessage[],
): void {
  if (announces !== undefined && !announces("message.requested")) return;
  for (const { template, rendered, variables } of messages) {
    const data = messageRequest(config, participant, template, rendered, variables);
    if (data) writes.outbox.push(webhookMessage(scope, "message.requested", data, now));
  }
}

/** Adds entries to the participant's inbox. */
export async function writeNotifications(em: SqlEntityManager, scope: Scope, participantId: string, texts: NotificationText[], now: Date): Promise<void> {
  if (texts.length === 0) return;
  await em.insertMany<Notification>(Notification, notificationRows(scope, participantId, texts, now));
}

export function notificationRows(scope: Scope, participantId: string, texts: NotificationText[], now: Date): RequiredEntityData<Notification>[] {
  return texts.map((text) => ({ id: newTimeOrderedId("ntf"), ...scope, participantId, ...text, createdAt: now, readAt: null }));
}
