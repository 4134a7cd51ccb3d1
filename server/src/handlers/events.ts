import { ingestBatch, ingestEvent, queueEvents } from "../usecases/events/index.js";
import { checkEngineInputs } from "../usecases/events/index.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
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
 */
export function eventHandlers(services: Services): HandlerSet<"Events_send" | "Events_sendBatch" | "EventLog_sendTest"> {
  const { db, clock, settings } = services;
  // The relay is woken only after a commit that wrote outbox rows: a pass that finds nothing is a wasted query per event.
  const wakeRelay = (outbox: { written: boolean }) => {
    if (outbox.written) services.jobsChanged();
  };
  return {
    async Events_send(req, ctx) {
      const scope = scopeOf(ctx);
      const idempotencyKey = req.headers["idempotency-key"];
      if (prefersAsync(req.headers.prefer)) {
        checkEngineInputs([req.body], () => "body");
        const outbox = { written: false };
        const queued = await queueEvents(db, scope, [req.body], { now: clock.now(), idempotencyKey, outbox });
        wakeRelay(outbox);
        return { status: 202, body: queued, headers: ASYNC_APPLIED };
      }
      const trace = req.query.trace === true;
      const outbox = { written: false };
      const result = await ingestEvent(db, scope, req.body, { now: clock.now(), publicUrl: settings.publicUrl, idempotencyKey, trace, outbox });
      wakeRelay(outbox);
      return { status: 200, body: result };
    },
    async Events_sendBatch(req, ctx) {
      const scope = scopeOf(ctx);
      if (prefersAsync(req.headers.prefer)) {
        checkEngineInputs(req.body.events, (i) => `body.events[${i}]`);
        const outbox = { written: false };
        const queued = await queueEvents(db, scope, req.body.events, { now: clock.now(), outbox });
        wakeRelay(outbox);
        return { status: 202, body: queued, headers: ASYNC_APPLIED };
      }
      const outbox = { written: false };
      const results = await ingestBatch(db, scope, req.body.events, { now: clock.now(), publicUrl: settings.publicUrl, outbox });
      wakeRelay(outbox);
      return { status: 200, body: results };
    },
    async EventLog_sendTest(req, ctx) {
      // A test event is a real event marked `meta.test`, so the console shows exactly what the rules do with it.
      const event = { ...req.body, meta: { ...req.body.meta, test: true } };
      const outbox = { written: false };
      const result = await ingestEvent(db, scopeOf(ctx), event, { now: clock.now(), publicUrl: settings.publicUrl, trace: true, outbox });
      wakeRelay(outbox);
      return { status: 200, body: result };
    },
  };
}
