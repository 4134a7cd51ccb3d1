import { getBacktest, startBacktest } from "../usecases/sandbox/index.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
import { prefersAsync } from "./events.js";
import type { HandlerSet } from "./types.js";

/** Backtests of configuration versions (read only; large ones run as jobs). */
export function backtestHandlers(services: Services): HandlerSet<"Backtests_run" | "Backtests_get"> {
  const { db, clock } = services;
  return {
    async Backtests_run(req, ctx) {
      const started = await startBacktest(db, scopeOf(ctx), req.path.version, req.body, { now: clock.now(), async: prefersAsync(req.headers.prefer) });
      if (started.status === 202) services.jobsChanged();
      return started;
    },
    async Backtests_get(req, ctx) {
      return { status: 200, body: await getBacktest(db, scopeOf(ctx), req.path.id) };
    },
  };
}
