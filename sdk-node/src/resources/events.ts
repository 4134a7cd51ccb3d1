import type { Client } from "openapi-fetch";
import type { paths } from "../../../generated/types.js";
import { unwrap } from "../../../sdk-browser/src/unwrap.js";
import { idempotencyKey } from "../idempotency.js";
import type { EventBatchResult, EventResult, EventsQueued, QueryParams, RequestBody } from "../types.js";

type EventInput = RequestBody<"Events_send">;

export interface SendEventOptions {
  /** Deduplication key; defaults to the event's `id`, else a random UUID (so retries never count the event twice). */
  idempotencyKey?: string;
  /** Queue the event and answer at once (`Prefer: respond-async`, 202 `EventsQueued`) instead of evaluating it in the call. */
  async?: boolean;
}

export function eventsResource(api: Client<paths>) {
  function send(event: EventInput, options: SendEventOptions & { async: true }): Promise<EventsQueued>;
  function send(event: EventInput, options?: SendEventOptions & { async?: false }): Promise<EventResult>;
  function send(event: EventInput, options?: SendEventOptions): Promise<EventResult | EventsQueued>;
  function send(event: EventInput, options: SendEventOptions = {}): Promise<EventResult | EventsQueued> {
    const header = { "Idempotency-Key": idempotencyKey(options.idempotencyKey ?? event.id), ...preferAsync(options.async) };
    return unwrap(api.POST("/v1/events", { body: event, params: { header } }));
  }

  /**
   * Sends up to 500 events in one call. A batch carries no idempotency key,
   * so it is not retried automatically; give every event an `id` and a
   * repeated batch counts nothing twice.
   */
  function sendBatch(events: EventInput[], options: { async: true }): Promise<EventsQueued>;
  function sendBatch(events: EventInput[], options?: { async?: false }): Promise<EventBatchResult>;
  function sendBatch(events: EventInput[], options?: { async?: boolean }): Promise<EventBatchResult | EventsQueued>;
  function sendBatch(events: EventInput[], options: { async?: boolean } = {}): Promise<EventBatchResult | EventsQueued> {
    return unwrap(api.POST("/v1/events/batch", { body: { events }, params: { header: preferAsync(options.async) } }));
  }

  return {
    send,
    sendBatch,
    /** The latest received events (the event log), newest first. */
    list: (query?: QueryParams<"EventLog_list">) => unwrap(api.GET("/v1/events", { params: { query } })),
    /** Evaluates a test event (marked `meta.test`, shown in the event log). */
    test: (event: RequestBody<"EventLog_sendTest">) => unwrap(api.POST("/v1/events/test", { body: event })),
  };
}

function preferAsync(async: boolean | undefined): { Prefer?: "respond-async" } {
  return async ? { Prefer: "respond-async" } : {};
}
