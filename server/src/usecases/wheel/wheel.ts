import { randomBytes } from "node:crypto";
import { UniqueConstraintViolationException, type RequiredEntityData } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import { overlayRewardPayloads, referenceCode } from "../../engine/checkin.js";
import type { ClubConfig } from "../../engine/config.js";
import { grantRewards } from "../../engine/evaluate.js";
import { dayKey, nextDayStart } from "../../engine/time.js";
import { NO_WHEEL, pickSlice, slicePrize, spinsLeft, visibleSlices, type RandomSource, type WheelConfig, type WheelState } from "../../engine/wheel.js";
import { Participant, WheelSpin } from "../../db/entities/index.js";
import { shapeOf } from "../../db/hot/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { requirePublishedConfig } from "../club/index.js";
import { ApiError } from "../shared/errors.js";
import { webhookMessage } from "../webhooks/index.js";
import { clubTimeZone, loadParticipantState, lockParticipantByExternalId, webhookParticipant, gatherClaim, writeClaim } from "../evaluation/index.js";
import type { AfterCommit } from "../shared/after-commit.js";
import { participantNotFound } from "../participants/index.js";
import { fairSlice } from "../../engine/wheel/fair.js";
import { activeSeed, consumeNonce, currentFairness } from "./fair-seeds.js";

export type WheelSpinResult = components["schemas"]["WheelSpinResult"];

/** The production random source: 48 bits (6 bytes) from the operating system's CSPRNG, uniform in [0, 1). */
export const cryptoRandom: RandomSource = () => randomBytes(6).readUIntBE(0, 6) / 2 ** 48;

/** The club's `wheel` section; the validator filled its defaults. A club without one has a disabled wheel with no slices. */
function wheelConfig(config: ClubConfig): WheelConfig {
  return (config.wheel as WheelConfig | undefined) ?? NO_WHEEL;
}

/** Spins refill at midnight of the club day (the club time zone, not the check-in reset hour). */
async function spinsToday(em: SqlEntityManager, participantId: string, now: Date, timeZone: string): Promise<number> {
  return em.count(WheelSpin, { participantId, dayKey: dayKey(now, timeZone) });
}

/** When the next spin comes: the next club day while none is left today; null while spins are left or when the wheel gives none. */
function nextSpinAt(wheel: WheelConfig, left: number, now: Date, timeZone: string): string | null {
  return left === 0 && wheel.enabled && wheel.spinsPerDay > 0 ? nextDayStart(now, timeZone).toISOString() : null;
}

/** GET /v1/me/wheel. */
export async function getWheelState(db: Database, scope: Scope, externalId: string, now: Date): Promise<WheelState> {
  const { config } = await requirePublishedConfig(db, scope);
  const wheel = wheelConfig(config);
  const timeZone = clubTimeZone(config);
  const em = db.em();
  const participant = await em.findOne(Participant, { ...scope, externalId });
  if (!participant) throw participantNotFound(externalId);
  const left = spinsLeft(wheel, await spinsToday(em, participant.id, now, timeZone));
  return {
    style: wheel.style,
    titleLeft: wheel.titleLeft,
    titleRight: wheel.titleRight,
    slices: visibleSlices(wheel),
    spinsLeft: left,
    nextSpinAt: nextSpinAt(wheel, left, now, timeZone),
    fairness: await currentFairness(db, scope, participant.id, now),
  };
}

export interface SpinOptions {
  /** The `Idempotency-Key` header: a repeat answers the first spin with `duplicate: true`. */
  idempotencyKey?: string;
  now: Date;
  /**
   * Tests only: draw the slice from this source instead of the participant's
   * provably fair seeds (the spin then has no fairness record). Production
   * spins are always drawn from the seeds.
   */
  random?: RandomSource;
  publicUrl: string;
  /** Told `"outbox"` when the commit wrote outbox rows. */
  afterCommit?: AfterCommit;
}

const keyOfAnotherParticipant = () => new ApiError(409, "conflict", "This Idempotency-Key was already used for another participant's spin");

/**
 * The spin stored under `idempotencyKey`, answered as a repeat; null when the
 * key is new. A key is unique in the club and environment, so one used for
 * another participant is a conflict, never that participant's result.
 */
async function repeatedSpin(em: SqlEntityManager, scope: Scope, participantId: string, idempotencyKey: string): Promise<WheelSpinResult | null> {
  const spin = await em.findOne(WheelSpin, { ...scope, idempotencyKey });
  if (!spin) return null;
  if (spin.participantId !== participantId) throw keyOfAnotherParticipant();
  return { ...(spin.result as WheelSpinResult), duplicate: true };
}

