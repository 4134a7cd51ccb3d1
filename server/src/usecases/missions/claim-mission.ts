import type { components } from "../../../../generated/types.js";
import { claimMission } from "../../engine/evaluate.js";
import { missionAvailable } from "../../engine/missions.js";
import { Session } from "../../engine/session.js";
import { periodKey } from "../../engine/time.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { requirePublishedConfig } from "../club/index.js";
import { ApiError, notFound } from "../shared/errors.js";
import type { AfterCommit } from "../shared/after-commit.js";
import { clubTimeZone, loadParticipantState, lockParticipantByExternalId, gatherClaim, writeClaim } from "../evaluation/index.js";
import { participantNotFound } from "../participants/index.js";

type Schemas = components["schemas"];
export type MissionClaimResult = Schemas["MissionClaimResult"];

/**
 * POST /v1/me/missions/{id}/claim: grants the reward of a `claim: manual`
 * mission completed in the current period, once; written like an event's
 * delta (a `client_delivered` reward gets a delivery and its webhooks).
 * 404 for a mission not listed for the participant; 409 `not_claimable`
 * (not completed, or claimed automatically) or `already_claimed`.
 */
export async function claimMyMission(
  db: Database,
  scope: Scope,
  externalId: string,
  missionId: string,
  opts: { now: Date; publicUrl: string; afterCommit?: AfterCommit },
): Promise<MissionClaimResult> {
  const { config } = await requirePublishedConfig(db, scope);
  const timeZone = clubTimeZone(config);
  const { now } = opts;
  return db.em().transactional(async (em) => {
    const participant = await lockParticipantByExternalId(em, scope, externalId);
    if (!participant) throw participantNotFound(externalId);
    const state = await loadParticipantState(em, participant, config, { now, timeZone });
    // Listed missions only: the engine's own availability test, as the list uses it.
    const session = new Session(config, state, now, timeZone);
    const mission = config.missions.find((candidate) => candidate.id === missionId && missionAvailable(session, candidate));
    if (!mission) throw notFound(`Mission ${JSON.stringify(missionId)}`);
    const period = periodKey(mission.period, now, timeZone);
    if (mission.claim === "auto") {
      throw new ApiError(409, "not_claimable", `Mission ${JSON.stringify(missionId)} grants its reward automatically on completion.`);
    }
    const claim = claimMission({ config, state, now, timeZone, missionId });
    if (!claim.ok) {
      if (claim.reason === "already_claimed")
        throw new ApiError(409, "already_claimed", `Mission ${JSON.stringify(missionId)} was already claimed in period ${period}.`);
      const progress = state.missions[missionId]?.periodKey === period ? state.missions[missionId].progress : 0;
      throw new ApiError(
        409,
        "not_claimable",
        `Mission ${JSON.stringify(missionId)} is not completed in period ${period} (${progress} of ${mission.goal.target}).`,
      );
    }
    const gathered = gatherClaim({ em, scope, config, participant, state, now, publicUrl: opts.publicUrl, event: null }, claim.evaluation);
    await writeClaim(gathered, [], { afterCommit: opts.afterCommit });
    const { effects } = gathered;
    const granted = effects.find((effect): effect is Schemas["RewardGrantedEffect"] => effect.type === "reward_granted");
    return {
      mission_id: missionId,
      period_key: period,
      // gatherClaim filled `reward_id` into every reward_granted.
      reward_granted: granted ? { reward_code: granted.reward_code, reward_id: granted.reward_id!, delivery_id: granted.delivery_id ?? null } : null,
      effects,
    };
  });
}
