/**
 * The one error type both SDKs throw. An HTTP failure carries the server's
 * stable `code` (see the API reference); failures that never produced an HTTP
 * answer use the SDK's own codes:
 * - `network_error`: the request could not be sent or the connection broke;
 * - `timeout`: no complete answer within the client's `timeoutMs`;
 * - `unexpected_response`: an answer that is not the documented error body
 *   (for example an HTML page from a proxy in front of the API).
 */
export class ClubeError extends Error {
  /** HTTP status; `null` without an answer, and for a success answer whose body is not JSON (openapi-fetch reports only the parse error). */
  readonly status: number | null;
  /** Stable snake_case error code. */
  readonly code: string;
  /** The `X-Request-Id` of the failed call, to quote to support; `null` without an answer. */
  readonly requestId: string | null;
  /** The parsed error body (or text) as received, or the underlying error without an answer. */
  readonly raw: unknown;

  constructor(init: { status: number | null; code: string; message: string; requestId: string | null; raw: unknown }) {
    super(init.message, init.raw instanceof Error ? { cause: init.raw } : undefined);
    this.name = "ClubeError";
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.raw = init.raw;
  }
}

interface ErrorBodyShape {
  error: { code: string; message: string };
}

function isErrorBody(body: unknown): body is ErrorBodyShape {
  const error = (body as { error?: unknown } | null)?.error as { code?: unknown; message?: unknown } | undefined;
  return typeof error?.code === "string" && typeof error.message === "string";
}

/** Builds the error for a non-2xx answer whose body has already been read (parsed JSON, or text when not JSON). */
export function errorFromResponse(response: Response, body: unknown): ClubeError {
  const requestId = response.headers.get("x-request-id");
  if (isErrorBody(body)) {
    return new ClubeError({ status: response.status, code: body.error.code, message: body.error.message, requestId, raw: body });
  }
  // Keep the message short: a proxy's error page can be kilobytes of HTML.
  const excerpt = typeof body === "string" ? body.slice(0, 200) : JSON.stringify(body ?? null).slice(0, 200);
  return new ClubeError({
    status: response.status,
    code: "unexpected_response",
    message: `HTTP ${response.status} without a Clube error body: ${excerpt}`,
    requestId,
    raw: body,
  });
}
