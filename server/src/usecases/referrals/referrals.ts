import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import { clubDays } from "../../engine/cashback.js";
import type { ApiEffect, ClubConfig } from "../../engine/config.js";
import { grantRewards } from "../../engine/evaluate.js";
import {
  REFERRAL_CODE_LENGTH,
  earnedText,
  friendName,
  normalizeReferralCode,
  qualifiesReferral,
  referralCodeFor,
  referralLink,
  referralRefusal,
  type ReferralConfig,
  type ReferralEarnings,
} from "../../engine/referral.js";
import type { EngineEvent } from "../../engine/types.js";
import { Event, LedgerEntry, Participant, ParticipantReward, Referral } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { requirePublishedConfig } from "../club/index.js";
import { ApiError, notFound } from "../shared/errors.js";
import { recordWebhook } from "../webhooks/index.js";
import { clubTimeZone, loadParticipantState, lockParticipant, persistEvaluation, webhookParticipant } from "../evaluation/index.js";
import { ensureParticipant, participantNotFound } from "../participants/index.js";

type Schemas = components["schemas"];
export type ReferralRegistration = Schemas["ReferralRegistration"];
export type ReferralRegistrationResult = Schemas["ReferralRegistrationResult"];
export type ReferralState = Schemas["ReferralState"];

/** The club's `referral` section (the validator filled its defaults); null when the club has no referral program. */
function referralConfig(config: ClubConfig): ReferralConfig | null {
  return (config.referral as ReferralConfig | undefined) ?? null;
}

/** What a referral's rewards are attributed to: the `source` of its rewards, the `ruleId` of its ledger rows. */
const referralSource = (referralId: string) => `referral:${referralId}`;

// Codes are 8 characters; collisions between 40-bit codes are rare, and each retry hashes anew.
const CODE_ATTEMPTS = 5;

/**
 * The participant's referral code, made and stored the first time it is
 * needed (see `referralCodeFor`). Each attempt is its own statement outside
 * any transaction, so a collision (a unique violation) leaves nothing aborted;
 * a concurrent first read may win, and its code is the one read back.
 */
async function referralCodeOf(db: Database, participant: Participant): Promise<string> {
  if (participant.referralCode) return participant.referralCode;
  for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt++) {
    try {
      await db.em().nativeUpdate(Participant, { id: participant.id, referralCode: null }, { referralCode: referralCodeFor(participant.id, attempt) });
      break;
    } catch (err) {
      if (!(err instanceof UniqueConstraintViolationException)) throw err;
    }
  }
  const stored = await db.em().findOneOrFail(Participant, { id: participant.id }, { fields: ["referralCode"] });
  if (!stored.referralCode) throw new Error(`no free ${REFERRAL_CODE_LENGTH}-character referral code for ${participant.id} after ${CODE_ATTEMPTS} attempts`);
  return stored.referralCode;
}

interface QualifyContext {
  em: SqlEntityManager;
  scope: Scope;
  config: ClubConfig;
  referral: ReferralConfig;
  now: Date;
  publicUrl: string;
}

/**
 * Qualifies a pending referral: both sides receive their rewards (the
 * referrer's row is locked here; the caller holds the referred participant's)
 * and `referral.qualified` is sent. Returns the effects for the referred
 * participant. The status changes only from `pending`, so a referral
 * qualifies once even if two events race.
 */
async function qualify(context: QualifyContext, row: Referral, referred: Participant): Promise<ApiEffect[]> {
  const { em, scope, config, referral, now, publicUrl } = context;
  const changed = await em.nativeUpdate(Referral, { id: row.id, status: "pending" }, { status: "qualified", qualifiedAt: now });
  if (changed === 0) return [];
  const referrer = await lockParticipant(em, { id: row.referrerId });
  if (!referrer) throw new Error(`referral ${row.id} points at a missing referrer ${row.referrerId}`);
  const timeZone = clubTimeZone(config);
  const grant = async (participant: Participant, spec: string | null): Promise<ApiEffect[]> => {
    if (spec === null) return [];
    const state = await loadParticipantState(em, participant, config, { now, timeZone });
    const evaluation = grantRewards({ config, state, now, timeZone, specs: [spec], ruleId: referralSource(row.id) });
    return persistEvaluation({ em, scope, config, participant, state, now, publicUrl, event: null }, evaluation);
  };
  await grant(referrer, referral.referrerReward);
  const effects = await grant(referred, referral.referredReward);
  const data: Schemas["ReferralQualifiedWebhookData"] = {
    referral_id: row.id,
    referrer: webhookParticipant(referrer),
    referred: webhookParticipant(referred),
    rewards: { referrer: referral.referrerReward, referred: referral.referredReward },
  };
  await recordWebhook(em, scope, "referral.qualified", data, now);
  return effects;
}

