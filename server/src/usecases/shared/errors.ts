/**
 * The one error type use cases throw. The HTTP layer turns it into
 * `{error: {code, message}}` with `status`; `code` is one of the stable codes
 * listed on `ErrorDetail` in spec/common.tsp.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra response headers (for example `Retry-After`). */
    readonly headers?: Record<string, string>,
    /** Every problem of a document checked as a whole, each a message naming its field (the first is `message`). */
    readonly details?: readonly string[],
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/** 404 in the caller's club and environment; also what another club's key gets. */
export function notFound(what: string): ApiError {
  return new ApiError(404, "not_found", `${what} was not found.`);
}

/** 422 naming the failing field. */
export function validationFailed(message: string): ApiError {
  return new ApiError(422, "validation_failed", message);
}

/** 422 listing every failing field of a document (at least one), each message naming its field; the first is the message. */
export function validationFailedAll(messages: readonly string[]): ApiError {
  return new ApiError(422, "validation_failed", messages[0], undefined, messages);
}
