import { connect } from "node:net";
import type { Services } from "../services.js";
import type { HandlerSet } from "./types.js";

/**
 * How long each check may take: an unreachable dependency (a broker or
 * database host that drops packets, a pool waiting for a connection) must not
 * hold the health answer, which load balancers poll with their own short timeouts.
 */
const CHECK_TIMEOUT_MS = 2_000;

/**
 * GET /v1/health. `db` runs a query; `kv` is the store that holds idempotency
 * keys and caches — in Clube that is the same database (idempotency keys are
 * unique rows of the events table), so it is checked with a read of that table
 * rather than reported as a separate service we do not run. `broker` connects
 * to the RabbitMQ server of `AMQP_URL` (`not_configured` with the embedded
 * queue). `rate_limits` pings the Redis of `CLUBE_REDIS_URL` (`not_configured`
 * when the limits count in memory). Each check fails after CHECK_TIMEOUT_MS.
 * Any `error` makes the answer `degraded`; it still answers 200 so the caller
 * can read which dependency failed.
 */
export function healthHandlers(services: Services): HandlerSet<"Health_get"> {
  return {
    async Health_get() {
      const started = performance.now();
      const amqpUrl = services.settings.amqpUrl;
      const store = services.rateLimitStore;
      const [db, kv, broker, rate_limits] = await Promise.all([
        probe(() => services.db.em().getConnection().execute("select 1")),
        probe(() => services.db.em().getConnection().execute("select count(*) as n from (select 1 from events limit 1) as t")),
        amqpUrl ? probe(() => reachable(amqpUrl, CHECK_TIMEOUT_MS)) : Promise.resolve("not_configured" as const),
        store ? probe(() => store.ping(CHECK_TIMEOUT_MS)) : Promise.resolve("not_configured" as const),
      ]);
      const ok = db === "ok" && kv === "ok" && broker !== "error" && rate_limits !== "error";
      return {
        status: 200,
        body: {
          status: ok ? "ok" : "degraded",
          version: services.settings.version,
          env: services.settings.deployment,
          checks: { db, kv, broker, rate_limits },
          latency_ms: Math.round(performance.now() - started),
        },
      };
    },
  };
}

/** `ok` when the check resolves within CHECK_TIMEOUT_MS; `error` when it fails or takes longer (it is left to finish on its own). */
async function probe(check: () => Promise<unknown>): Promise<"ok" | "error"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"error">((resolve) => {
    timer = setTimeout(() => resolve("error"), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check().then(() => "ok" as const), timeout]);
  } catch {
    return "error";
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Resolves once a TCP connection to the broker's host and port opens (then
 * closes it); rejects on a refused connection or after `timeoutMs`. A TCP
 * connection rather than a full AMQP session: the check must stay cheap for
 * load balancers that poll it, and the queue client reports login problems itself.
 */
function reachable(amqpUrl: string, timeoutMs: number): Promise<void> {
  const url = new URL(amqpUrl);
  const port = url.port ? Number(url.port) : url.protocol === "amqps:" ? 5671 : 5672;
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, timeout: timeoutMs });
    socket.once("connect", () => {
      socket.destroy();
      resolve();
    });
    socket.once("timeout", () => {
      socket.destroy();
      reject(new Error(`no connection to the broker within ${timeoutMs} ms`));
    });
    socket.once("error", (error) => {
      socket.destroy();
      reject(error);
    });
  });
}
