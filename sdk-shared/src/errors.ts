import type { ContractErrorCode } from "./operation-types.js";

/**
 * Codes of failures that never produced a Clube answer:
 * - `network_error`: the request could not be sent or the connection broke
 *   (in a browser, also a request refused by CORS: see the message);
 * - `timeout`: no complete answer within `timeoutMs`;
 * - `aborted`: the caller's `AbortSignal` fired;
 * - `unexpected_response`: an answer that is not the documented error body
 *   (for example an HTML page from a proxy in front of the API).
 */
export type ClientErrorCode = "network_error" | "timeout" | "aborted" | "unexpected_response";

/**
 * Every `code` a `ClubeError` can carry: the contract's codes and the SDK's
 * own. The server may add codes in a later version, so an unknown string is
 * possible too; switching on the known ones stays exhaustive-checkable.
 */
export type ClubeErrorCode = ContractErrorCode | ClientErrorCode | (string & {});

export interface ClubeErrorInit {
  status: number | null;
  code: ClubeErrorCode;
  message: string;
  /** The failing field, e.g. `body.external_id` (422 only). */
  param?: string | null;
  requestId: string | null;
  raw: unknown;
  /** Whether repeating the same call (with the same idempotency key) may succeed. */
  retryable?: boolean;
}

/**
 * The one error type both SDKs throw. Switch on `code` (a union of the
 * contract's codes and the SDK's own `ClientErrorCode`s), or on `status`.
 */
export class ClubeError extends Error {
  /** HTTP status; `null` when no answer arrived (see `ClientErrorCode`). */
  readonly status: number | null;
  /** Stable snake_case error code. */
  readonly code: ClubeErrorCode;
  /** The failing field of a 422 (e.g. `body.external_id`, `query.limit`), else `null`. */
  readonly param: string | null;
  /** The `X-Request-Id` of the failed call, to quote to support; `null` without an answer. */
  readonly requestId: string | null;
  /** True for network errors, timeouts, 429 and 5xx: the same call (with the same idempotency key) may succeed later. */
  readonly retryable: boolean;
  /** The parsed error body (or text) as received, or the underlying error without an answer. */
  readonly raw: unknown;

  constructor(init: ClubeErrorInit) {
    super(init.message, init.raw instanceof Error ? { cause: init.raw } : undefined);
    this.name = "ClubeError";
    this.status = init.status;
    this.code = init.code;
    this.param = init.param ?? null;
    this.requestId = init.requestId;
    this.raw = init.raw;
    this.retryable = init.retryable ?? isRetryable(init.status, init.code);
  }
}

/** Answers worth repeating: no answer at all, rate limited (429) or a server-side failure (5xx). */
function isRetryable(status: number | null, code: string): boolean {
  if (status === null) return code === "network_error" || code === "timeout";
  return status === 429 || status >= 500;
}

interface ErrorBodyShape {
  error: { code: string; message: string; param?: string };
}

function isErrorBody(body: unknown): body is ErrorBodyShape {
  const error = (body as { error?: unknown } | null)?.error as { code?: unknown; message?: unknown } | undefined;
  return typeof error?.code === "string" && typeof error.message === "string";
}

/** Builds the error for a non-2xx answer whose body has already been read (parsed JSON, or text when not JSON). */
export function errorFromResponse(response: Response, body: unknown): ClubeError {
  const requestId = response.headers.get("x-request-id");
  if (isErrorBody(body)) {
    const { code, message, param } = body.error;
    return new ClubeError({ status: response.status, code, message, param: typeof param === "string" ? param : null, requestId, raw: body });
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
