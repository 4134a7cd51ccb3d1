import { Agent, request as undiciRequest } from "undici";
import { ADDRESS_REFUSED, guardedLookup, isRefusedLiteralHost, parseWebhookUrl } from "../usecases/webhook-address.js";
import { signPayload } from "./signature.js";

/** The seed's limit: the client answers within 10 seconds. */
export const DEFAULT_SEND_TIMEOUT_MS = 10_000;

export interface WebhookRequest {
  url: string;
  /** The endpoint secret (`whsec_…`), used as the HMAC key exactly as given; during a rotation's overlap the new and the old one (one `v1` each). */
  secret: string | readonly string[];
  eventType: string;
  /** The sending id (`whd_…`), sent as X-Clube-Delivery. */
  sendingId: string;
  /** The stored envelope, sent byte for byte. */
  body: string;
}

export interface SendResult {
  ok: boolean;
  /** The HTTP status when the endpoint answered at all. */
  statusCode?: number;
  /** Why the attempt failed, short enough for the console's "last error". */
  error?: string;
}

export interface SenderOptions {
  /** The clock used for the signature timestamp. */
  now: () => Date;
  timeoutMs?: number;
  /**
   * Refuse special-purpose addresses (live endpoints unless
   * `CLUBE_ALLOW_PRIVATE_WEBHOOKS=1`): the address actually connected to is
   * checked, see webhook-address.ts.
   */
  guard?: boolean;
}

/**
 * The one message for every refused address, whatever the port's state, so
 * the sendings log is no port-scan oracle (no connect is ever attempted).
 */
export const REFUSED_MESSAGE = "refused: the endpoint's address is not allowed for live webhooks";

/**
 * The two connection pools every sending goes through: kept-alive sockets
 * (a TCP handshake per request cost more than the request itself), one
 * request at a time per socket (no pipelining: a slow answer must not hold
 * back the next notice). The guarded pool resolves names through the address
 * guard when it opens a socket, so a reused socket is one already connected
 * to a checked address (IP literals are checked before, see sendWebhook).
 */
const plainAgent = new Agent({ pipelining: 1 });
const guardedAgent = new Agent({ pipelining: 1, connect: { lookup: guardedLookup as never } });

/**
 * Makes one delivery attempt. Success is any 2xx within the timeout; the
 * response body is never read (clients answer first and work later).
 *
 * Redirects are not followed: the request carries a signed payload, and
 * following a 3xx would hand it to whatever host the endpoint points at —
 * possibly one the club never registered. A redirect counts as a failed
 * attempt whose error says where it pointed, so the club can fix the URL.
 *
 * The signature is computed now, not when the sending was created, so a retry
 * hours later still passes the receiver's 5-minute age check.
 */
export async function sendWebhook(request: WebhookRequest, options: SenderOptions): Promise<SendResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
  if (options.guard) {
    const url = parseWebhookUrl(request.url);
    if (!url || isRefusedLiteralHost(url)) return { ok: false, error: url ? REFUSED_MESSAGE : "invalid URL" };
  }
  const timestamp = Math.floor(options.now().getTime() / 1000);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    // undici's request, not fetch: no WHATWG streams, Headers and Response per request, for the same bytes on the wire.
    const response = await undiciRequest(request.url, {
      method: "POST",
      dispatcher: options.guard ? guardedAgent : plainAgent,
      signal: abort.signal,
      headers: {
        "content-type": "application/json",
        "user-agent": "Clube-Webhooks/1.0",
        "x-clube-event": request.eventType,
        "x-clube-delivery": request.sendingId,
        "x-clube-signature": signPayload(request.secret, request.body, timestamp),
      },
      body: request.body,
    });
    // Release the connection for the next request without keeping a body nobody reads.
    await response.body.dump().catch(() => undefined);
    const statusCode = response.statusCode;
    if (statusCode >= 200 && statusCode < 300) return { ok: true, statusCode };
    if (statusCode >= 300 && statusCode < 400) {
      const location = response.headers.location;
      return { ok: false, statusCode, error: `redirect ${statusCode} to ${(Array.isArray(location) ? location[0] : location) ?? "(no location)"} not followed` };
    }
    return { ok: false, statusCode, error: `HTTP ${statusCode}` };
  } catch (err) {
    if (abort.signal.aborted) return { ok: false, error: `timeout after ${timeoutMs / 1000}s` };
    return { ok: false, error: networkErrorText(err) };
  } finally {
    clearTimeout(timer);
  }
}

/** Plain words for the socket errors a club can fix on its side. */
const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  // A kept-alive socket the endpoint closed as the request went out: the same failure class as a reset.
  UND_ERR_SOCKET: "connection closed by the endpoint",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  UND_ERR_CONNECT_TIMEOUT: "connect timeout",
  CERT_HAS_EXPIRED: "TLS certificate expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "self-signed TLS certificate",
};

/** undici raises socket errors with their code on the error itself, sometimes (a failed connect) on its `cause`. */
function networkErrorText(err: unknown): string {
  const error = err as { code?: string; message?: string; cause?: { code?: string; message?: string } } | null;
  const code = error?.cause?.code ?? error?.code;
  if (code === ADDRESS_REFUSED) return REFUSED_MESSAGE;
  if (code && code in NETWORK_ERRORS) return NETWORK_ERRORS[code];
  if (code) return `network error: ${code}`;
  return `network error: ${error?.cause?.message ?? (err instanceof Error ? err.message : String(err))}`;
}
