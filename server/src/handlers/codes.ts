import type { Services } from "../services.js";
import { createPromotionCode, disablePromotionCode, getPromotionCode, listPromotionCodes } from "../usecases/rewards/index.js";
import { redeemCode } from "../usecases/rewards/index.js";
import { scopeOf, useCaseContext } from "./context.js";
import type { HandlerSet } from "./types.js";

/** Promotional codes as the club's server manages them (secret key). */
export function codeHandlers(services: Services): HandlerSet<"Codes_create" | "Codes_list" | "Codes_get" | "Codes_disable" | "Codes_redeemFor"> {
  const { db, clock, settings } = services;
  return {
    async Codes_create(req, ctx) {
      return { status: 201, body: await createPromotionCode(db, scopeOf(ctx), req.body, clock.now()) };
    },
    async Codes_list(req, ctx) {
      return { status: 200, body: await listPromotionCodes(db, scopeOf(ctx), req.query) };
    },
    async Codes_get(req, ctx) {
      return { status: 200, body: await getPromotionCode(db, scopeOf(ctx), req.path.code) };
    },
    async Codes_disable(req, ctx) {
      return { status: 200, body: await disablePromotionCode(db, scopeOf(ctx), req.path.code, clock.now()) };
    },
    async Codes_redeemFor(req, ctx) {
      const { scope, now, afterCommit } = useCaseContext(ctx, services);
      // Told only when the commit wrote outbox rows.
      const body = await redeemCode(db, scope, req.path.external_id, req.body.code, { now, publicUrl: settings.publicUrl, afterCommit });
      return { status: 200, body };
    },
  };
}
