import type { Context, Middleware } from "koa";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { ApiError } from "../usecases/errors.js";
import type { Auth } from "./auth.js";
import type { RateLimitStore } from "./rate-limit-store.js";

/** One limit: `points` requests per `seconds`-long fixed window. */
export interface Limit {
  points: number;
  seconds: number;
}

/**
 * The rate limits (documented in the contract, spec/common.tsp). The seed
 * shows none, so they are sized for real use and far above what one
 * sane client (or this repository's bursts, fuzz and benchmark suites) sends:
 * - per API key (secret key, including headless `/v1/me/*` calls): 3000 per 10 s;
 * - per participant token (club, environment, participant): 300 per 10 s;
 * - rejected credentials per source address (a well-formed secret key that is
 *   unknown or revoked, a participant token that is invalid or expired; a
 *   missing or malformed credential is not a guess and is not counted): 100 per 60 s, after which every authenticated route answers 429
 *   to that address until the window ends (slows down key guessing).
 */
export interface RateLimits {
  apiKey: Limit;
  participant: Limit;
  failedAuth: Limit;
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  apiKey: { points: 3000, seconds: 10 },
  participant: { points: 300, seconds: 10 },
  failedAuth: { points: 100, seconds: 60 },
};

/**
 * Reads overrides as `points/seconds` (e.g. `CLUBE_RATE_LIMIT_KEY=5/60`);
 * tests of the limits use them to configure small limits.
 */
export function rateLimitsFromEnv(env: NodeJS.ProcessEnv): RateLimits {
  return {
    apiKey: parseLimit("CLUBE_RATE_LIMIT_KEY", env.CLUBE_RATE_LIMIT_KEY, DEFAULT_RATE_LIMITS.apiKey),
    participant: parseLimit("CLUBE_RATE_LIMIT_PARTICIPANT", env.CLUBE_RATE_LIMIT_PARTICIPANT, DEFAULT_RATE_LIMITS.participant),
    failedAuth: parseLimit("CLUBE_RATE_LIMIT_FAILED_AUTH", env.CLUBE_RATE_LIMIT_FAILED_AUTH, DEFAULT_RATE_LIMITS.failedAuth),
  };
}

function parseLimit(name: string, raw: string | undefined, fallback: Limit): Limit {
  if (!raw) return fallback;
  const match = /^(\d+)\/(\d+)$/.exec(raw.trim());
  const points = match ? Number(match[1]) : NaN;
  const seconds = match ? Number(match[2]) : NaN;
  if (!(points >= 1 && seconds >= 1)) throw new Error(`${name} must be <requests>/<seconds>, e.g. 3000/10; got ${JSON.stringify(raw)}`);
  return { points, seconds };
}

/**
 * The limiters (rate-limiter-flexible). Without a store each process counts in
 * memory, so behind a balancer the effective limit is per process. With the
 * Redis store (`CLUBE_REDIS_URL`) every process counts in the same keys, so the
 * limits hold for the whole deployment; while Redis is unreachable each process
 * falls back to its own in-memory limiter (the insurance limiter) rather than
 * failing or delaying requests, and /v1/health reports `rate_limits: error`.
 */
export interface RateLimiter {
  /** Before authentication: refuses a source address that used up its failed attempts; counts a rejected credential. */
  guardAuth: Middleware;
  /** After authentication: counts the request against its key or participant and sets the `RateLimit-*` headers. */
  perCaller: Middleware;
}

export function createRateLimiter(limits: RateLimits = DEFAULT_RATE_LIMITS, store: RateLimitStore | null = null): RateLimiter {
  const make = (limit: Limit, keyPrefix: string): RateLimiterAbstract => {
    const memory = new RateLimiterMemory({ points: limit.points, duration: limit.seconds, keyPrefix });
    if (!store) return memory;
    return new RateLimiterRedis({
      storeClient: store.client,
      points: limit.points,
      duration: limit.seconds,
      keyPrefix: `${store.prefix}:rl:${keyPrefix}`,
      // Not connected → count in memory at once instead of waiting for a reconnect.
      rejectIfRedisNotReady: true,
      insuranceLimiter: memory,
    });
  };
  const apiKey = make(limits.apiKey, "key");
  const participant = make(limits.participant, "participant");
  const failedAuth = make(limits.failedAuth, "failed_auth");

  const guardAuth: Middleware = async (ctx, next) => {
    const seen = await failedAuth.get(ctx.ip);
    if (seen && seen.consumedPoints >= limits.failedAuth.points) {
      throw limited(limits.failedAuth, seen, "Too many failed authentication attempts from this address.");
    }
    try {
      await next();
    } catch (err) {
      if (ctx.state.credentialRejected === true && err instanceof ApiError && err.status === 401) {
        // Counting never refuses this request (it already failed); the next one from the address is refused once over.
        await failedAuth.penalty(ctx.ip, 1);
      }
      throw err;
    }
  };

  const perCaller: Middleware = async (ctx, next) => {
    const auth = ctx.state.auth as Auth | undefined;
    const target = callerOf(auth);
    if (!target) return next();
    const [limiter, limit] = target.kind === "key" ? [apiKey, limits.apiKey] : [participant, limits.participant];
    let res: RateLimiterRes;
    try {
      res = await limiter.consume(target.id);
    } catch (refused) {
      if (refused instanceof RateLimiterRes) {
        const who = target.kind === "key" ? "this API key" : "this participant";
        throw limited(limit, refused, `Too many requests for ${who}.`);
      }
      throw refused;
    }
    setHeaders(ctx, limit, res);
    await next();
  };

  return { guardAuth, perCaller };
}

/** Whose budget a request spends: the secret key's (also in headless mode) or the participant token's. */
function callerOf(auth: Auth | undefined): { kind: "key" | "participant"; id: string } | null {
  if (!auth || auth.kind === "public") return null;
  if (auth.kind === "secret") return { kind: "key", id: auth.keyId };
  // A staff session spends the key budget, counted per session.
  if (auth.kind === "staff") return { kind: "key", id: `staff:${auth.sessionId}` };
  if (auth.via === "header") return { kind: "key", id: auth.keyId ?? `${auth.clubId}:${auth.env}` };
  return { kind: "participant", id: `${auth.clubId}:${auth.env}:${auth.externalId}` };
}

function headersOf(limit: Limit, res: RateLimiterRes): Record<string, string> {
  const reset = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return {
    "RateLimit-Limit": String(limit.points),
    "RateLimit-Remaining": String(Math.max(0, res.remainingPoints)),
    "RateLimit-Reset": String(reset),
  };
}

function setHeaders(ctx: Context, limit: Limit, res: RateLimiterRes): void {
  ctx.set(headersOf(limit, res));
}

function limited(limit: Limit, res: RateLimiterRes, why: string): ApiError {
  const headers: Record<string, string> = { ...headersOf(limit, res), "RateLimit-Remaining": "0" };
  return new ApiError(429, "rate_limited", `${why} Retry after ${headers["RateLimit-Reset"]} s.`, {
    ...headers,
    "Retry-After": headers["RateLimit-Reset"],
  });
}
