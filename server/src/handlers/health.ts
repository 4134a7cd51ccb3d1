import type { Services } from "../services.js";
import type { HandlerSet } from "./types.js";

/**
 * GET /v1/health. `db` runs a query; `kv` is the store that holds idempotency
 * keys and caches — in Clube that is the same database (idempotency keys are
 * unique rows of the events table), so it is checked with a read of that table
 * rather than reported as a separate service we do not run.
 */
export function healthHandlers(services: Services): HandlerSet<"Health_get"> {
  return {
    async Health_get() {
      const started = performance.now();
      const db = await probe(() => services.db.em().getConnection().execute("select 1"));
      const kv = await probe(() => services.db.em().getConnection().execute("select count(*) as n from (select 1 from events limit 1) as t"));
      const ok = db === "ok" && kv === "ok";
      return {
        status: 200,
        body: {
          status: ok ? "ok" : "degraded",
          version: services.settings.version,
          env: services.settings.deployment,
          checks: { db, kv },
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
