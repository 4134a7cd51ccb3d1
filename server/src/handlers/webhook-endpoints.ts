import { resendSending } from "../webhooks/dispatch.js";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  listSendings,
  getSending,
  rotateSecret,
  sendEndpointTest,
  sendingView,
  updateEndpoint,
} from "../usecases/webhooks/index.js";
import type { Services } from "../services.js";
import { scopeOf, useCaseContext } from "./context.js";
import type { HandlerSet } from "./types.js";

type Ops =
  | "WebhookEndpoints_create"
  | "WebhookEndpoints_list"
  | "WebhookEndpoints_get"
  | "WebhookEndpoints_update"
  | "WebhookEndpoints_delete"
  | "WebhookEndpoints_rotateSecret"
  | "WebhookEndpoints_listSendings"
  | "WebhookSendings_resend"
  | "WebhookEndpoints_sendTest"
  | "WebhookSendings_get";

/** The club's webhook endpoints, a test to one on demand, and their sendings (a resend goes out on the worker's next pass). */
export function webhookEndpointHandlers(services: Services): HandlerSet<Ops> {
  const { db, clock, settings } = services;
  const policy = { allowPrivate: settings.allowPrivateWebhooks };
  return {
    async WebhookEndpoints_create(req, ctx) {
      return { status: 201, body: await createEndpoint(db, scopeOf(ctx), req.body, policy, clock.now()) };
    },
    async WebhookEndpoints_list(req, ctx) {
      return { status: 200, body: await listEndpoints(db, scopeOf(ctx), req.query) };
    },
    async WebhookEndpoints_get(req, ctx) {
      return { status: 200, body: await getEndpoint(db, scopeOf(ctx), req.path.id) };
    },
    async WebhookEndpoints_update(req, ctx) {
      return { status: 200, body: await updateEndpoint(db, scopeOf(ctx), req.path.id, req.body, policy, clock.now()) };
    },
    async WebhookEndpoints_delete(req, ctx) {
      return { status: 200, body: await deleteEndpoint(db, scopeOf(ctx), req.path.id, clock.now()) };
    },
    async WebhookEndpoints_rotateSecret(req, ctx) {
      return { status: 200, body: await rotateSecret(db, scopeOf(ctx), req.path.id, req.body, clock.now()) };
    },
    async WebhookEndpoints_listSendings(req, ctx) {
      return { status: 200, body: await listSendings(db, scopeOf(ctx), req.path.id, req.query) };
    },
    async WebhookSendings_resend(req, ctx) {
      return { status: 200, body: sendingView(await resendSending(db.em(), scopeOf(ctx), req.path.id, clock.now())) };
    },
    async WebhookEndpoints_sendTest(req, ctx) {
      const { scope, now, afterCommit } = useCaseContext(ctx, services);
      const body = await sendEndpointTest(db, scope, req.path.id, now);
      afterCommit("outbox");
      return { status: 200, body };
    },
    async WebhookSendings_get(req, ctx) {
      return { status: 200, body: await getSending(db, scopeOf(ctx), req.path.id) };
    },
  };
}
