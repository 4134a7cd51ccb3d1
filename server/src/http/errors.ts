import type { Context } from "koa";
import { ApiError } from "../usecases/shared/errors.js";
import { isOutage, serviceUnavailable } from "./outages.js";

/** The documented error body. */
interface ErrorBody {
  error: { code: string; message: string; param?: string; details?: { param: string; message: string }[] };
}

/**
 * The failing field of a 422, machine-readable: every validation message
 * starts with the field's path from the request part (`body.events[3].type
 * must match …`, `query.starting_after is not …`), so `param` is that path.
 */
export function paramOf(code: string, message: string): string | undefined {
  if (code !== "validation_failed") return undefined;
  return /^((?:body|query|path|headers|config)(?:\.[A-Za-z_$][\w$-]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*)(?:\s|$)/.exec(message)?.[1];
}

/** A request no route answered (no status of its own, no body) is the documented 404. */
export function answeredOrNotFound(ctx: Context): void {
  if (ctx.status === 404 && ctx.body === undefined) {
    throw new ApiError(404, "route_not_found", `No route ${ctx.method} ${ctx.path}.`);
  }
}

/**
 * Answers `err` as `{error: {code, message}}` with the right status (the app's
 * front middleware's catch). `ApiError`s carry their own status and code (the
 * router turns body-parser failures into ApiErrors too); anything else is a
 * 500 whose details go to the log, never to the client.
 */
export function answerError(ctx: Context, err: unknown, log: (line: string) => void = (l) => console.error(l)): void {
  const answer = toApiError(err);
  const { status, code, message } = answer;
  if (status >= 500) log(`[${ctx.state.requestId}] ${ctx.method} ${ctx.path} failed: ${describe(err)}`);
  ctx.status = status;
  ctx.body = { error: errorDetail(err, code, message) } satisfies ErrorBody;
  if (answer.headers) ctx.set(answer.headers);
  if (!ctx.req.readableEnded) dropUnreadBody(ctx);
}

/**
 * A request refused before its body was read to the end (over the limit, a
 * gzip body inflating past it, the wrong media type): what is left of the body
 * would hold the connection, and the next request on it could not be read
 * until the body is. The rest is read and dropped; a body still arriving (not
 * all of it on the connection yet) also closes the connection after the answer,
 * rather than taking in up to its whole size first.
 */
function dropUnreadBody(ctx: Context): void {
  if (!ctx.req.complete) ctx.set("Connection", "close");
  ctx.req.unpipe();
  ctx.req.resume();
}

function errorDetail(err: unknown, code: string, message: string): ErrorBody["error"] {
  const param = paramOf(code, message);
  const detail: ErrorBody["error"] = param === undefined ? { code, message } : { code, message, param };
  const listed = err instanceof ApiError ? err.details : undefined;
  // A message whose field cannot be read is still listed, under the whole document's name.
  if (listed) detail.details = listed.map((problem) => ({ param: paramOf(code, problem) ?? param ?? "body", message: problem }));
  return detail;
}

/** A dependency's outage is a 503 the client should retry; anything else unexpected is a defect, and its 500 does not invite a retry. */
function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (isOutage(err)) return serviceUnavailable();
  return new ApiError(500, "internal_error", "An unexpected error occurred; it has been logged. Quote the X-Request-Id header to support.");
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
