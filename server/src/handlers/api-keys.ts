import { createApiKey, getKeyInfo, listApiKeys, revokeApiKey, rollApiKey } from "../usecases/club/index.js";
import type { Services } from "../services.js";
import { keyIdOf, scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

type Ops = "Keys_get" | "ApiKeys_list" | "ApiKeys_create" | "ApiKeys_roll" | "ApiKeys_revoke";

/**
 * API keys: the calling key itself, and their management. Keys expire in
 * real time (like tokens), so these read the real clock, never a test clock.
 */
export function apiKeyHandlers({ db, clock, realClock }: Services): HandlerSet<Ops> {
  const now = () => (realClock ?? clock).now();
  return {
    async Keys_get(_req, ctx) {
      return { status: 200, body: await getKeyInfo(db, scopeOf(ctx), keyIdOf(ctx)) };
    },
    async ApiKeys_list(req, ctx) {
      return { status: 200, body: await listApiKeys(db, scopeOf(ctx), req.query) };
    },
    async ApiKeys_create(_req, ctx) {
      return { status: 201, body: await createApiKey(db, scopeOf(ctx), now()) };
    },
    async ApiKeys_roll(req, ctx) {
      return { status: 200, body: await rollApiKey(db, scopeOf(ctx), req.path.id, req.body.expire_old_after_seconds ?? 0, now()) };
    },
    async ApiKeys_revoke(req, ctx) {
      return { status: 200, body: await revokeApiKey(db, scopeOf(ctx), req.path.id, now()) };
    },
  };
}
