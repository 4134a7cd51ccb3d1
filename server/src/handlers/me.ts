import { getProfile, getProgress } from "../usecases/participants.js";
import type { Services } from "../services.js";
import { allowOrigin } from "../http/cors.js";
import { requirePublishedConfig } from "../usecases/config.js";
import type { RequestContext } from "../http/router.js";
import { meOf } from "./context.js";
import type { HandlerSet } from "./types.js";

type MeOps = "Me_getProfile" | "Me_getProgress";

/**
 * The participant surface. Each handler resolves the participant from the
 * token (or X-Participant) and answers CORS for the club's allowed origins.
 */
export function meHandlers({ db }: Services): HandlerSet<MeOps> {
  /** The caller's scope and participant, after setting CORS for the club's `allowedOrigins`. */
  async function me(ctx: RequestContext) {
    const { scope, externalId } = meOf(ctx);
    const { config } = await requirePublishedConfig(db, scope);
    allowOrigin(ctx.koa, config.allowedOrigins ?? []);
    return { scope, externalId };
  }
  return {
    async Me_getProfile(_req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await getProfile(db, scope, externalId) };
    },
    async Me_getProgress(_req, ctx) {
      const { scope, externalId } = await me(ctx);
      return { status: 200, body: await getProgress(db, scope, externalId) };
    },
  };
}
