import type { Context, Middleware } from "koa";
import { randomBase62 } from "../db/ids.js";

/**
 * Gives every request an id (`req_…`: 16 base62 characters, ≈ 95 bits) and
 * echoes it in `X-Request-Id` on every response, errors included. From the
 * pooled random bytes of db/ids.ts: a crypto RNG call per request
 * (`randomBytes`) cost more than the rest of the id.
 */
export function requestId(): Middleware {
  return async (ctx, next) => {
    assignRequestId(ctx);
    await next();
  };
}

/** Gives `ctx` its id and header (requestId's work, for the app's front middleware that folds it in). */
export function assignRequestId(ctx: Context): void {
  const id = `req_${randomBase62(16)}`;
  ctx.state.requestId = id;
  // On Node's response directly: Koa's ctx.set builds arrays of entries for each call.
  ctx.res.setHeader("X-Request-Id", id);
}
