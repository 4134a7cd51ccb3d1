import type { ApiEffect, ClubConfig } from "../../engine/config.js";
import { parseRewardSpec } from "../../engine/rewards.js";
import type { StateDelta } from "../../engine/types.js";
import { webhookMessage } from "../shared/webhook-message.js";
import { rewardSource, webhookParticipant, type EvaluationTarget, type Schemas } from "./evaluation-target.js";
import type { GrantedReward } from "./gather-evaluation.js";
import { hasEffectOf } from "./notifications.js";
import type { PendingWrites } from "./pending-writes.js";

/* The webhooks an evaluation announces (rewards, deliveries, levels, tiers, missions, rules' own), as outbox rows. */

/** The effects announced by webhook (gatherWebhooks). */
const ANNOUNCED_EFFECTS: ReadonlySet<string> = new Set(["level_up", "tier_changed", "mission_completed"]);

function tierRef(config: ClubConfig, code: string): Schemas["WebhookTier"] {
  return { code, name: config.progression.tiers.find((tier) => tier.code === code)?.name ?? code };
}

/** The reward code a mission's completion granted (`claim: auto` with a reward); null otherwise. */
function completionRewardCode(config: ClubConfig, missionId: string): string | null {
  const mission = config.missions.find((candidate) => candidate.id === missionId);
  if (!mission || mission.claim !== "auto") return null;
  const spec = parseRewardSpec(mission.reward);
  return spec?.kind === "reward" ? spec.code : null;
}

export function gatherWebhooks(writes: PendingWrites, target: EvaluationTarget, effects: ApiEffect[], delta: StateDelta, rewards: GrantedReward[]): void {
  if (rewards.length === 0 && delta.webhooks.length === 0 && !hasEffectOf(effects, ANNOUNCED_EFFECTS)) return;
  const { scope, config, participant, now, publicUrl, event, announces } = target;
  const wants = (type: string) => announces === undefined || announces(type);
  const who = webhookParticipant(participant);
  const send = (type: string, data: Record<string, unknown>) => writes.outbox.push(webhookMessage(scope, type, data, now));
  const granting = wants("reward.granted");
  const requesting = wants("reward.delivery_requested");
  for (let r = 0; r < rewards.length && (granting || requesting); r++) {
    const { grant, rewardId, deliveryId } = rewards[r];
    const title = config.rewards.find((reward) => reward.code === grant.rewardCode)?.title ?? grant.rewardCode;
    const reward: Schemas["WebhookReward"] = { id: rewardId, code: grant.rewardCode, title, type: grant.type };
    const source = rewardSource(config, grant.ruleId);
    const granted: Schemas["RewardGrantedWebhookData"] = { participant: who, reward, source, delivery_id: deliveryId, expires_at: grant.expiresAt };
    if (granting) send("reward.granted", granted);
    // Staff fulfil `manual` and `partner` deliveries from GET /v1/deliveries; only the client's system is asked to credit.
    if (deliveryId === null || grant.type !== "client_delivered" || !requesting) continue;
    const requested: Schemas["RewardDeliveryRequestedWebhookData"] = {
      participant: who,
      // The configured payload is free-form; `kind` tells the client what to credit.
      reward: { ...reward, payload: grant.payload as Schemas["RewardDeliveryPayload"] },
      source,
      delivery: {
        id: deliveryId,
        confirm_url: `${publicUrl}/v1/deliveries/${deliveryId}/confirm`,
        fail_url: `${publicUrl}/v1/deliveries/${deliveryId}/fail`,
      },
    };
    send("reward.delivery_requested", requested);
  }
  for (let i = 0; i < effects.length; i++) {
    const effect = effects[i];
    if (effect.type === "level_up") {
      const data: Schemas["LevelUpWebhookData"] = { participant: who, level: effect.to, from: effect.from };
      if (wants("level.up")) send("level.up", data);
    } else if (effect.type === "tier_changed") {
      if (!wants("tier.changed")) continue;
      const data: Schemas["TierChangedWebhookData"] = { participant: who, from: tierRef(config, effect.from), to: tierRef(config, effect.to) };
      send("tier.changed", data);
    } else if (effect.type === "mission_completed") {
      if (!wants("mission.completed")) continue;
      const data: Schemas["MissionCompletedWebhookData"] = {
        participant: who,
        mission_id: effect.mission_id,
        period_key: effect.period,
        reward_code: completionRewardCode(config, effect.mission_id),
      };
      send("mission.completed", data);
    }
  }
  // A rule's `webhook` effect: a custom event named by the rule, saying which rule and which event caused it.
  for (let i = 0; i < delta.webhooks.length; i++) {
    const { event: type, ruleId } = delta.webhooks[i];
    if (wants(type)) send(type, { participant: who, rule_id: ruleId, event: event && { id: event.id, type: event.type } });
  }
}
