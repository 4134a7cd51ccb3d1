import type { Context, Middleware } from "koa";

/**
 * CORS for the participant surface only (`/v1/me/*`). Server-mode routes never
 * answer CORS: a secret key must not be used from a browser.
 *
 * A preflight carries no credentials, so the club is unknown at that point: the
 * preflight is answered for any origin, and the real response carries
 * `Access-Control-Allow-Origin` only when the origin is in the club's
 * `allowedOrigins` (checked after authentication). Browsers refuse to hand the
 * response to a page whose origin is not allowed.
 */
const PREFLIGHT_HEADERS = "Authorization, Content-Type, Idempotency-Key, X-Participant";

export function participantPreflight(): Middleware {
  return async (ctx, next) => {
    if (ctx.method === "OPTIONS" && isSurface(ctx) && ctx.get("Origin")) {
      ctx.set("Access-Control-Allow-Origin", ctx.get("Origin"));
      ctx.set("Vary", "Origin");
      ctx.set("Access-Control-Allow-Methods", "GET, POST");
      ctx.set("Access-Control-Allow-Headers", PREFLIGHT_HEADERS);
      ctx.set("Access-Control-Max-Age", "600");
      ctx.status = 204;
      return;
    }
    await next();
  };
}

/** Sets the CORS response headers when `origin` is allowed for the caller's club. */
export function allowOrigin(ctx: Context, allowedOrigins: readonly string[]): void {
  const origin = ctx.get("Origin");
  // Koa's vary() parses the header it extends: most answers have none yet.
  if (ctx.res.hasHeader("Vary")) ctx.vary("Origin");
  else ctx.res.setHeader("Vary", "Origin");
  if (!origin || !originAllowed(allowedOrigins, origin)) return;
  ctx.set("Access-Control-Allow-Origin", origin);
  ctx.set("Access-Control-Expose-Headers", "X-Request-Id");
}

/** Whether `origin` is one of `allowedOrigins` (compared as origins: scheme, host and port). */
export function originAllowed(allowedOrigins: readonly string[], origin: string): boolean {
  return allowedOrigins.some((allowed) => sameOrigin(allowed, origin));
}

function isSurface(ctx: Context): boolean {
  return ctx.path === "/v1/me" || ctx.path.startsWith("/v1/me/");
}

function sameOrigin(allowed: string, origin: string): boolean {
  try {
    return new URL(allowed).origin === new URL(origin).origin;
  } catch {
    return false;
  }
}
