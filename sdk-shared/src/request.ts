// The one request path of both SDKs: builds the URL and headers of a call
// described by the generated resource layer, sends it through the SDK's
// transport (retries and timeouts in Node, token refresh in the browser),
// and turns the answer into "the typed body with `lastResponse`" or a thrown
// `ClubeError`. Only standard fetch API: it runs in Node and in browsers.
import { ClubeError, errorFromResponse } from "./errors.js";

/** Options every method takes as its last argument. */
export interface RequestOptions {
  /** `Idempotency-Key` for operations that take one; a repeated key answers the stored result instead of acting twice. */
  idempotencyKey?: string;
  /** Overrides the client's timeout for this call (per attempt, until the whole answer is read). */
  timeoutMs?: number;
  /** Aborts the call (and any retry) when it fires; the call rejects with code `aborted`. */
  signal?: AbortSignal;
  /** Extra headers for this call. */
  headers?: Record<string, string>;
}

/** Options of an operation that can answer later (`202`): `async: true` sends `Prefer: respond-async`. */
export interface AsyncRequestOptions extends RequestOptions {
  /** Queue the work and answer `202` at once instead of doing it within the call. */
  async?: boolean;
}

/** What the SDK knows of the answer a result came from. */
export interface ResponseMeta {
  status: number;
  /** The `X-Request-Id` to quote to support. */
  requestId: string | null;
  headers: Headers;
}

/** A result body with the answer it came from as the non-enumerable `lastResponse` (JSON.stringify leaves it out). */
export type WithResponse<T> = T & { readonly lastResponse: ResponseMeta };

/** One operation call, as the generated resource layer describes it. @public (named in Requester) */
export interface Call {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** The contract's path template, e.g. `/v1/participants/{external_id}`. */
  path: string;
  pathParams?: Record<string, string | number>;
  query?: object;
  body?: unknown;
  /** The operation takes an `Idempotency-Key` header. */
  idempotent?: boolean;
  /** Send `Prefer: respond-async` (operations that can answer 202). */
  respondAsync?: boolean;
  /** A public operation: sent without credentials. */
  public?: boolean;
}

/** How a client sends a built request; it may throw a `ClubeError` (network error, timeout). */
/** `repeatable`: the server applies the call once however often it arrives (an event keyed by its own `id`). */
export type SendFn = (request: Request, options: { timeoutMs?: number; repeatable?: boolean }) => Promise<Response>;

export interface RequesterOptions {
  baseUrl: string;
  send: SendFn;
  /** Headers of every call (credentials included unless the call is public). */
  headers: (call: Call) => Record<string, string>;
  /** The key for an idempotent call the caller gave none for; `undefined` sends none. */
  newIdempotencyKey: () => string | undefined;
  /** Explains a fetch that failed without an answer (the browser adds the CORS hint). */
  describeNetworkError?: (url: string, error: unknown) => string;
}

export type Requester = <T>(call: Call, options?: RequestOptions) => Promise<WithResponse<T>>;

export function createRequester(config: RequesterOptions): Requester {
  const baseUrl = config.baseUrl.replace(/\/+$/, "");
  return async <T>(call: Call, options: RequestOptions = {}): Promise<WithResponse<T>> => {
    const url = baseUrl + fillPath(call.path, call.pathParams) + queryString(call.query);
    const headers = new Headers(config.headers(call));
    headers.set("Accept", "application/json");
    if (call.body !== undefined) headers.set("Content-Type", "application/json");
    if (call.respondAsync) headers.set("Prefer", "respond-async");
    if (call.idempotent) {
      // An event with its own `id` is keyed by that id on the server: no header of ours, so reusing the id
      // answers the documented `event_id_conflict`, never a complaint about a header the caller did not set.
      const key = options.idempotencyKey ?? (bodyId(call.body) === undefined ? config.newIdempotencyKey() : undefined);
      if (key !== undefined) headers.set("Idempotency-Key", key);
    }
    for (const [name, value] of Object.entries(options.headers ?? {})) headers.set(name, value);
    const request = new Request(url, {
      method: call.method,
      headers,
      body: call.body === undefined ? undefined : JSON.stringify(call.body),
      signal: options.signal,
    });

    let response: Response;
    try {
      response = await config.send(request, { timeoutMs: options.timeoutMs, repeatable: call.idempotent === true && bodyId(call.body) !== undefined });
    } catch (err) {
      throw toClientError(err, call.method, url, options.signal, config.describeNetworkError);
    }
    return readResult<T>(response);
  };
}

/** An event's own `id`, its natural idempotency key on the server: resending the same event never counts it twice. */
function bodyId(body: unknown): string | undefined {
  const id = (body as { id?: unknown } | null | undefined)?.id;
  return typeof id === "string" && id !== "" ? id : undefined;
}

function fillPath(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === "") throw new TypeError(`${name} is required`);
    return encodeURIComponent(String(value));
  });
}

/** Form style without explode, as the contract declares its query parameters: arrays are comma-separated. */
function queryString(query: object | undefined): string {
  if (!query) return "";
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    search.set(name, Array.isArray(value) ? value.join(",") : String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

async function readResult<T>(response: Response): Promise<WithResponse<T>> {
  const meta: ResponseMeta = { status: response.status, requestId: response.headers.get("x-request-id"), headers: response.headers };
  const text = await response.text();
  let body: unknown = undefined;
  if (text !== "") {
    try {
      body = JSON.parse(text);
    } catch (err) {
      if (response.ok) {
        throw new ClubeError({
          status: response.status,
          code: "unexpected_response",
          message: `The answer is not valid JSON: ${(err as Error).message}`,
          requestId: meta.requestId,
          raw: text,
        });
      }
      body = text;
    }
  }
  if (!response.ok) throw errorFromResponse(response, body);
  const result = (typeof body === "object" && body !== null ? body : {}) as WithResponse<T>;
  Object.defineProperty(result, "lastResponse", { value: meta, enumerable: false });
  return result;
}

function toClientError(
  err: unknown,
  method: string,
  url: string,
  signal: AbortSignal | undefined,
  describe: RequesterOptions["describeNetworkError"],
): ClubeError {
  if (err instanceof ClubeError) return err;
  if (signal?.aborted) {
    return new ClubeError({ status: null, code: "aborted", message: `${method} ${url} was aborted by the caller`, requestId: null, raw: err });
  }
  const reason = err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
  const message = describe ? describe(url, err) : `${method} ${url} failed: ${reason}`;
  return new ClubeError({ status: null, code: "network_error", message, requestId: null, raw: err });
}
