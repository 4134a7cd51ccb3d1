import { Redis } from "ioredis";

/**
 * The shared store of the rate limits when several processes serve the API
 * (`CLUBE_REDIS_URL`). Redis rather than PostgreSQL: a limit is checked on
 * every request, and Redis counts with one atomic INCR + TTL per request in
 * memory, while a database counter would add a write (and its row lock and
 * WAL) to the hot path of every call and compete with the money transactions.
 * Counts are disposable, so Redis' weaker durability costs nothing here.
 */
export interface RateLimitStore {
  client: Redis;
  /** Prepended to every key (`<prefix>:rl:<limit>:<caller>`): deployments (and test runs) sharing a Redis never collide. */
  prefix: string;
  /** Resolves when Redis answers PING within `timeoutMs`; rejects otherwise (health check). */
  ping(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

/** ioredis' states while a connection attempt is under way. */
const OPENING = new Set(["wait", "connecting", "connect"]);

/** How long one Redis command may take before the request falls back to the in-memory limiter. */
const COMMAND_TIMEOUT_MS = 500;

export function openRateLimitStore(url: string, prefix: string): RateLimitStore {
  const client = new Redis(url, {
    // Fail at once while disconnected (no queue of commands waiting for Redis):
    // the limiter then counts in memory, so a request never waits for or fails on Redis.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: 2_000,
    // Keep reconnecting in the background, at most every 2 s.
    retryStrategy: (times) => Math.min(times * 200, 2_000),
  });
  // Connection errors are reported by the health check; without a listener ioredis logs each retry.
  client.on("error", () => {});
  return {
    client,
    prefix,
    async ping(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      let settle: ((error?: Error) => void) | undefined;
      try {
        await Promise.race([
          // Without an offline queue a PING sent while a connection is still opening fails at once, so a
          // process that has just started waits for that attempt (ready, or its error) within the timeout.
          (OPENING.has(client.status)
            ? new Promise<void>((resolve, reject) => {
                settle = (error) => (error ? reject(error) : resolve());
                client.once("ready", settle).once("error", settle);
              })
            : Promise.resolve()
          ).then(() => client.ping()),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`Redis did not answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
      } finally {
        clearTimeout(timer);
        if (settle) client.off("ready", settle).off("error", settle);
      }
    },
    async close() {
      client.disconnect();
    },
  };
}
