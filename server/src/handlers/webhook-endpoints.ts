import { getSending, sendEndpointTest } from "../usecases/webhooks/index.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

/** A test to an endpoint on demand, and one sending with its payload. */
export function webhookEndpointHandlers({ db, clock }: Services): HandlerSet<"WebhookEndpoints_sendTest" | "WebhookSendings_get"> {
  return {
    async WebhookEndpoints_sendTest(req, ctx) {
      return { status: 200, body: await sendEndpointTest(db, scopeOf(ctx), req.path.id, clock.now()) };
    },
    async WebhookSendings_get(req, ctx) {
      return { status: 200, body: await getSending(db, scopeOf(ctx), req.path.id) };
    },
  };
}
