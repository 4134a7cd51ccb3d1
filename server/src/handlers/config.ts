import { updateCashbackProgram } from "../usecases/cashback/index.js";
import { getDraft, getVersion, listVersions, publish, saveDraft } from "../usecases/club/index.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

type ConfigOps =
  | "ConfigVersions_getDraft"
  | "ConfigVersions_saveDraft"
  | "ConfigVersions_publish"
  | "ConfigVersions_list"
  | "ConfigVersions_getVersion"
  | "CashbackSettings_update";

/** Management of the club's configuration: drafts, publishing, history, and the cashback program. */
export function configVersionHandlers({ db, clock }: Services): HandlerSet<ConfigOps> {
  return {
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
    async CashbackSettings_update(req, ctx) {
      return { status: 200, body: await updateCashbackProgram(db, scopeOf(ctx), req.body, clock.now()) };
    },
  };
}
