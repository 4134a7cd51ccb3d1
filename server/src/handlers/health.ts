import { connect } from "node:net";
import type { Services } from "../services.js";
import type { HandlerSet } from "./types.js";

/** How long the broker check waits for a connection: an unreachable broker must not hold the health answer. */
const BROKER_TIMEOUT_MS = 2_000;

/**
 * GET /v1/health. `db` runs a query; `kv` is the store that holds idempotency
 * keys and caches — in Clube that is the same database (idempotency keys are
 * unique rows of the events table), so it is checked with a read of that table
 * rather than reported as a separate service we do not run. `broker` connects
 * to the RabbitMQ server of `AMQP_URL` (`not_configured` with the embedded
 * queue). Any `error` makes the answer `degraded`; it still answers 200 so the
 * caller can read which dependency failed.
 */
export function healthHandlers(services: Services): HandlerSet<"Health_get"> {
  return {
    async Health_get() {
      const started = performance.now();
      const amqpUrl = services.settings.amqpUrl;
      const [db, kv, broker] = await Promise.all([
        probe(() => services.db.em().getConnection().execute("select 1")),
        probe(() => services.db.em().getConnection().execute("select count(*) as n from (select 1 from events limit 1) as t")),
        amqpUrl ? probe(() => reachable(amqpUrl, BROKER_TIMEOUT_MS)) : Promise.resolve("not_configured" as const),
      ]);
      const ok = db === "ok" && kv === "ok" && broker !== "error";
      return {
        status: 200,
        body: {
          status: ok ? "ok" : "degraded",
          version: services.settings.version,
          env: services.settings.deployment,
          checks: { db, kv, broker },
          latency_ms: Math.round(performance.now() - started),
        },
      };
    },
  };
}

async function probe(check: () => Promise<unknown>): Promise<"ok" | "error"> {
  try {
    await check();
    return "ok";
  } catch {
    return "error";
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
