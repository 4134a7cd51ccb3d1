import { randomBytes } from "node:crypto";
import type { Middleware } from "koa";

/** Gives every request an id (`req_…`) and echoes it in `X-Request-Id` on every response, errors included. */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const id = `req_${randomBytes(12).toString("base64url")}`;
    ctx.state.requestId = id;
    ctx.set("X-Request-Id", id);
    await next();
  };
}
