import { Agent, type Dispatcher } from "undici";
import { ADDRESS_REFUSED, guardedLookup, isRefusedLiteralHost, parseWebhookUrl } from "../usecases/webhooks/index.js";
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
  let target: Target;
  try {
    target = targetOf(request.url);
  } catch (err) {
    return { ok: false, error: networkErrorText(err) };
  }
  const timestamp = Math.floor(options.now().getTime() / 1000);
  const headers = {
    "content-type": "application/json",
    "user-agent": "Clube-Webhooks/1.0",
    "x-clube-event": request.eventType,
    "x-clube-delivery": request.sendingId,
    "x-clube-signature": signPayload(request.secret, request.body, timestamp),
  };
  return new Promise<SendResult>((resolve) => {
    const attempt = new Attempt(timeoutMs, resolve);
    try {
      (options.guard ? guardedAgent : plainAgent).dispatch({ origin: target.origin, path: target.path, method: "POST", headers, body: request.body }, attempt);
    } catch (err) {
      attempt.onError(err as Error);
    }
  });
}

/** Where a URL's requests go, as the dispatcher takes it. */
interface Target {
  origin: string;
  path: string;
}

/** The targets of the URLs seen lately: an endpoint's URL is parsed once, not at every sending. */
const targets = new Map<string, Target>();
const TARGETS_KEPT = 1_000;

function targetOf(url: string): Target {
  let target = targets.get(url);
  if (target === undefined) {
    const parsed = new URL(url);
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    if (targets.size >= TARGETS_KEPT) targets.clear();
    targets.set(url, target);
  }
  return target;
}

/** What undici's `request` reads of a body it then dumps: past that, the socket is closed instead (body.dump()'s limit). */
const DUMPED_BODY_LIMIT = 128 * 1024;

/**
 * One attempt as an undici dispatch handler. undici's `request` API, used
 * before, wraps the same dispatch in an AsyncResource, an abort-signal
 * listener and a body stream per request that is then read only to be
 * dumped, which cost about twice the CPU per request
 * (docs/performance-log.md#queues-and-webhooks). Same outcome: the
 * status at the headers, the body read and dropped (the socket closed past
 * DUMPED_BODY_LIMIT, as dump() did), the whole attempt bounded by the timeout.
 */
class Attempt implements Dispatcher.DispatchHandlers {
  private statusCode = 0;
  private location: string | undefined;
  private received = 0;
  private settled = false;
  private timedOut = false;
  private abort: ((error?: Error) => void) | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly timeoutMs: number,
    private readonly resolve: (result: SendResult) => void,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      // Settled now, whatever the socket does next: a connect that hangs
      // would otherwise hold the attempt until undici's own connect timeout.
      this.settle();
      // Not yet on a socket (connecting): aborted as soon as it is, see onConnect.
      this.abort?.();
    }, timeoutMs);
  }

  onConnect(abort: (error?: Error) => void): void {
    this.abort = abort;
    if (this.timedOut) abort();
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[] | string[] | null): boolean {
    this.statusCode = statusCode;
    if (statusCode >= 300 && statusCode < 400 && rawHeaders) {
      for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
        if (rawHeaders[i].toString().toLowerCase() === "location") {
          this.location = rawHeaders[i + 1].toString();
          break;
        }
      }
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.received += chunk.length;
    if (this.received > DUMPED_BODY_LIMIT) {
      // The outcome is known; a receiver that keeps talking only loses its connection.
      this.finish(this.outcome());
      this.abort?.();
      return false;
    }
    return true;
  }

  onComplete(): void {
    this.finish(this.outcome());
  }

  onError(err: Error): void {
    this.settle(err);
  }

  /**
   * Ends the attempt on `err`, or on the timeout when called without one.
   * Once the status arrived it decides, whatever happens to the body (as when dump() failed).
   */
  private settle(err?: Error): void {
    if (this.statusCode !== 0) this.finish(this.outcome());
    else
      this.finish(
        this.timedOut || err === undefined ? { ok: false, error: `timeout after ${this.timeoutMs / 1000}s` } : { ok: false, error: networkErrorText(err) },
      );
  }

  private outcome(): SendResult {
    const statusCode = this.statusCode;
    if (statusCode >= 200 && statusCode < 300) return { ok: true, statusCode };
    if (statusCode >= 300 && statusCode < 400)
      return { ok: false, statusCode, error: `redirect ${statusCode} to ${this.location ?? "(no location)"} not followed` };
    return { ok: false, statusCode, error: `HTTP ${statusCode}` };
  }

  private finish(result: SendResult): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve(result);
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
