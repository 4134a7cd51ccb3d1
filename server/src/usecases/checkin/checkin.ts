import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import { clubDays } from "../../engine/cashback.js";
import {
  NO_CHECKIN,
  checkinState,
  overlayRewardPayloads,
  planCheckin,
  type CheckinConfig,
  type CheckinInput,
  type CheckinRefusal,
  type CheckinState,
} from "../../engine/checkin.js";
import type { ClubConfig } from "../../engine/config.js";
import { grantRewards } from "../../engine/evaluate.js";
import { CheckinClaim, Event, Participant } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { requirePublishedConfig } from "../club/index.js";
import { ApiError } from "../shared/errors.js";
import { webhookMessage } from "../webhooks/index.js";
import { clubTimeZone, viewedState, webhookParticipant, gatherClaim, writeClaim } from "../evaluation/index.js";
import { inHotTransaction } from "../../db/hot/transaction.js";
import { lockByExternalId } from "../../db/participants/locks.js";
import { readCheckinClaim } from "../../db/checkin/claim-reads.js";
import type { AfterCommit } from "../shared/after-commit.js";
import { shapeOf } from "../../db/hot/index.js";
import { participantNotFound } from "../participants/index.js";

export type CheckinClaimResult = components["schemas"]["CheckinClaimResult"];

/** The club's `checkin` section; the validator filled its defaults. A club without one gets a calendar that grants nothing. */
function checkinConfig(config: ClubConfig): CheckinConfig {
  return (config.checkin as CheckinConfig | undefined) ?? NO_CHECKIN;
}

/**
 * What the calendar is computed from: the participant's check-in days and,
 * when the club requires an event, whether one of that type was received in
 * today's check-in day (its receipt time: the day's events are what the
 * participant did today, and a receipt can never move into a past day). A
 * repeat of an event or one that failed is not a new one.
 */
async function checkinInput(em: SqlEntityManager, participant: Pick<Participant, "id">, config: CheckinConfig, now: Date): Promise<CheckinInput> {
  const claims = await em.find(CheckinClaim, { participantId: participant.id }, { fields: ["dayKey"] });
  let requiredEventSeen = false;
  if (config.requireEvent !== null) {
    const [today] = clubDays(now, config.timezone, 0, config.resetHour);
    const seen = await em.count(Event, {
      participantId: participant.id,
      type: config.requireEvent,
      duplicateOf: null,
      status: { $ne: "failed" },
      receivedAt: { $gte: today.start, $lt: today.end },
    });
    requiredEventSeen = seen > 0;
  }
  return { config, claimedDays: claims.map((claim) => claim.dayKey), now, requiredEventSeen };
}

/** GET /v1/me/checkin. */
export async function getCheckinState(db: Database, scope: Scope, externalId: string, now: Date): Promise<CheckinState> {
  const { config } = await requirePublishedConfig(db, scope);
  const em = db.em();
  const participant = await em.findOne(Participant, { ...scope, externalId });
  if (!participant) throw participantNotFound(externalId);
  return checkinState(await checkinInput(em, participant, checkinConfig(config), now));
}

function refusal(reason: CheckinRefusal, config: CheckinConfig, todayKey: string): ApiError {
  switch (reason) {
    case "checkin_disabled":
      return new ApiError(409, reason, config.enabled ? "The club's check-in calendar has no rewards" : "The club's check-in is disabled");
    case "already_claimed":
      return new ApiError(409, reason, `Already checked in on ${todayKey}`);
    case "event_required":
      return new ApiError(409, reason, `Check-in on ${todayKey} requires a ${config.requireEvent} event first`);
  }
}

/**
 * POST /v1/me/checkin: grants today's slot reward (`checkin:<day>` is its
 * source), records the check-in and sends `checkin.completed`, in one short
 * transaction on the driver holding the participant's lock (the lock, one
 * read, the writes in one batch), so two claims of the same day cannot both
 * pass.
 */
export async function claimCheckin(
  db: Database,
  scope: Scope,
  externalId: string,
  opts: { now: Date; publicUrl: string; afterCommit?: AfterCommit },
): Promise<CheckinClaimResult> {
  const { now, publicUrl } = opts;
  const { config } = await requirePublishedConfig(db, scope);
  const checkin = checkinConfig(config);
  const timeZone = clubTimeZone(config);
  const { em } = db.orm;
  return inHotTransaction(em, async (store) => {
    const participant = (await lockByExternalId(store, scope, [externalId])).get(externalId);
    if (!participant) throw participantNotFound(externalId);
    const [today] = clubDays(now, checkin.timezone, 0, checkin.resetHour);
    const read = await readCheckinClaim(
      store,
      scope,
      participant.id,
      checkin.requireEvent === null ? null : { type: checkin.requireEvent, from: today.start, until: today.end },
    );
    const input: CheckinInput = { config: checkin, claimedDays: read.claimedDays, now, requiredEventSeen: read.requiredEventSeen };
    const plan = planCheckin(input);
    if (!plan.ok) throw refusal(plan.reason, checkin, checkinState(input).todayKey);
    const { slot } = plan;

    // A claim grants, never spends: the participant's columns and balances are all the engine consults.
    const state = viewedState(participant, config, read.balances, {});
    const granted = grantRewards({ config, state, now, timeZone, specs: [slot.spec], ruleId: `checkin:${slot.dayKey}` });
    // The multiplier travels with a delivered reward so the client scales the prize (it already scaled XP and currency).
    const evaluation = overlayRewardPayloads(granted, slot.reward.multiplier === 1 ? {} : { multiplier: slot.reward.multiplier });
    const claim = gatherClaim({ em, scope, config, participant, state, now, publicUrl, event: null }, evaluation);
    const row = {
      id: newId("chk"),
      ...scope,
      participantId: participant.id,
      dayKey: slot.dayKey,
      periodKey: slot.periodKey,
      dayIndex: slot.dayIndex,
      reward: slot.rewardCode,
      claimedAt: now,
    };

    const after = checkinState({ ...input, claimedDays: [...input.claimedDays, slot.dayKey] });
    const data: components["schemas"]["CheckinCompletedWebhookData"] = {
      participant: webhookParticipant(participant),
      day_key: slot.dayKey,
      day_index: slot.dayIndex,
      streak: after.streak,
      reward_code: slot.rewardCode,
    };
    await writeClaim(claim, [webhookMessage(scope, "checkin.completed", data, now)], {
      also: [{ insert: shapeOf(em, CheckinClaim), rows: [row] }],
      afterCommit: opts.afterCommit,
      on: store,
      endpointEvents: read.endpointEvents,
    });
    return {
      state: after,
      reward: { code: slot.rewardCode, label: slot.reward.label ?? null, multiplier: slot.reward.multiplier },
      effects: claim.effects,
    };
  });
}