/**
 * POST /v1/me/wheel/spin: draws a slice with `random`, grants its reward
 * (`wheel:<spin id>` is the source; a delivered reward carries the slice's
 * prize over its payload), records the spin with the wheel's
 * `probabilityVersion` and sends `wheel.spun`, in one transaction holding the
 * participant's lock, so concurrent spins never exceed `spinsPerDay`.
 */
export async function spinWheel(db: Database, scope: Scope, externalId: string, opts: SpinOptions): Promise<WheelSpinResult> {
  const { now, publicUrl, idempotencyKey } = opts;
  const { config } = await requirePublishedConfig(db, scope);
  const wheel = wheelConfig(config);
  const timeZone = clubTimeZone(config);
  try {
    return await db.em().transactional(async (em) => {
      const participant = await lockParticipantByExternalId(em, scope, externalId);
      if (!participant) throw participantNotFound(externalId);
      // Checked under the lock: a retry racing its original waits for it and then finds its spin.
      const repeat = idempotencyKey === undefined ? null : await repeatedSpin(em, scope, participant.id, idempotencyKey);
      if (repeat) return repeat;
      if (!wheel.enabled) throw new ApiError(409, "wheel_disabled", "The club's wheel is disabled");

      const left = spinsLeft(wheel, await spinsToday(em, participant.id, now, timeZone));
      if (left === 0) {
        const next = wheel.spinsPerDay === 0 ? "the wheel gives no spins" : `the next one is available at ${nextDayStart(now, timeZone).toISOString()}`;
        throw new ApiError(409, "no_spins_left", `No spins left today; ${next}`);
      }
      const seed = opts.random ? null : await activeSeed(em, scope, participant.id, now);
      const index = seed ? fairSlice(wheel.slices, seed.serverSeed, seed.clientSeed, seed.nextNonce) : pickSlice(wheel.slices, opts.random!);
      if (index === null) throw new ApiError(409, "wheel_disabled", "No slice of the wheel can win (every weight is 0)");
      const slice = wheel.slices[index];
      const nonce = seed ? await consumeNonce(em, seed) : null;

      const spinId = newId("spn");
      const state = await loadParticipantState(em, participant, config, { now, timeZone });
      const { spec, prize } = slicePrize(slice, state.tierCode);
      const evaluation =
        spec === null ? null : overlayRewardPayloads(grantRewards({ config, state, now, timeZone, specs: [spec], ruleId: `wheel:${spinId}` }), prize ?? {});
      // The effects are known before the writes: gathering fills `reward_id` in, without I/O.
      const target = { em, scope, config, participant, state, now, publicUrl, event: null };
      const claim = gatherClaim(target, evaluation);
      const effects = claim.effects;
      const rewardGranted = effects.find((effect) => effect.type === "reward_granted");
      const leftAfter = left - 1;
      const result: WheelSpinResult = {
        spinId,
        index,
        sliceId: slice.id,
        label: slice.label,
        reward: slice.reward === null ? null : referenceCode(slice.reward),
        rewardId: rewardGranted?.type === "reward_granted" ? (rewardGranted.reward_id ?? null) : null,
        ...(prize ? { prize } : {}),
        spinsLeft: leftAfter,
        nextSpinAt: nextSpinAt(wheel, leftAfter, now, timeZone),
        probabilityVersion: wheel.probabilityVersion,
        duplicate: false,
        effects,
        ...(seed ? { fairness: { server_seed_hash: seed.serverSeedHash, client_seed: seed.clientSeed, nonce: nonce! } } : {}),
      };
      const spin: RequiredEntityData<WheelSpin> = {
        id: spinId,
        ...scope,
        participantId: participant.id,
        dayKey: dayKey(now, timeZone),
        sliceId: slice.id,
        sliceIndex: index,
        rewardCode: result.reward,
        probabilityVersion: wheel.probabilityVersion,
        idempotencyKey: idempotencyKey ?? null,
        result: result as unknown as Record<string, unknown>,
        spunAt: now,
        seedId: seed?.id ?? null,
        nonce,
        weights: seed ? wheel.slices.map((candidate) => candidate.weight) : null,
      };
      const data: components["schemas"]["WheelSpunWebhookData"] = {
        participant: webhookParticipant(participant),
        spin_id: spinId,
        slice_id: slice.id,
        label: slice.label,
        reward_code: result.reward,
        probability_version: wheel.probabilityVersion,
      };
      await writeClaim(claim, [webhookMessage(scope, "wheel.spun", data, now)], {
        also: [{ insert: shapeOf(em, WheelSpin), rows: [spin] }],
        afterCommit: opts.afterCommit,
      });
      return result;
    });
  } catch (err) {
    // Another participant's concurrent spin took the same key first.
    if (err instanceof UniqueConstraintViolationException && idempotencyKey !== undefined) {
      throw keyOfAnotherParticipant();
    }
    throw err;
  }
}
