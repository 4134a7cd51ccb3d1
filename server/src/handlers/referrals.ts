import { registerReferral } from "../usecases/referrals/index.js";
import type { Services } from "../services.js";
import { useCaseContext } from "./context.js";
import type { HandlerSet } from "./types.js";

/** Referral registration at signup (a paid referral may announce webhooks). */
export function referralHandlers(services: Services): HandlerSet<"Referrals_register"> {
  const { settings } = services;
  return {
    async Referrals_register(req, ctx) {
      const { db, scope, now, afterCommit } = useCaseContext(ctx, services);
      const result = await registerReferral(db, scope, req.body, { now, publicUrl: settings.publicUrl });
      afterCommit("outbox");
      return { status: 201, body: result };
    },
  };
}