/**
 * POST /v1/referrals: registers `referred_external_id` (created when absent)
 * as referred by the owner of `code`. 404 when no participant has the code;
 * 409 `referral_not_counted` when it does not count (see `referralRefusal`:
 * program disabled, own code, already referred, an existing player — one who
 * has sent events — or the referrer's `dailyLimit` reached in the club day).
 * With `qualifyEvent: signup` it qualifies at once. The referrer's row is
 * locked, so concurrent registrations respect the daily limit.
 */
export async function registerReferral(
  db: Database,
  scope: Scope,
  input: ReferralRegistration,
  opts: { now: Date; publicUrl: string },
): Promise<ReferralRegistrationResult> {
  const { now, publicUrl } = opts;
  const { config } = await requirePublishedConfig(db, scope);
  const referral = referralConfig(config);
  const code = normalizeReferralCode(input.code);
  try {
    return await db.em().transactional(async (em) => {
      const referrer = await lockParticipant(em, { ...scope, referralCode: code });
      if (!referrer) throw notFound(`Referral code ${JSON.stringify(input.code)}`);
      const existing = await em.findOne(Participant, { ...scope, externalId: input.referred_external_id });
      const [today] = clubDays(now, clubTimeZone(config), 0);
      const refusal = referralRefusal({
        enabled: referral?.enabled ?? false,
        ownCode: existing?.id === referrer.id,
        alreadyReferred: existing !== null && (await em.count(Referral, { ...scope, referredId: existing.id })) > 0,
        existingPlayer: existing !== null && (await em.count(Event, { participantId: existing.id })) > 0,
        referrerToday: await em.count(Referral, { referrerId: referrer.id, createdAt: { $gte: today.start } }),
        dailyLimit: referral?.dailyLimit ?? 0,
      });
      if (refusal !== null) throw new ApiError(409, "referral_not_counted", refusal);
      // Counted, so the program is enabled: the club has a referral section.
      const program = referral as ReferralConfig;

      const referred = existing ?? (await ensureParticipant(db, scope, input.referred_external_id, { em, now }));
      const row = em.create(Referral, {
        id: newId("rfl"),
        ...scope,
        referrerId: referrer.id,
        referredId: referred.id,
        code,
        status: "pending",
        createdAt: now,
        qualifiedAt: null,
      });
      await em.flush();
      if (program.qualifyEvent !== "signup") return { id: row.id, status: "pending" };
      // The referred side's rewards are written under its lock too. Referrer first, then referred: the
      // opposite order (an event qualifying a referral) only happens when the club does not qualify on signup.
      const locked = (await lockParticipant(em, { id: referred.id }))!;
      await qualify({ em, scope, config, referral: program, now, publicUrl }, row, locked);
      return { id: row.id, status: "qualified" };
    });
  } catch (err) {
    // A concurrent registration of the same user won the unique (club, env, referred).
    if (err instanceof UniqueConstraintViolationException) throw new ApiError(409, "referral_not_counted", "The participant was already referred");
    throw err;
  }
}

/**
 * Qualifies the event's participant's pending referral when `event` is the
 * club's `qualifyEvent` with at least `minAmount`. The event ingestion calls
 * it in its transaction, after persisting the event's own evaluation and
 * while holding `participant`'s lock. Returns the effects of the referred
 * participant's reward, to add to the event's effects (empty when nothing
 * qualified).
 */
export async function qualifyReferralOnEvent(
  em: SqlEntityManager,
  scope: Scope,
  at: { config: ClubConfig; participant: Pick<Participant, "id">; event: Pick<EngineEvent, "type" | "amount">; now: Date; publicUrl: string },
): Promise<ApiEffect[]> {
  const referral = referralConfig(at.config);
  if (!referral?.enabled || !qualifiesReferral(referral, at.event)) return [];
  const row = await em.findOne(Referral, { ...scope, referredId: at.participant.id, status: "pending" });
  if (!row) return [];
  // The event's own evaluation was just written with raw increments: read the row again before evaluating on it.
  const referred = await em.findOneOrFail(Participant, { id: at.participant.id }, { refresh: true });
  return qualify({ em, scope, config: at.config, referral, now: at.now, publicUrl: at.publicUrl }, row, referred);
}

