import { ParticipantReward } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";

/*
 * The expiry of granted rewards (rewards with `expiresInDays`): a reward still
 * held (`granted`) or still waiting for its delivery (`pending`) at its
 * `expiresAt` becomes `expired` in storage, as /v1/me/rewards already shows it
 * from that instant on. A job runs it every few minutes.
 *
 * One conditional UPDATE: a reward changes only while it is still open, so a
 * second run (another worker, or a repeat) changes nothing, and a delivery
 * confirmed or failed first keeps its outcome. Seed 000's webhook list has no
 * `reward.expired`, so no webhook is sent: the change shows in the reward's
 * status (documented with `MyRewardStatus`).
 */

/**
 * Marks every open reward past its `expiresAt` at `now` expired (only `scope`'s
 * when given: a test environment running on its test clock); returns how many.
 */
export async function expireRewards(db: Database, now: Date, scope?: Scope): Promise<number> {
  return db.em().nativeUpdate(ParticipantReward, { ...scope, status: { $in: ["granted", "pending"] }, expiresAt: { $lte: now } }, { status: "expired" });
}
