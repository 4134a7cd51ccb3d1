import type { Middleware } from "koa";
import { ApiError } from "../usecases/errors.js";

/** The documented error body. */
export interface ErrorBody {
  error: { code: string; message: string };
}

/**
 * Turns every failure into `{error: {code, message}}` with the right status.
 * `ApiError`s carry their own status and code; errors thrown by Koa
 * middleware (body parser limits, malformed JSON) are mapped to stable codes;
 * anything else is a 500 whose details go to the log, never to the client.
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
      ctx.body = { error: { code, message } } satisfies ErrorBody;
      if (err instanceof ApiError && err.headers) ctx.set(err.headers);
    }
  };
}

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const e = err as { status?: number; type?: string; expose?: boolean; message?: string };
  if (e?.type === "entity.too.large" || e?.status === 413) {
    return new ApiError(413, "payload_too_large", "The request body is larger than the limit for this route.");
  }
  if (e?.type === "entity.parse.failed" || (e?.status === 400 && e?.expose)) {
    return new ApiError(400, "invalid_json", "The request body is not valid JSON.");
  }
  if (e?.type === "encoding.unsupported" || e?.status === 415) {
    return new ApiError(415, "unsupported_media_type", "The request body must be application/json.");
  }
  return new ApiError(500, "internal_error", "An unexpected error occurred; retrying with the same idempotency key is safe.");
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
