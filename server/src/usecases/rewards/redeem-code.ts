import type { components } from "../../../../generated/types.js";
import { CodeRedemption, PromotionCode } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { grantRewards } from "../../engine/evaluate.js";
import { parseRewardSpec } from "../../engine/rewards.js";
import { requirePublishedConfig } from "../club/index.js";
import { ApiError } from "../shared/errors.js";
import { webhookMessage } from "../webhooks/index.js";
import { clubTimeZone, loadParticipantState, lockParticipantByExternalId, webhookParticipant, gatherClaim, writeClaim } from "../evaluation/index.js";
import type { AfterCommit } from "../shared/after-commit.js";
import { shapeOf } from "../../db/hot/index.js";
import { participantNotFound } from "../participants/index.js";
import { codeNotFound, normalizeCode } from "./promotion-codes.js";
import { countCodeRedemption } from "../../db/rewards/promotion-codes.js";

export type CodeRedemptionResult = components["schemas"]["CodeRedemptionResult"];

/** Why a code is not redeemable by this participant now, or null when it is. */
function notRedeemable(code: PromotionCode, tags: readonly string[], now: Date): string | null {
  if (code.status !== "active") return "is disabled";
  if (code.startsAt && now < code.startsAt) return `is valid from ${code.startsAt.toISOString()}`;
  if (code.endsAt && now >= code.endsAt) return `expired at ${code.endsAt.toISOString()}`;
  if (code.audienceTag !== null && code.audienceTag !== undefined && !tags.includes(code.audienceTag)) return "is not available to this participant";
  return null;
}

/**
 * Redeems `typed` for the participant `externalId` (POST /v1/me/codes/redeem
 * and POST /v1/participants/{external_id}/codes/redeem): in one transaction
 * holding the participant's lock, checks the code, takes a use with a
 * conditional update (0 rows: no uses left, whoever raced us took the last),
 * grants the reward through the engine (source `code:<CODE>`), records the
 * redemption and queues `code.redeemed`. A refusal rolls everything back.
 */
export async function redeemCode(
  db: Database,
  scope: Scope,
  externalId: string,
  typed: string,
  opts: { now: Date; publicUrl: string; afterCommit?: AfterCommit },
): Promise<CodeRedemptionResult> {
  const { now, publicUrl } = opts;
  const { config } = await requirePublishedConfig(db, scope);
  const timeZone = clubTimeZone(config);
  const value = normalizeCode(typed);
  return db.em().transactional(async (em) => {
    const participant = await lockParticipantByExternalId(em, scope, externalId);
    if (!participant) throw participantNotFound(externalId);
    const code = await em.findOne(PromotionCode, { ...scope, code: value });
    if (!code) throw codeNotFound(value);
    const why = notRedeemable(code, participant.tags ?? [], now);
    if (why) throw new ApiError(409, "code_not_redeemable", `Promotional code ${value} ${why}`);

    // The participant's lock serializes their own redemptions, so this count cannot go stale.
    const mine = await em.count(CodeRedemption, { codeId: code.id, participantId: participant.id });
    if (mine >= code.perParticipantLimit)
      throw new ApiError(409, "code_limit_reached", `Promotional code ${value} was already redeemed ${mine} time(s) by this participant`);

    const taken = await countCodeRedemption(
      em,
      code.maxRedemptions === null || code.maxRedemptions === undefined
        ? { id: code.id, status: "active" }
        : { id: code.id, status: "active", redemptions: { $lt: code.maxRedemptions } },
    );
    if (!taken) throw new ApiError(409, "code_exhausted", `Promotional code ${value} has no redemptions left`);

    const state = await loadParticipantState(em, participant, config, { now, timeZone });
    const evaluation = grantRewards({ config, state, now, timeZone, specs: [code.reward], ruleId: `code:${value}` });
    const claim = gatherClaim({ em, scope, config, participant, state, now, publicUrl, event: null }, evaluation);
    const id = newId("cre");
    const redemption = { id, ...scope, codeId: code.id, participantId: participant.id, createdAt: now };

    const spec = parseRewardSpec(code.reward);
    const data: components["schemas"]["CodeRedeemedWebhookData"] = {
      participant: webhookParticipant(participant),
      code: value,
      reward_code: spec?.kind === "reward" ? spec.code : null,
    };
    await writeClaim(claim, [webhookMessage(scope, "code.redeemed", data, now)], {
      also: [{ insert: shapeOf(em, CodeRedemption), rows: [redemption] }],
      afterCommit: opts.afterCommit,
    });
    return { id, code: value, reward: code.reward, effects: claim.effects };
  });
}
