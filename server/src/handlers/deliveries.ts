import { confirmDelivery, failDelivery, listDeliveries } from "../usecases/rewards/index.js";
import type { Services } from "../services.js";
import { scopeOf, useCaseContext } from "./context.js";
import type { HandlerSet } from "./types.js";

/** Rewards the client's system credits (deliveries): listed, confirmed or failed (each answer may announce a webhook). */
export function deliveryHandlers(services: Services): HandlerSet<"Deliveries_list" | "Deliveries_confirm" | "Deliveries_fail"> {
  const { db } = services;
  return {
    async Deliveries_list(req, ctx) {
      return { status: 200, body: await listDeliveries(db, scopeOf(ctx), req.query) };
    },
    async Deliveries_confirm(req, ctx) {
      const { scope, now, afterCommit } = useCaseContext(ctx, services);
      const delivery = await confirmDelivery(db, scope, req.path.id, req.body, now);
      afterCommit("outbox");
      return { status: 200, body: delivery };
    },
    async Deliveries_fail(req, ctx) {
      const { scope, now, afterCommit } = useCaseContext(ctx, services);
      const delivery = await failDelivery(db, scope, req.path.id, req.body, now);
      afterCommit("outbox");
      return { status: 200, body: delivery };
    },
  };
}
