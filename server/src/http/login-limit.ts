import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from "rate-limiter-flexible";
import { ApiError } from "../usecases/shared/errors.js";
import type { Limit } from "./rate-limit.js";
import type { RateLimitStore } from "./rate-limit-store.js";

/**
 * Failed staff sign-ins, counted per source address and per account (club +
 * e-mail, whether or not it exists, so the limit says nothing about which
 * e-mails exist): 20 per 15 minutes by default (`CLUBE_RATE_LIMIT_LOGIN`),
 * then 429 with `Retry-After` until the window ends. Shared through Redis
 * like the other limits when `CLUBE_REDIS_URL` is set.
 */
export interface LoginLimiter {
  /** 429 when the address or the account used up its failures. */
  check(ip: string, account: string): Promise<void>;
  failed(ip: string, account: string): Promise<void>;
  succeeded(account: string): Promise<void>;
}

const DEFAULT_LOGIN_LIMIT: Limit = { points: 20, seconds: 900 };

export function loginLimitFromEnv(raw: string | undefined): Limit {
  if (!raw) return DEFAULT_LOGIN_LIMIT;
  const match = /^(\d+)\/(\d+)$/.exec(raw.trim());
  const points = match ? Number(match[1]) : NaN;
  const seconds = match ? Number(match[2]) : NaN;
  if (!(points >= 1 && seconds >= 1)) throw new Error(`CLUBE_RATE_LIMIT_LOGIN must be <failures>/<seconds>, e.g. 20/900; got ${JSON.stringify(raw)}`);
  return { points, seconds };
}

export function createLoginLimiter(limit: Limit, store: RateLimitStore | null): LoginLimiter {
  const make = (keyPrefix: string): RateLimiterAbstract => {
    const memory = new RateLimiterMemory({ points: limit.points, duration: limit.seconds, keyPrefix });
    if (!store) return memory;
    return new RateLimiterRedis({
      storeClient: store.client,
      points: limit.points,
      duration: limit.seconds,
      keyPrefix: `${store.prefix}:rl:${keyPrefix}`,
      rejectIfRedisNotReady: true,
      insuranceLimiter: memory,
    });
  };
  const byAddress = make("login_ip");
  const byAccount = make("login_account");

  const refuse = (msBeforeNext: number) => {
    const seconds = String(Math.max(1, Math.ceil(msBeforeNext / 1000)));
    return new ApiError(429, "rate_limited", `Too many failed sign-ins. Retry after ${seconds} s.`, { "Retry-After": seconds });
  };

  return {
    async check(ip, account) {
      for (const [limiter, key] of [
        [byAddress, ip],
        [byAccount, account],
      ] as const) {
        const seen = await limiter.get(key);
        if (seen && seen.consumedPoints >= limit.points) throw refuse(seen.msBeforeNext);
      }
    },
    async failed(ip, account) {
      await Promise.all([byAddress.penalty(ip, 1), byAccount.penalty(account, 1)]);
    },
    async succeeded(account) {
      await byAccount.delete(account);
    },
  };
}
