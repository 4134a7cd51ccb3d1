import Koa from "koa";
import { docsRouter } from "./http/docs.js";
import { widgetRouter } from "./http/widget.js";
import { studio } from "./http/studio.js";
import type { DemoClub } from "./demo/ensure-demo-club.js";
import { errorHandler } from "./http/errors.js";
import { participantPreflight } from "./http/cors.js";
import { requestId } from "./http/request-id.js";
import { createRateLimiter, rateLimitsFromEnv, type RateLimits } from "./http/rate-limit.js";
import { buildRouter, methodNotAllowed } from "./http/router.js";
import { createHandlers } from "./handlers/index.js";
import type { Services } from "./services.js";

export interface AppOptions {
  /** Check every response against the contract (tests only: it costs a validation per response). */
  validateResponses?: boolean;
  log?: (line: string) => void;
  /** The demo club `clube serve` made: serves the widget's demo page `/widget/demo`. */
  demo?: DemoClub | null;
  /** Rate limits; from the CLUBE_RATE_LIMIT_* variables (else the documented defaults) when omitted. */
  rateLimits?: RateLimits;
}

/**
 * The HTTP application: request id → error shape → CORS preflight of the
 * participant surface → docs → the widget → the contracted routes → 405/404.
 */
export async function createApp(services: Services, options: AppOptions = {}): Promise<Koa> {
  const app = new Koa();
  // X-Forwarded-For is read only behind the configured number of proxies
  // (CLUBE_TRUST_PROXY), and then only the entries they appended: otherwise a
  // client could forge the header and escape the per-address limit of failed authentications.
  const hops = services.settings.trustProxyHops;
  app.proxy = hops > 0;
  app.maxIpsCount = hops;
  const api = buildRouter(createHandlers(services), {
    auth: services.auth,
    validateResponses: options.validateResponses,
    idempotency: { db: services.db, now: () => services.clock.now() },
    rateLimiter: createRateLimiter(options.rateLimits ?? rateLimitsFromEnv(process.env), services.rateLimitStore),
    audit: { db: services.db, now: () => (services.realClock ?? services.clock).now() },
  });
  const docs = await docsRouter();

  app.use(requestId());
  app.use(errorHandler(options.log));
  app.use(durableAnswers(services));
  app.use(participantPreflight());
  app.use(docs.routes());
  app.use(widgetRouter({ services, demo: options.demo }).routes());
  app.use(studio());
  app.use(api.routes());
  app.use(methodNotAllowed(api));
  return app;
}

/**
 * Nothing is answered before what it committed (or read of others' commits)
 * is on disk: the embedded database's commits are synced off the event loop
 * (db/wal-sync.ts); at once elsewhere. Inside the error handler, so a failed
 * sync is answered as any internal error.
 */
function durableAnswers(services: Services): Koa.Middleware {
  return async (_ctx, next) => {
    await next();
    await services.db.durable();
  };
}
