// @clube/browser: the participant surface (/v1/me/*) for browsers and apps,
// authenticated with a participant token. No Node built-ins: it runs in any
// environment with the standard fetch API.
import { ClubeError } from "../../sdk-shared/src/errors.js";
import { createRequester, type SendFn } from "../../sdk-shared/src/request.js";
import { MeResource } from "./generated/resources.js";
import { createTokenFetch } from "./token-fetch.js";

export interface ClubeBrowserOptions {
  /** Where the Clube API listens, e.g. `https://clube.example.com`. */
  baseUrl: string;
  /** Returns a participant token from your server; called on first use and again when the token is refused. */
  getToken: () => Promise<string>;
  /** Called when even a fresh token is refused: sign the participant in again. */
  onAuthExpired?: () => void;
  /** A fetch implementation; defaults to the global `fetch`. */
  fetch?: (request: Request) => Promise<Response>;
  /** Gives up on a call after this long (default: no limit); a call's `timeoutMs` overrides it. */
  timeoutMs?: number;
}

export interface ClubeBrowser {
  /** The signed-in participant's profile, progress, missions, check-in, wheel, store, rewards, notifications, cashback, referral, leaderboards and badges. */
  me: MeResource;
}

export function createClubeBrowser(options: ClubeBrowserOptions): ClubeBrowser {
  const tokenFetch = createTokenFetch({
    getToken: options.getToken,
    onAuthExpired: options.onAuthExpired,
    fetch: options.fetch ?? ((request) => fetch(request)),
  });
  const request = createRequester({
    baseUrl: options.baseUrl,
    send: withTimeout(tokenFetch, options.timeoutMs),
    headers: () => ({}),
    // The browser never retries on its own, so it sends an idempotency key only when the caller gives one.
    newIdempotencyKey: () => undefined,
    describeNetworkError: corsHint,
  });
  return { me: new MeResource(request) };
}

function withTimeout(send: (request: Request) => Promise<Response>, defaultMs: number | undefined): SendFn {
  return async (request, { timeoutMs = defaultMs }) => {
    if (timeoutMs === undefined) return send(request);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    const onAbort = () => controller.abort();
    request.signal.addEventListener("abort", onAbort);
    try {
      return await send(new Request(request, { signal: controller.signal }));
    } catch (err) {
      if (controller.signal.aborted && !request.signal.aborted) {
        throw new ClubeError({
          status: null,
          code: "timeout",
          message: `${request.method} ${request.url}: no answer within ${timeoutMs} ms`,
          requestId: null,
          raw: err,
        });
      }
      throw err;
    } finally {
      clearTimeout(timer);
      request.signal.removeEventListener("abort", onAbort);
    }
  };
}

/**
 * A browser reports a request refused by CORS as a bare `TypeError: Failed to
 * fetch`, indistinguishable from a network failure. From another origin, the
 * likeliest cause is a page origin missing from the club's `allowedOrigins`.
 */
function corsHint(url: string, error: unknown): string {
  const reason = error instanceof Error ? error.message : String(error);
  const page = typeof location === "object" && location ? location.origin : undefined;
  let target: string | undefined;
  try {
    target = new URL(url).origin;
  } catch {
    target = undefined;
  }
  if (page && page !== "null" && target && page !== target) {
    return `Could not reach ${url} (${reason}). If the API is up, the browser probably refused the answer under CORS: add ${page} to the club's allowedOrigins.`;
  }
  return `Could not reach ${url}: ${reason}`;
}

export { ClubeError, type ClubeErrorCode, type ClientErrorCode } from "../../sdk-shared/src/errors.js";
export type { RequestOptions, ResponseMeta, WithResponse } from "../../sdk-shared/src/request.js";
export { MeResource } from "./generated/resources.js";
/** The participant surface: what `createClubeBrowser(…).me` is. */
export type { MeResource as MeMethods } from "./generated/resources.js";
export type * from "../../sdk-shared/src/models.js";
export { verifyWheelSpin, wheelDraw, wheelSeedHash, wheelSliceForDraw, type FairSpin, type FairSpinCheck } from "./fair-wheel.js";
