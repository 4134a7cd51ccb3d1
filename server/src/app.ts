import Koa from "koa";
import { docsRouter } from "./http/docs.js";
import { widgetRouter } from "./http/widget.js";
import { studio } from "./http/studio.js";
import type { DemoClub } from "./demo/ensure-demo-club.js";
import { answerError, answeredOrNotFound } from "./http/errors.js";
import { participantPreflight } from "./http/cors.js";
import { assignRequestId } from "./http/request-id.js";
import { createRateLimiter, rateLimitsFromEnv, type RateLimits } from "./http/rate-limit.js";
import { buildRoutes, methodNotAllowed } from "./http/router.js";
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
 * participant surface → docs → the widget → the studio → the contracted routes
 * → 405/404 → durable answers. A contracted path written as the contract
 * writes it skips the routers (http/router.ts ContractRoutes).
 */
export async function createApp(services: Services, options: AppOptions = {}): Promise<Koa> {
  const app = new Koa();
  // X-Forwarded-For is read only behind the configured number of proxies
  // (CLUBE_TRUST_PROXY), and then only the entries they appended: otherwise a
  // client could forge the header and escape the per-address limit of failed authentications.
  const hops = services.settings.trustProxyHops;
  app.proxy = hops > 0;
  app.maxIpsCount = hops;
  const routes = buildRoutes(createHandlers(services), {
    auth: services.auth,
    validateResponses: options.validateResponses,
    idempotency: { db: services.db, now: () => services.clock.now() },
    rateLimiter: createRateLimiter(options.rateLimits ?? rateLimitsFromEnv(process.env), services.rateLimitStore),
    audit: { db: services.db, now: () => (services.realClock ?? services.clock).now() },
  });
  const docs = await docsRouter();

  const log = options.log ?? ((line: string) => console.error(line));
  const apiRoutes = routes.router.routes() as unknown as Koa.Middleware;
  const notAllowed = methodNotAllowed(routes.router);
  // The contracted routes are all under /v1/ and nothing else is: their requests skip the docs', widget's and studio's routers.
  const v1 = chain([apiRoutes, notAllowed]);
  const preflightThenV1 = chain([participantPreflight(), apiRoutes, notAllowed]);
  const rest = chain([
    participantPreflight(),
    docs.routes() as unknown as Koa.Middleware,
    widgetRouter({ services, demo: options.demo }).routes() as unknown as Koa.Middleware,
    studio(),
    apiRoutes,
    notAllowed,
  ]);
  const { db } = services;

  // Request id → error shape → (the routes) → durable answers, as one middleware: each layer of Koa's chain costs promises on every request.
  app.use(async (ctx, next) => {
    assignRequestId(ctx);
    try {
      const { path, method } = ctx;
      // A contracted path as the contract writes it goes straight to its route; every other spelling, and the rest, to the routers.
      const route = method === "OPTIONS" ? undefined : routes.lookup(method, path);
      if (route) {
        ctx.params = route.params;
        await route.run(ctx, next);
      } else await (path.startsWith("/v1/") ? (method === "OPTIONS" ? preflightThenV1 : v1) : rest)(ctx, next);
      // Nothing is answered before what it committed (or read of others' commits) is on disk: the embedded database's
      // commits are synced off the event loop (db/wal-sync.ts); at once elsewhere. Inside the error handling, so a failed
      // sync is answered as any internal error.
      await db.durable();
      answeredOrNotFound(ctx);
    } catch (err) {
      answerError(ctx, err, log);
    }
  });
  return app;
}

/** Runs `middlewares` in order, each one's `next` the following one's (the last one's: `next` itself). */
function chain(middlewares: Koa.Middleware[]): Koa.Middleware {
  return (ctx, next) => {
    const at = (index: number): Promise<unknown> => (index === middlewares.length ? next() : Promise.resolve(middlewares[index](ctx, () => at(index + 1))));
    return at(0);
  };
}
