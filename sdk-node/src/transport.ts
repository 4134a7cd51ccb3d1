import { ClubeError } from "../../sdk-shared/src/errors.js";
import type { SendFn } from "../../sdk-shared/src/request.js";
import { type BackoffPolicy, isRetryableStatus, retryAfterMs, retryDelayMs } from "./backoff.js";

export type FetchFn = (request: Request) => Promise<Response>;

export interface TransportOptions {
  fetch: FetchFn;
  /** Per attempt, covering the answer's headers and its whole body; a call may override it. */
  timeoutMs: number;
  /** Further attempts after the first, for repeatable calls only. */
  maxRetries: number;
  backoff: BackoffPolicy;
  random: () => number;
  sleep: (ms: number) => Promise<void>;
}

// Statuses whose Response must be built with a null body.
const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/**
 * A call is repeated only when repeating cannot apply it twice: reads, and
 * writes that carry an `Idempotency-Key` (the server answers a repeat with the
 * stored result instead of acting again), and events keyed by their own `id`
 * (`repeatable`: the server counts a repeated id once).
 */
export function isRepeatable(request: Request, repeatable = false): boolean {
  return repeatable || request.method === "GET" || request.method === "HEAD" || request.headers.has("idempotency-key");
}

/**
 * Sends a request with the per-attempt timeout and the retries with backoff.
 * It resolves with the last answer (which may be a 4xx or an exhausted
 * 5xx/429, turned into a `ClubeError` by the caller) or throws a `ClubeError`
 * with code `network_error`, `timeout` or `aborted` (the caller's signal).
 */
export function createTransport(options: TransportOptions): SendFn {
  return async (request, call) => {
    const timeoutMs = call.timeoutMs ?? options.timeoutMs;
    const maxAttempts = isRepeatable(request, call.repeatable) ? 1 + options.maxRetries : 1;
    for (let attempt = 1; ; attempt++) {
      const outcome = await attemptOnce(request.clone(), timeoutMs, options);
      const failed = outcome instanceof ClubeError ? outcome.retryable : isRetryableStatus(outcome.status);
      if (!failed || attempt >= maxAttempts) {
        if (outcome instanceof ClubeError) throw outcome;
        return outcome;
      }
      const retryAfter = outcome instanceof Response ? retryAfterMs(outcome.headers.get("retry-after")) : null;
      await options.sleep(retryDelayMs(attempt, options.random(), retryAfter, options.backoff));
      if (request.signal.aborted) throw abortedError(request, request.signal.reason);
    }
  };
}

function abortedError(request: Request, cause: unknown): ClubeError {
  return new ClubeError({
    status: null,
    code: "aborted",
    message: `${request.method} ${request.url} was aborted by the caller`,
    requestId: null,
    raw: cause,
    retryable: false,
  });
}

async function attemptOnce(request: Request, timeoutMs: number, options: TransportOptions): Promise<Response | ClubeError> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  // The caller's signal (if any) and this attempt's timeout both end the attempt.
  const signal = AbortSignal.any([controller.signal, request.signal]);
  try {
    const response = await options.fetch(new Request(request, { signal }));
    // The body is read here, under the same timer, so a server that sends
    // headers and then stalls is a timeout (and retried) like any other.
    const body = await response.arrayBuffer();
    return new Response(NULL_BODY_STATUSES.has(response.status) ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  } catch (err) {
    const target = `${request.method} ${request.url}`;
    if (request.signal.aborted) return abortedError(request, err);
    if (controller.signal.aborted) {
      return new ClubeError({ status: null, code: "timeout", message: `${target}: no complete answer within ${timeoutMs} ms`, requestId: null, raw: err });
    }
    const reason = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
    return new ClubeError({ status: null, code: "network_error", message: `${target} failed: ${reason}`, requestId: null, raw: err });
  } finally {
    clearTimeout(timer);
  }
}
