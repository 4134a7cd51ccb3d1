import type { Context } from "koa";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { operations } from "../../../generated/operations.js";
import { ApiError } from "../usecases/shared/errors.js";
import type { Auth } from "./auth.js";
import type { RateLimitStore } from "./rate-limit-store.js";

/** One limit: `points` requests per `seconds`-long fixed window. */
export interface Limit {
  points: number;
  seconds: number;
}

/** The classes of a secret key's routes, each with its own budget. */
export type KeyRouteClass = "ingestion" | "participant_reads" | "participant_writes" | "management";
export const KEY_ROUTE_CLASSES: readonly KeyRouteClass[] = ["ingestion", "participant_reads", "participant_writes", "management"];

/**
 * The rate limits (documented in the contract, spec/common.tsp). The seed
 * shows none, so they are sized for real use and far above what one
 * sane client (or this repository's bursts, fuzz and benchmark suites) sends:
 * - per secret key (including headless `/v1/me/*` calls), by route class, each
 *   counted on its own so bulk ingestion never starves the key's reads or its
 *   management calls: ingestion (`POST /v1/events`, `/v1/events/batch`) sized
 *   above what a deployment of several processes ingests, so only a runaway
 *   client meets it; participant reads and writes; management (everything else);
 * - per participant token (club, environment, participant): 300 per 10 s;
 * - rejected credentials per source address (a well-formed secret key that is
 *   unknown or revoked, a participant token that is invalid or expired; a
 *   missing or malformed credential is not a guess and is not counted): 100 per 60 s, after which every authenticated route answers 429
 *   to that address until the window ends (slows down key guessing).
 */
export interface RateLimits {
  /** Per secret key, by route class. */
  keyClasses: Record<KeyRouteClass, Limit>;
  /**
   * One budget for all of a key's requests instead of the classes (the single
   * key budget of earlier versions, `CLUBE_RATE_LIMIT_KEY`); unset by default.
   */
  apiKey?: Limit;
  participant: Limit;
  failedAuth: Limit;
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  keyClasses: {
    ingestion: { points: 50_000, seconds: 10 },
    participant_reads: { points: 20_000, seconds: 10 },
    participant_writes: { points: 10_000, seconds: 10 },
    management: { points: 3_000, seconds: 10 },
  },
  participant: { points: 300, seconds: 10 },
  failedAuth: { points: 100, seconds: 60 },
};

/** The variable that sets each class's budget. */
const KEY_CLASS_VARIABLES: Record<KeyRouteClass, string> = {
  ingestion: "CLUBE_RATE_LIMIT_INGESTION",
  participant_reads: "CLUBE_RATE_LIMIT_PARTICIPANT_READS",
  participant_writes: "CLUBE_RATE_LIMIT_PARTICIPANT_WRITES",
  management: "CLUBE_RATE_LIMIT_MANAGEMENT",
};

/**
 * Reads overrides as `points/seconds` (e.g. `CLUBE_RATE_LIMIT_INGESTION=5/60`);
 * tests of the limits use them to configure small limits.
 */
export function rateLimitsFromEnv(env: NodeJS.ProcessEnv): RateLimits {
  const keyClasses = Object.fromEntries(
    KEY_ROUTE_CLASSES.map((routeClass) => [
      routeClass,
      parseLimit(KEY_CLASS_VARIABLES[routeClass], env[KEY_CLASS_VARIABLES[routeClass]], DEFAULT_RATE_LIMITS.keyClasses[routeClass]),
    ]),
  ) as Record<KeyRouteClass, Limit>;
  const limits: RateLimits = {
    keyClasses,
    participant: parseLimit("CLUBE_RATE_LIMIT_PARTICIPANT", env.CLUBE_RATE_LIMIT_PARTICIPANT, DEFAULT_RATE_LIMITS.participant),
    failedAuth: parseLimit("CLUBE_RATE_LIMIT_FAILED_AUTH", env.CLUBE_RATE_LIMIT_FAILED_AUTH, DEFAULT_RATE_LIMITS.failedAuth),
  };
  if (env.CLUBE_RATE_LIMIT_KEY) limits.apiKey = parseLimit("CLUBE_RATE_LIMIT_KEY", env.CLUBE_RATE_LIMIT_KEY, DEFAULT_RATE_LIMITS.participant);
  return limits;
}

