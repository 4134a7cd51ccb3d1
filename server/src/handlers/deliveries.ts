import { confirmDelivery, failDelivery, listDeliveries } from "../usecases/rewards/index.js";
import { redeem } from "../usecases/rewards/index.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

type Ops = "Deliveries_list" | "Deliveries_confirm" | "Deliveries_fail" | "Redemptions_create";

/** Rewards the client's system credits (deliveries), and spending currency on priced rewards (redemptions). */
export function deliveryHandlers(services: Services): HandlerSet<Ops> {
  const { db, clock, settings } = services;
  return {
    async Deliveries_list(req, ctx) {
      return { status: 200, body: await listDeliveries(db, scopeOf(ctx), req.query) };
    },
    async Deliveries_confirm(req, ctx) {
      const delivery = await confirmDelivery(db, scopeOf(ctx), req.path.id, req.body, clock.now());
      services.jobsChanged();
      return { status: 200, body: delivery };
    },
    async Deliveries_fail(req, ctx) {
      const delivery = await failDelivery(db, scopeOf(ctx), req.path.id, req.body, clock.now());
      services.jobsChanged();
      return { status: 200, body: delivery };
    },
    async Redemptions_create(req, ctx) {
      const redemption = await redeem(db, scopeOf(ctx), req.body, {
        idempotencyKey: req.headers["idempotency-key"],
        now: clock.now(),
        publicUrl: settings.publicUrl,
      });
      services.jobsChanged();
      return { status: 200, body: redemption };
    },
  };
}
