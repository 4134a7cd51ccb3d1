import createClient, { type Client } from "openapi-fetch";
import type { paths } from "../../generated/types.js";
import { createMeMethods, type MeMethods } from "../../sdk-browser/src/me.js";
import { type BackoffPolicy, defaultBackoff } from "./backoff.js";
import { idempotencyKey } from "./idempotency.js";
import { affiliatesResource } from "./resources/affiliates.js";
import { cashbackResource } from "./resources/cashback.js";
import { configResource } from "./resources/config.js";
import { deliveriesResource } from "./resources/deliveries.js";
import { eventsResource } from "./resources/events.js";
import { gamesResource } from "./resources/games.js";
import { healthResource } from "./resources/health.js";
import { keyResource } from "./resources/key.js";
import { participantsResource } from "./resources/participants.js";
import { redemptionsResource } from "./resources/redemptions.js";
import { referralsResource } from "./resources/referrals.js";
import { tournamentsResource } from "./resources/tournaments.js";
import { warningsResource } from "./resources/warnings.js";
import { testClockResource } from "./resources/test-clock.js";
import { webhookEndpointsResource } from "./resources/webhook-endpoints.js";
import { createTransport, type FetchFn } from "./transport.js";
import { verifyWebhook } from "./webhooks.js";

export interface ClubeOptions {
  /** Secret key, `cf_test_…` or `cf_live_…`: it selects the club and the environment. Server side only. */
  apiKey: string;
  /** Default `http://localhost:3000`. */
  baseUrl?: string;
  /** Per attempt, until the whole answer is read. Default 30000. */
  timeoutMs?: number;
  /** Further attempts for reads and keyed writes after a network error, timeout, 429 or 5xx. Default 2. */
  maxRetries?: number;
  /** A fetch implementation; defaults to the global `fetch`. */
  fetch?: FetchFn;
  /** How long to wait between attempts; `random` and `sleep` are replaceable for tests. */
  retry?: Partial<BackoffPolicy> & { random?: () => number; sleep?: (ms: number) => Promise<void> };
}

/**
 * The Clube API from your server. Every method resolves with the documented
 * success body and throws a `ClubeError` otherwise.
 */
export class Clube {
  readonly health: ReturnType<typeof healthResource>;
  readonly participants: ReturnType<typeof participantsResource>;
  readonly events: ReturnType<typeof eventsResource>;
  readonly deliveries: ReturnType<typeof deliveriesResource>;
  readonly redemptions: ReturnType<typeof redemptionsResource>;
  readonly referrals: ReturnType<typeof referralsResource>;
  readonly affiliates: ReturnType<typeof affiliatesResource>;
  readonly config: ReturnType<typeof configResource>;
  readonly cashback: ReturnType<typeof cashbackResource>;
  readonly key: ReturnType<typeof keyResource>;
  readonly games: ReturnType<typeof gamesResource>;
  readonly webhookEndpoints: ReturnType<typeof webhookEndpointsResource>;
  readonly warnings: ReturnType<typeof warningsResource>;
  readonly tournaments: ReturnType<typeof tournamentsResource>;
  readonly testClock: ReturnType<typeof testClockResource>;
  /** Checks an incoming webhook's signature; the same function as the standalone `verifyWebhook`. */
  readonly webhooks = { verify: verifyWebhook };
  readonly #api: Client<paths>;

  constructor(options: ClubeOptions) {
    if (!options.apiKey) throw new TypeError("apiKey is required (cf_test_… or cf_live_…)");
    const { random = Math.random, sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)), ...policy } = options.retry ?? {};
    const transport = createTransport({
      fetch: options.fetch ?? ((request) => fetch(request)),
      timeoutMs: options.timeoutMs ?? 30_000,
      maxRetries: options.maxRetries ?? 2,
      backoff: { ...defaultBackoff, ...policy },
      random,
      sleep,
    });
    const api = createClient<paths>({
      baseUrl: options.baseUrl ?? "http://localhost:3000",
      fetch: transport,
      headers: { Authorization: `Bearer ${options.apiKey}` },
    });
    this.#api = api;
    this.health = healthResource(api);
    this.participants = participantsResource(api);
    this.events = eventsResource(api);
    this.deliveries = deliveriesResource(api);
    this.redemptions = redemptionsResource(api);
    this.referrals = referralsResource(api);
    this.affiliates = affiliatesResource(api);
    this.config = configResource(api);
    this.cashback = cashbackResource(api);
    this.key = keyResource(api);
    this.games = gamesResource(api);
    this.webhookEndpoints = webhookEndpointsResource(api);
    this.warnings = warningsResource(api);
    this.tournaments = tournamentsResource(api);
    this.testClock = testClockResource(api);
  }

  /** Headless mode: the participant surface `/v1/me/*` on behalf of `externalId` (sent as `X-Participant`). */
  me(externalId: string): MeMethods {
    return createMeMethods(this.#api, { headers: { "X-Participant": externalId }, idempotencyKey });
  }
}
