import type { Client } from "openapi-fetch";
import type { paths } from "../../generated/types.js";
import type { QueryParams, RequestBody } from "./operation-types.js";
import { unwrap } from "./unwrap.js";

export interface MeCallOptions {
  /** Headers sent with every call; the headless server mode sends `X-Participant` here. */
  headers?: Record<string, string>;
  /** The `Idempotency-Key` to send for a spin or a store redemption, from the caller's key (if any); `undefined` sends none. */
  idempotencyKey: (given?: string) => string | undefined;
}

/**
 * The participant surface `/v1/me/*`, one method per operation. Shared by the
 * browser client (participant token) and the Node client's headless mode
 * (secret key + `X-Participant`), which differ only in how they authenticate.
 */
export function createMeMethods(api: Client<paths>, options: MeCallOptions) {
  const { headers } = options;
  const keyed = (given?: string) => {
    const key = options.idempotencyKey(given);
    return key === undefined ? {} : { "Idempotency-Key": key };
  };
  return {
    profile: () => unwrap(api.GET("/v1/me", { headers })),
    progress: () => unwrap(api.GET("/v1/me/progress", { headers })),
    missions: () => unwrap(api.GET("/v1/me/missions", { headers })),
    /** Claims the reward of a completed manual-claim mission. */
    claimMission: (missionId: string) =>
      unwrap(api.POST("/v1/me/missions/{mission_id}/claim", { headers, params: { path: { mission_id: missionId } } })),
    checkin: () => unwrap(api.GET("/v1/me/checkin", { headers })),
    /** Claims today's check-in. */
    claimCheckin: () => unwrap(api.POST("/v1/me/checkin", { headers })),
    wheel: () => unwrap(api.GET("/v1/me/wheel", { headers })),
    /** Spins the wheel; a repeated `idempotencyKey` answers the same spin with `duplicate: true`. */
    spin: (spinOptions: { idempotencyKey?: string } = {}) =>
      unwrap(api.POST("/v1/me/wheel/spin", { headers, params: { header: keyed(spinOptions.idempotencyKey) } })),
    /** Reveals the server seed in use and commits to a new one with `client_seed` (random when omitted). */
    rotateWheelSeed: (input: RequestBody<"Me_rotateWheelSeed"> = {}) => unwrap(api.POST("/v1/me/wheel/seed", { headers, body: input })),
    /** The participant's provably fair spins, with seeds (revealed ones) and nonces. */
    wheelSpins: (query?: QueryParams<"Me_listWheelSpins">) => unwrap(api.GET("/v1/me/wheel/spins", { headers, params: { query } })),
    store: () => unwrap(api.GET("/v1/me/store", { headers })),
    /** Buys a store reward with the participant's currency. */
    redeem: (rewardCode: string, redeemOptions: { idempotencyKey?: string } = {}) =>
      unwrap(
        api.POST("/v1/me/store/{reward_code}/redeem", {
          headers,
          params: { path: { reward_code: rewardCode }, header: keyed(redeemOptions.idempotencyKey) },
        }),
      ),
    rewards: () => unwrap(api.GET("/v1/me/rewards", { headers })),
    notifications: (query?: QueryParams<"Me_listNotifications">) => unwrap(api.GET("/v1/me/notifications", { headers, params: { query } })),
    markRead: (notificationId: string) =>
      unwrap(api.POST("/v1/me/notifications/{notification_id}/read", { headers, params: { path: { notification_id: notificationId } } })),
    markAllRead: () => unwrap(api.POST("/v1/me/notifications/read-all", { headers })),
    cashback: () => unwrap(api.GET("/v1/me/cashback", { headers })),
    /** Claims the cashback available (claim mode). */
    claimCashback: () => unwrap(api.POST("/v1/me/cashback/claim", { headers })),
    referral: () => unwrap(api.GET("/v1/me/referral", { headers })),
    leaderboards: () => unwrap(api.GET("/v1/me/leaderboards", { headers })),
    leaderboard: (campaignId: string, query?: QueryParams<"Me_getLeaderboard">) =>
      unwrap(api.GET("/v1/me/leaderboards/{campaign_id}", { headers, params: { path: { campaign_id: campaignId }, query } })),
    badges: () => unwrap(api.GET("/v1/me/badges", { headers })),
    /** Current and previous editions of every tournament and official track: score, rank, top `limit`, prizes, live pool. */
    tournaments: (query?: QueryParams<"Me_listTournaments">) => unwrap(api.GET("/v1/me/tournaments", { headers, params: { query } })),
  };
}

export type MeMethods = ReturnType<typeof createMeMethods>;
