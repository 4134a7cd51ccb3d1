import type { Middleware } from "koa";
import { ApiError } from "../usecases/errors.js";

/** The documented error body. */
export interface ErrorBody {
  error: { code: string; message: string; param?: string };
}

/**
 * The failing field of a 422, machine-readable: every validation message
 * starts with the field's path from the request part (`body.events[3].type
 * must match …`, `query.starting_after is not …`), so `param` is that path.
 */
export function paramOf(code: string, message: string): string | undefined {
  if (code !== "validation_failed") return undefined;
  return /^((?:body|query|path|headers)(?:\.[A-Za-z_$][\w$-]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*)(?:\s|$)/.exec(message)?.[1];
}

/**
 * Turns every failure into `{error: {code, message}}` with the right status.
 * `ApiError`s carry their own status and code (the router turns body-parser
 * failures into ApiErrors too); anything else is a 500 whose details go to the
 * log, never to the client.
 */
export function errorHandler(log: (line: string) => void = (l) => console.error(l)): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new ApiError(404, "route_not_found", `No route ${ctx.method} ${ctx.path}.`);
      }
    } catch (err) {
      const { status, code, message } = toApiError(err);
      if (status >= 500) log(`[${ctx.state.requestId}] ${ctx.method} ${ctx.path} failed: ${describe(err)}`);
      ctx.status = status;
      const param = paramOf(code, message);
      ctx.body = { error: param === undefined ? { code, message } : { code, message, param } } satisfies ErrorBody;
      if (err instanceof ApiError && err.headers) ctx.set(err.headers);
    }
  };
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return new ApiError(500, "internal_error", "An unexpected error occurred; retrying with the same idempotency key is safe.");
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
