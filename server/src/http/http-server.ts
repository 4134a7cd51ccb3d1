import { createServer, type RequestListener, type Server } from "node:http";

/**
 * How long a client may take to send a request. Node's defaults (5 minutes
 * for a whole request, checked every 30 s) let a client that announces a body
 * and sends it a few bytes at a time hold a connection and its memory for
 * minutes; many such clients exhaust the server.
 */
export interface ServerTimeouts {
  /** Receiving the request headers (Node's `headersTimeout`). */
  headersMs: number;
  /** Receiving the whole request, headers and body (`requestTimeout`): the bound on a slow body. */
  requestMs: number;
  /** An idle kept-alive connection between requests (`keepAliveTimeout`). */
  keepAliveMs: number;
  /** How often Node checks the two request bounds (`connectionsCheckingInterval`); a late request is cut off within this much after its bound. */
  checkEveryMs: number;
}

/**
 * Headers in 10 s, the whole request in 30 s: a real client sends the largest
 * accepted body (an events batch, ~1 MB) in far less, even on a slow link.
 */
export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000, checkEveryMs: 1_000 };

/**
 * The HTTP server of the API with the request bounds applied. A request not
 * received in time is answered 408 by Node and its connection closed.
 */
export function createHttpServer(handler: RequestListener, timeouts: ServerTimeouts = DEFAULT_SERVER_TIMEOUTS): Server {
  const server = createServer(
    {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: timeouts.checkEveryMs,
    },
    handler,
  );
  server.keepAliveTimeout = timeouts.keepAliveMs;
  return server;
}