/** The budgets in one line each, as `clube serve` prints them at start. */
export function describeRateLimits(limits: RateLimits, shared: boolean): string[] {
  const per = (limit: Limit) => `${limit.points}/${limit.seconds} s`;
  const key = limits.apiKey
    ? `per secret key: ${per(limits.apiKey)} for all routes (CLUBE_RATE_LIMIT_KEY)`
    : `per secret key: ${KEY_ROUTE_CLASSES.map((routeClass) => `${routeClass.replace("_", " ")} ${per(limits.keyClasses[routeClass])}`).join(", ")}`;
  return [
    `rate limits (${shared ? "shared through Redis" : "counted in this process"}): ${key}`,
    `  per participant token ${per(limits.participant)}; failed authentications per address ${per(limits.failedAuth)}`,
  ];
}

/** Ingestion: the event routes. Participant routes: a participant's own resources, read or written. Management: the rest. */
const INGESTION_OPERATIONS = new Set(["Events_send", "Events_sendBatch"]);
const PARTICIPANT_PATHS = /^\/v1\/(participants|me|redemptions|referrals|deliveries)(\/|$)|^\/v1\/affiliates\/attributions$/;

/** The class of an operation (by its `operationId`, path and method in the contract). */
export function routeClassOf(op: { operationId: string; method: string; path: string }): KeyRouteClass {
  if (INGESTION_OPERATIONS.has(op.operationId)) return "ingestion";
  if (PARTICIPANT_PATHS.test(op.path)) return op.method.toLowerCase() === "get" ? "participant_reads" : "participant_writes";
  return "management";
}

const ROUTE_CLASSES = new Map<string, KeyRouteClass>(operations.map((op) => [op.operationId, routeClassOf(op)]));

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
  /**
   * Before authentication: refuses (429) a source address that used up its failed attempts. Undefined when
   * nothing needs looking up (counted in this process and no rejection within the window).
   */
  refuseExhausted(ctx: Context): Promise<void> | undefined;
  /** After a rejected credential (401): counts it against the source address; never refuses this request. */
  countRejected(ctx: Context): Promise<void>;
  /** After authentication: counts the request against its key or participant (429 when over) and sets the `RateLimit-*` headers. */
  count(ctx: Context, auth: Auth, operationId: string): Promise<void> | undefined;
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
  const apiKey = limits.apiKey ? make(limits.apiKey, "key") : undefined;
  const keyClasses = Object.fromEntries(
    KEY_ROUTE_CLASSES.map((routeClass) => [routeClass, make(limits.keyClasses[routeClass], `key:${routeClass}`)]),
  ) as Record<KeyRouteClass, RateLimiterAbstract>;
  const participant = make(limits.participant, "participant");
  const failedAuth = make(limits.failedAuth, "failed_auth");

  // Counted in this process only (no store): no address can be over the limit while no rejection was
  // counted within the last window, so the lookup is skipped then.
  let lastPenaltyAt = Number.NEGATIVE_INFINITY;
  const failedAuthWindowMs = limits.failedAuth.seconds * 1000;
  const mayBeOver = () => store !== null || Date.now() - lastPenaltyAt <= failedAuthWindowMs;

  const refuseExhausted = (ctx: Context): Promise<void> | undefined => {
    if (!mayBeOver()) return undefined;
    return failedAuth.get(ctx.ip).then((seen) => {
      if (seen && seen.consumedPoints >= limits.failedAuth.points) {
        throw limited(limits.failedAuth, seen, "Too many failed authentication attempts from this address.");
      }
    });
  };

  const countRejected = async (ctx: Context): Promise<void> => {
    lastPenaltyAt = Date.now();
    await failedAuth.penalty(ctx.ip, 1);
  };

  /** Each operation's budget when a secret key (or a staff session, or headless mode) calls it. */
  const keyBudgets = new Map<string, { limiter: RateLimiterAbstract; limit: Limit; who: string }>();
  const keyBudgetOf = (operationId: string) => {
    let budget = keyBudgets.get(operationId);
    if (!budget) {
      const routeClass = ROUTE_CLASSES.get(operationId) ?? "management";
      budget =
        apiKey && limits.apiKey
          ? { limiter: apiKey, limit: limits.apiKey, who: "this API key" }
          : { limiter: keyClasses[routeClass], limit: limits.keyClasses[routeClass], who: `this API key's ${routeClass.replace("_", " ")} routes` };
      keyBudgets.set(operationId, budget);
    }
    return budget;
  };
  const participantBudget = { limiter: participant, limit: limits.participant, who: "this participant" };
  // Counted in this process: the same fixed windows as the limiters', at once (no promise per request).
  const windows = store ? null : new FixedWindows();

  const count = (ctx: Context, auth: Auth, operationId: string): Promise<void> | undefined => {
    const target = callerOf(auth);
    if (!target) return undefined;
    const { limiter, limit, who } = target.kind === "participant" ? participantBudget : keyBudgetOf(operationId);
    if (windows) {
      const res = windows.consume(limiter.keyPrefix, target.id, limit);
      if (res.consumedPoints > limit.points) throw limited(limit, res, `Too many requests for ${who}.`);
      setHeaders(ctx, limit, res);
      return undefined;
    }
    return limiter.consume(target.id).then(
      (res) => setHeaders(ctx, limit, res),
      (refused) => {
        if (refused instanceof RateLimiterRes) throw limited(limit, refused, `Too many requests for ${who}.`);
        throw refused;
      },
    );
  };

  return { refuseExhausted, countRejected, count };
}

