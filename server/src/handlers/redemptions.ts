import { redeem } from "../usecases/rewards/index.js";
import type { Services } from "../services.js";
import { useCaseContext } from "./context.js";
import type { HandlerSet } from "./types.js";

/** Spending currency on priced rewards. */
export function redemptionHandlers(services: Services): HandlerSet<"Redemptions_create"> {
  const { settings } = services;
  return {
    async Redemptions_create(req, ctx) {
      const { db, scope, now, afterCommit } = useCaseContext(ctx, services);
      // The use case tells afterCommit when its commit wrote outbox rows (none when no endpoint subscribes).
      const redemption = await redeem(db, scope, req.body, { idempotencyKey: req.headers["idempotency-key"], now, publicUrl: settings.publicUrl, afterCommit });
      return { status: 200, body: redemption };
    },
  };
}
