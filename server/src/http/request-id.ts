import type { Context } from "koa";
import { randomBase62 } from "../db/ids.js";

/**
 * Gives a request its id (`req_…`: 16 base62 characters, ≈ 95 bits) and
 * echoes it in `X-Request-Id` on its response, errors included (the app's
 * front middleware calls it first). From the pooled random bytes of
 * db/ids.ts: a crypto RNG call per request (`randomBytes`) cost more than the
 * rest of the id.
 */
export function assignRequestId(ctx: Context): void {
  const id = `req_${randomBase62(16)}`;
  ctx.state.requestId = id;
  // On Node's response directly: Koa's ctx.set builds arrays of entries for each call.
  ctx.res.setHeader("X-Request-Id", id);
}