/** What a window's count tells: as rate-limiter-flexible's RateLimiterRes. */
type Counted = Pick<RateLimiterRes, "remainingPoints" | "msBeforeNext" | "consumedPoints">;

/**
 * Fixed windows counted in memory as RateLimiterMemory counts them (a window
 * starts at a key's first request and lasts the limit's seconds; a request
 * over the points is refused and still counted), answered at once. Ended
 * windows are dropped by a sweep once per longest window instead of a timer each.
 */
export class FixedWindows {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();
  private sweepAt = 0;

  constructor(private readonly now: () => number = Date.now) {}

  consume(prefix: string, id: string, limit: Limit): Counted {
    const now = this.now();
    const durationMs = limit.seconds * 1000;
    if (now >= this.sweepAt) this.sweep(now, durationMs);
    const key = `${prefix}:${id}`;
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + durationMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return { consumedPoints: window.count, remainingPoints: Math.max(limit.points - window.count, 0), msBeforeNext: window.endsAt - now };
  }

  private sweep(now: number, durationMs: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
    this.sweepAt = now + durationMs;
  }
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

function headersOf(limit: Limit, res: Counted): Record<string, string> {
  const reset = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return {
    "RateLimit-Limit": String(limit.points),
    "RateLimit-Remaining": String(Math.max(0, res.remainingPoints)),
    "RateLimit-Reset": String(reset),
  };
}

function setHeaders(ctx: Context, limit: Limit, res: Counted): void {
  // Straight to Node's response (Koa's ctx.set would do the same per header, through its getters).
  const response = ctx.res;
  response.setHeader("RateLimit-Limit", String(limit.points));
  response.setHeader("RateLimit-Remaining", String(Math.max(0, res.remainingPoints)));
  response.setHeader("RateLimit-Reset", String(Math.max(1, Math.ceil(res.msBeforeNext / 1000))));
}

function limited(limit: Limit, res: Counted, why: string): ApiError {
  const headers: Record<string, string> = { ...headersOf(limit, res), "RateLimit-Remaining": "0" };
  return new ApiError(429, "rate_limited", `${why} Retry after ${headers["RateLimit-Reset"]} s.`, {
    ...headers,
    "Retry-After": headers["RateLimit-Reset"],
  });
}
