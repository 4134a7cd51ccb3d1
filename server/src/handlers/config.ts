import { getDraft, getVersion, listVersions, publish, requirePublishedConfig, saveDraft } from "../usecases/club/index.js";
import { getBacktest, startBacktest } from "../usecases/sandbox/index.js";
import type { Services } from "../services.js";
import { scopeOf, useCaseContext } from "./context.js";
import { prefersAsync } from "./events.js";
import type { HandlerSet } from "./types.js";

/** The seed lets callers cache the configuration and the cashback program for 60 seconds. */
export const CALLER_CACHE = "private, max-age=60";

type ConfigOps =
  | "Config_get"
  | "ConfigVersions_getDraft"
  | "ConfigVersions_saveDraft"
  | "ConfigVersions_publish"
  | "ConfigVersions_list"
  | "ConfigVersions_getVersion"
  | "Backtests_run"
  | "Backtests_get";

/** The club's configuration: the published one, drafts, publishing, history, and backtests of versions (large ones run as jobs). */
export function configHandlers(services: Services): HandlerSet<ConfigOps> {
  const { db, clock } = services;
  return {
    async Config_get(_req, ctx) {
      const scope = scopeOf(ctx);
      const { config } = await requirePublishedConfig(db, scope);
      return { status: 200, body: { club_id: scope.clubId, env: scope.env, config }, headers: { "Cache-Control": CALLER_CACHE } };
    },
    async ConfigVersions_getDraft(_req, ctx) {
      return { status: 200, body: await getDraft(db, scopeOf(ctx)) };
    },
    async ConfigVersions_saveDraft(req, ctx) {
      return { status: 200, body: await saveDraft(db, scopeOf(ctx), req.body, clock.now()) };
    },
    async ConfigVersions_publish(req, ctx) {
      return { status: 200, body: await publish(db, scopeOf(ctx), req.body?.version, clock.now()) };
    },
    async ConfigVersions_list(req, ctx) {
      return { status: 200, body: await listVersions(db, scopeOf(ctx), req.query) };
    },
    async ConfigVersions_getVersion(req, ctx) {
      return { status: 200, body: await getVersion(db, scopeOf(ctx), req.path.version) };
    },
    async Backtests_run(req, ctx) {
      const { scope, now, afterCommit } = useCaseContext(ctx, services);
      const started = await startBacktest(db, scope, req.path.version, req.body, { now, async: prefersAsync(req.headers.prefer) });
      // A backtest run as a job was stored with its outbox row.
      if (started.status === 202) afterCommit("outbox");
      return started;
    },
    async Backtests_get(req, ctx) {
      return { status: 200, body: await getBacktest(db, scopeOf(ctx), req.path.id) };
    },
  };
}
