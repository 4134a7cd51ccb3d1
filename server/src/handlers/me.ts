import { allowOrigin, originAllowed } from "../http/cors.js";
import { ApiError } from "../usecases/shared/errors.js";
import type { RequestContext } from "../http/router.js";
import { claimCashback, getCashbackState } from "../usecases/cashback/index.js";
import { claimCheckin, getCheckinState } from "../usecases/checkin/index.js";
import { publishedConfigNow, type PublishedConfig } from "../usecases/club/index.js";
import { listNotifications, markAllNotificationsRead, markNotificationRead } from "../usecases/participants/index.js";
import { getProfile, getProgress } from "../usecases/participants/index.js";
import { getReferralState } from "../usecases/referrals/index.js";
import { listMyBadges } from "../usecases/participants/index.js";
import { claimMyMission, listMyMissions } from "../usecases/missions/index.js";
import { listMyRewards, listStore, redeemCode, redeemFromStore } from "../usecases/rewards/index.js";
import { getLeaderboard, listMyLeaderboards, listMyTournaments } from "../usecases/tournaments/index.js";
import { etagMatches, getMeConfig } from "../usecases/widget/index.js";
import { getWheelState, spinWheel } from "../usecases/wheel/index.js";
import { listFairSpins, rotateWheelSeed } from "../usecases/wheel/index.js";
import type { Services } from "../services.js";
import { afterCommitOf, meOf } from "./context.js";
import type { OperationId } from "../../../generated/operations.js";
import type { HandlerSet } from "./types.js";

type Me = ReturnType<typeof meOf>;

function withOrigin(ctx: RequestContext, config: PublishedConfig["config"], found: Me): Me {
  allowOrigin(ctx.koa, config.allowedOrigins ?? []);
  return found;
}

/** Every operation of the participant surface. */
type MeOp = Extract<OperationId, `Me_${string}`>;

/**
 * The participant surface (`/v1/me/*`). Each handler resolves the participant
 * from the token (or X-Participant in headless mode) and answers CORS for the
 * club's `allowedOrigins`.
 */
