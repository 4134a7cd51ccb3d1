import { ingestBatch, ingestEvent, queueEvents } from "../usecases/events/index.js";
import { checkEngineInputs } from "../usecases/events/index.js";
import type { Services } from "../services.js";
import { useCaseContext } from "./context.js";
import type { HandlerSet } from "./types.js";

/** RFC 7240: `Prefer: respond-async` (possibly among other preferences). */
export function prefersAsync(prefer: string | undefined): boolean {
  return (prefer ?? "").split(",").some((token) => token.trim().toLowerCase() === "respond-async");
}

const ASYNC_APPLIED = { "Preference-Applied": "respond-async" } as const;

/**
 * Events in. Synchronously they are evaluated before the answer; with
 * `Prefer: respond-async` they are stored durably as queued (with an outbox
 * row, or the embedded queue's job, in the same transaction) and answered
 * 202 at once — a worker processes them with the same idempotency rules.
 * The relay is woken after a commit only when it wrote outbox rows (the use
 * case tells the request's after-commit hook): a pass that finds nothing is
 * a wasted query per event.
 */
export function eventHandlers(services: Services): HandlerSet<"Events_send" | "Events_sendBatch"> {
  const { settings } = services;
  return {
    async Events_send(req, ctx) {
      const { db, scope, now, afterCommit } = useCaseContext(ctx, services);
      const idempotencyKey = req.headers["idempotency-key"];
      if (prefersAsync(req.headers.prefer)) {
        checkEngineInputs([req.body], () => "body");
        const queued = await queueEvents(db, scope, [req.body], { now, idempotencyKey, afterCommit });
        return { status: 202, body: queued, headers: ASYNC_APPLIED };
      }
      const trace = req.query.trace === true;
      const result = await ingestEvent(db, scope, req.body, { now, publicUrl: settings.publicUrl, idempotencyKey, trace, afterCommit });
      return { status: 200, body: result };
    },
    async Events_sendBatch(req, ctx) {
      const { db, scope, now, afterCommit } = useCaseContext(ctx, services);
      if (prefersAsync(req.headers.prefer)) {
        checkEngineInputs(req.body.events, (i) => `body.events[${i}]`);
        const queued = await queueEvents(db, scope, req.body.events, { now, afterCommit });
        return { status: 202, body: queued, headers: ASYNC_APPLIED };
      }
      const results = await ingestBatch(db, scope, req.body.events, { now, publicUrl: settings.publicUrl, afterCommit });
      return { status: 200, body: results };
    },
  };
}