// A referrer with many friends sees the newest; `stats` still counts them all.
const FRIENDS_SHOWN = 100;

/** What the participant earned as a referrer: their ledger grants and rewards from referrals they made (not the one that referred them). */
async function referrerEarnings(em: SqlEntityManager, participantId: string, ownReferralId: string | null): Promise<ReferralEarnings> {
  const notOwn = ownReferralId === null ? {} : { $ne: referralSource(ownReferralId) };
  const [ledger, rewards] = await Promise.all([
    em.find(LedgerEntry, { participantId, ruleId: { $like: "referral:%", ...notOwn }, delta: { $gt: 0 } }, { fields: ["unit", "delta"] }),
    em.find(ParticipantReward, { participantId, source: { $like: "referral:%", ...notOwn } }, { fields: ["rewardCode", "status"] }),
  ]);
  const earnings: ReferralEarnings = { units: {}, rewards: {} };
  for (const line of ledger) earnings.units[line.unit] = (earnings.units[line.unit] ?? 0) + line.delta;
  for (const reward of rewards) earnings.rewards[reward.rewardCode] = (earnings.rewards[reward.rewardCode] ?? 0) + 1;
  return earnings;
}

/**
 * Cash (payload `kind: cash`) the participant's referral rewards still wait
 * to receive: rewards whose delivery is pending, valued at the configured
 * reward's `amount_cents`.
 */
async function pendingCashCents(em: SqlEntityManager, config: ClubConfig, participantId: string, ownReferralId: string | null): Promise<number> {
  const notOwn = ownReferralId === null ? {} : { $ne: referralSource(ownReferralId) };
  const pending = await em.find(
    ParticipantReward,
    { participantId, source: { $like: "referral:%", ...notOwn }, status: "pending" },
    { fields: ["rewardCode"] },
  );
  return pending.reduce((sum, reward) => {
    const payload = config.rewards.find((candidate) => candidate.code === reward.rewardCode)?.payload;
    return payload?.kind === "cash" && typeof payload.amount_cents === "number" ? sum + payload.amount_cents : sum;
  }, 0);
}

/** GET /v1/me/referral. Creates the participant's code on the first read. */
export async function getReferralState(db: Database, scope: Scope, externalId: string): Promise<ReferralState> {
  const { config } = await requirePublishedConfig(db, scope);
  const referral = referralConfig(config);
  const em = db.em();
  const participant = await em.findOne(Participant, { ...scope, externalId });
  if (!participant) throw participantNotFound(externalId);
  const code = await referralCodeOf(db, participant);
  const own = await em.findOne(Referral, { ...scope, referredId: participant.id }, { fields: ["id"] });
  const [invited, qualified, friends, earnings, availableCents] = await Promise.all([
    em.count(Referral, { referrerId: participant.id }),
    em.count(Referral, { referrerId: participant.id, status: "qualified" }),
    em.find(Referral, { referrerId: participant.id }, { orderBy: { createdAt: "desc", id: "desc" }, limit: FRIENDS_SHOWN }),
    referrerEarnings(em, participant.id, own?.id ?? null),
    pendingCashCents(em, config, participant.id, own?.id ?? null),
  ]);
  const names = new Map(
    (await em.find(Participant, { id: { $in: friends.map((friend) => friend.referredId) } }, { fields: ["displayName"] })).map((friend) => [
      friend.id,
      friend.displayName ?? null,
    ]),
  );
  return {
    enabled: referral?.enabled ?? false,
    code,
    link: referral === null ? null : referralLink(referral, code),
    referrerReward: referral?.referrerReward ?? null,
    referredReward: referral?.referredReward ?? null,
    // Without a program, the documented defaults of the section.
    qualifyEvent: referral?.qualifyEvent ?? "deposit.confirmed",
    minAmount: referral?.minAmount ?? 20,
    stats: { invited, qualified, earned: earnedText(earnings, config) },
    availableCents,
    friends: friends.map((friend) => ({
      name: friendName(names.get(friend.referredId) ?? null),
      status: friend.status,
      since: friend.createdAt.toISOString(),
    })),
  };
}