export function meHandlers(services: Services): HandlerSet<MeOp> {
  const { db, clock, settings } = services;
  const publicUrl = settings.publicUrl;

  /** The caller's scope and participant, after setting CORS for the club's `allowedOrigins`; at once when the configuration is in memory. */
  function me(ctx: RequestContext): Me | Promise<Me> {
    const found = meOf(ctx);
    const published = publishedConfigNow(db, found.scope);
    if (published instanceof Promise) return published.then(({ config }) => withOrigin(ctx, config, found));
    return withOrigin(ctx, published.config, found);
  }

  return {
    async Me_getProfile(_req, ctx) {
      const found = me(ctx);
      const { scope, externalId } = found instanceof Promise ? await found : found;
      return { status: 200, body: await getProfile(db, scope, externalId, "participant") };
    },
    async Me_getProgress(_req, ctx) {
      const found = me(ctx);
      const { scope, externalId } = found instanceof Promise ? await found : found;
      return { status: 200, body: await getProgress(db, scope, externalId) };
    },
    async Me_listMissions(_req, ctx) {
      const found = me(ctx);
      const { scope, externalId } = found instanceof Promise ? await found : found;
      return { status: 200, body: await listMyMissions(db, scope, externalId, clock.now()) };
    },
    async Me_claimMission(req, ctx) {
      const { scope, externalId } = await me(ctx);
      // Told only when the commit wrote outbox rows (so too for the claims and spins below).
      const afterCommit = afterCommitOf(ctx, services);
      return { status: 200, body: await claimMyMission(db, scope, externalId, req.path.mission_id, { now: clock.now(), publicUrl, afterCommit }) };
    },
    async Me_getCheckin(_req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await getCheckinState(db, scope, externalId, clock.now()) };
    },
    async Me_redeemCode(req, ctx) {
      const { scope, externalId } = await me(ctx);
      const afterCommit = afterCommitOf(ctx, services);
      return { status: 200, body: await redeemCode(db, scope, externalId, req.body.code, { now: clock.now(), publicUrl, afterCommit }) };
    },
    async Me_claimCheckin(_req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await claimCheckin(db, scope, externalId, { now: clock.now(), publicUrl, afterCommit: afterCommitOf(ctx, services) }) };
    },
    async Me_getWheel(_req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await getWheelState(db, scope, externalId, clock.now()) };
    },
    async Me_spinWheel(req, ctx) {
      const { scope, externalId } = await me(ctx);
      const spin = await spinWheel(db, scope, externalId, {
        idempotencyKey: req.headers["idempotency-key"],
        now: clock.now(),
        publicUrl,
        afterCommit: afterCommitOf(ctx, services),
      });
      return { status: 200, body: spin };
    },
    async Me_rotateWheelSeed(req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await rotateWheelSeed(db, scope, externalId, req.body?.client_seed, clock.now()) };
    },
    async Me_listWheelSpins(req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await listFairSpins(db, scope, externalId, req.query) };
    },
    async Me_listStore(_req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await listStore(db, scope, externalId, clock.now()) };
    },
    async Me_redeemStoreItem(req, ctx) {
      const { scope, externalId } = await me(ctx);
      const redemption = await redeemFromStore(db, scope, externalId, req.path.reward_code, {
        idempotencyKey: req.headers["idempotency-key"],
        now: clock.now(),
        publicUrl,
        // Told only when the commit wrote outbox rows.
        afterCommit: afterCommitOf(ctx, services),
      });
      return { status: 200, body: redemption };
    },
    async Me_listRewards(_req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await listMyRewards(db, scope, externalId, clock.now()) };
    },
    async Me_listNotifications(req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await listNotifications(db, scope, externalId, req.query) };
    },
    async Me_markNotificationRead(req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await markNotificationRead(db, scope, externalId, req.path.notification_id, clock.now()) };
    },
    async Me_markAllNotificationsRead(_req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await markAllNotificationsRead(db, scope, externalId, clock.now()) };
    },
    async Me_getCashback(_req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await getCashbackState(db, scope, externalId, clock.now()) };
    },
    async Me_claimCashback(_req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await claimCashback(db, scope, externalId, { now: clock.now(), publicUrl, afterCommit: afterCommitOf(ctx, services) }) };
    },
    async Me_getReferral(_req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await getReferralState(db, scope, externalId) };
    },
    async Me_listLeaderboards(_req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await listMyLeaderboards(db, scope, externalId, clock.now()) };
    },
    async Me_listTournaments(req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await listMyTournaments(db, scope, externalId, { limit: req.query.limit, now: clock.now() }) };
    },
    async Me_getLeaderboard(req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await getLeaderboard(db, scope, externalId, req.path.campaign_id, { limit: req.query.limit, now: clock.now() }) };
    },
    async Me_getConfig(req, ctx) {
      const { scope } = meOf(ctx);
      const view = await getMeConfig(db, scope, clock.now());
      allowOrigin(ctx.koa, view.allowedOrigins);
      // A page of this server itself (the demo page, a club's own pages on the club host) is always allowed.
      const embedder = req.query.embedder;
      if (embedder !== undefined && embedder !== `${ctx.koa.protocol}://${ctx.koa.host}` && !originAllowed(view.allowedOrigins, embedder)) {
        throw new ApiError(403, "origin_not_allowed", `The page origin ${JSON.stringify(embedder)} is not in this club's allowedOrigins.`);
      }
      // The URL is the same for every club and participant: the browser cache must key it by the token too.
      ctx.koa.vary("Authorization");
      const headers = { "Cache-Control": "private, max-age=60" as const, ETag: view.etag };
      if (etagMatches(req.headers["if-none-match"], view.etag)) return { status: 304, body: undefined, headers };
      return { status: 200, body: view.body, headers };
    },
    async Me_listBadges(_req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await listMyBadges(db, scope, externalId) };
    },
  };
}
