import type { components } from "../../../../generated/types.js";
import { ParticipantReward, type ParticipantRewardStatus } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { findMe } from "../participants/index.js";

/** The rewards a participant received (`/v1/me/rewards`). */

type Schemas = components["schemas"];
export type MyReward = Schemas["MyReward"];

/** What the participant sees of a reward's state: expiry shows while nobody has handed it over yet. */
function myRewardStatus(status: ParticipantRewardStatus, expiresAt: Date | null, now: Date): MyReward["status"] {
  const open = status === "granted" || status === "pending";
  if (status === "expired" || (open && expiresAt !== null && expiresAt.getTime() <= now.getTime())) return "expired";
  const shown: Record<Exclude<ParticipantRewardStatus, "expired">, MyReward["status"]> = {
    granted: "granted",
    pending: "pending_delivery",
    delivered: "delivered",
    failed: "delivery_failed",
  };
  return shown[status];
}

/** GET /v1/me/rewards: every reward the participant received, newest first. */
export async function listMyRewards(db: Database, scope: Scope, externalId: string, now: Date): Promise<{ data: MyReward[] }> {
  const em = db.em();
  const { participant, config } = await findMe(em, db, scope, externalId);
  const rows = await em.find(ParticipantReward, { participantId: participant.id }, { orderBy: { grantedAt: "desc", id: "desc" } });
  const titles = new Map(config.rewards.map((reward) => [reward.code, reward.title]));
  return {
    data: rows.map((row) => ({
      id: row.id,
      reward_code: row.rewardCode,
      title: titles.get(row.rewardCode) ?? row.rewardCode,
      type: row.type,
      status: myRewardStatus(row.status, row.expiresAt ?? null, now),
      source: row.source,
      delivery_id: row.deliveryId ?? null,
      granted_at: row.grantedAt.toISOString(),
      expires_at: row.expiresAt?.toISOString() ?? null,
    })),
  };
}
