import { createRequester, type Requester } from "../../sdk-shared/src/request.js";
import { type BackoffPolicy, defaultBackoff } from "./backoff.js";
import { ClubeResources, MeResource } from "./generated/resources.js";
import { idempotencyKey } from "./idempotency.js";
import { createTransport, type FetchFn } from "./transport.js";
import { VERSION } from "./version.js";
import { signTestWebhook, verifyWebhook } from "./webhooks.js";

export interface ClubeOptions {
  /** Secret key, `cf_test_…` or `cf_live_…`: it selects the club and the environment. Server side only. */
  apiKey: string;
  /** Default `http://localhost:3000`. */
  baseUrl?: string;
  /** Per attempt, until the whole answer is read. Default 30000; a call's `timeoutMs` overrides it. */
  timeoutMs?: number;
  /** Further attempts for reads and keyed writes after a network error, timeout, 429 or 5xx. Default 2. */
  maxRetries?: number;
  /** A fetch implementation; defaults to the global `fetch`. */
  fetch?: FetchFn;
  /** How long to wait between attempts; `random` and `sleep` are replaceable for tests. */
  retry?: Partial<BackoffPolicy> & { random?: () => number; sleep?: (ms: number) => Promise<void> };
  /** Appended to the `User-Agent` (e.g. `my-app/2.1`). */
  appInfo?: string;
}

/**
 * The Clube API from your server. Every method resolves with the documented
 * success body (its answer's request id in `result.lastResponse.requestId`)
 * and throws a `ClubeError` otherwise. The resources (`participants`,
 * `events`, `deliveries`, …) are generated from the contract.
 */
export class Clube extends ClubeResources {
  /** Webhook signatures: `verify` an incoming webhook, `signTest` a header for your own tests. */
  readonly webhooks = { verify: verifyWebhook, signTest: signTestWebhook };
  readonly #options: ClubeOptions;
  readonly #send: ReturnType<typeof createTransport>;

  constructor(options: ClubeOptions) {
    if (!options?.apiKey) throw new TypeError("apiKey is required (cf_test_… or cf_live_…)");
    const send = transportOf(options);
    super(requesterOf(options, send, {}));
    this.#options = options;
    this.#send = send;
  }

  /** Headless mode: the participant surface `/v1/me/*` on behalf of `externalId` (sent as `X-Participant`). */
  me(externalId: string): MeResource {
    if (!externalId) throw new TypeError("externalId is required");
    return new MeResource(requesterOf(this.#options, this.#send, { "X-Participant": externalId }));
  }
}

function transportOf(options: ClubeOptions) {
  const { random = Math.random, sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)), ...policy } = options.retry ?? {};
  return createTransport({
    fetch: options.fetch ?? ((request) => fetch(request)),
    timeoutMs: options.timeoutMs ?? 30_000,
    maxRetries: options.maxRetries ?? 2,
    backoff: { ...defaultBackoff, ...policy },
    random,
    sleep,
  });
}

function requesterOf(options: ClubeOptions, send: ReturnType<typeof createTransport>, extra: Record<string, string>): Requester {
  const userAgent = `clube-node/${VERSION} node/${process.version}${options.appInfo ? ` ${options.appInfo}` : ""}`;
  return createRequester({
    baseUrl: options.baseUrl ?? "http://localhost:3000",
    send,
    // A public route (health) is called without the secret key.
    headers: (call) => ({ "User-Agent": userAgent, ...(call.public ? {} : { Authorization: `Bearer ${options.apiKey}`, ...extra }) }),
    newIdempotencyKey: () => idempotencyKey(),
  });
}
