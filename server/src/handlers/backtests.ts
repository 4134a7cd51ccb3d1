import { runBacktest } from "../usecases/backtest/run-backtest.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

/** Backtests of configuration versions (read only). */
export function backtestHandlers({ db }: Services): HandlerSet<"Backtests_run"> {
  return {
    async Backtests_run(req, ctx) {
      return { status: 200, body: await runBacktest(db, scopeOf(ctx), req.path.version, req.body) };
    },
  };
}
