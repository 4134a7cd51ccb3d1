import Router from "@koa/router";
import { bodyParser } from "@koa/bodyparser";
import type { Context, Middleware } from "koa";
import { operations, type Handlers, type OperationId } from "../../../generated/operations.js";
import { operationValidators } from "../../../generated/validators.js";
import { ApiError } from "../usecases/shared/errors.js";
import { authenticator, header, onTestClock, type Auth, type AuthDeps, type SchemeName } from "./auth.js";
import type { Database } from "../db/orm.js";
import { withIdempotencyKey } from "./idempotency.js";
import { check } from "./validate.js";
import { jsonText } from "../cache/json-text.js";
import type { RateLimiter } from "./rate-limit.js";
import { auditCall, isAudited, type AuditContext } from "./audit.js";
import { redactForViewer } from "./staff-session.js";

/** What a handler receives besides the validated request. */
export interface RequestContext {
  requestId: string;
  auth: Auth;
  /** The Koa context, for the few handlers that need it (CORS of the participant surface). */
  koa: Context;
  /**
   * Runs `hook` once the handler has returned, its transactions committed
   * (each distinct hook once; none when the handler threw). How the handler
   * layer wakes the outbox relay after a commit that wrote rows.
   */
  afterCommit(hook: () => void): void;
}

/** What Koa sends for a JSON body. */
const JSON_TYPE = "application/json; charset=utf-8";

/** Body size limits (documented in the contract): 5 MiB for event batches and game syncs, 1 MiB elsewhere. */
const BODY_LIMIT = "1mb";
const LARGE_BODY_LIMIT = "5mb";
const LARGE_BODIES = new Set<string>(["Events_sendBatch", "Games_sync"]);

export interface RouterOptions {
  auth: AuthDeps;
  /** In tests: check every response against its schema and fail loudly on a mismatch. */
  validateResponses?: boolean;
  /** Where `Idempotency-Key`s are bound to their request (http/idempotency.ts); without it keys are only the routes' own replay. */
  idempotency?: { db: Database; now: () => Date };
  /** Rate limits (http/rate-limit.ts) around authentication; none without it. */
  rateLimiter?: RateLimiter;
  /** Where the audit log is written (http/audit.ts); nothing is recorded without it. */
  audit?: AuditContext;
}

/** The contracted routes: the operation of an exact path and method from a table, and @koa/router for every other spelling. */
export interface ContractRoutes {
  /**
   * The route answering `method` `path` when the path is written as the contract writes it (same case, no
   * trailing slash), with its path parameters; undefined otherwise (the router then decides, as for every request before).
   */
  lookup(method: string, path: string): { run: Middleware; params: Record<string, string> } | undefined;
  /** Every route, matched as @koa/router matches (case-insensitive, optional trailing slash, HEAD for GET). */
  router: Router;
}

/**
 * Builds the routes from the generated operation table: one route per
 * contracted operation, each running auth → body parsing → validation (with
 * coercion and defaults) → the handler. A route the contract lacks cannot be
 * served, and `Handlers` makes tsc fail while any operation has no handler.
 */
export function buildRoutes(handlers: Handlers<RequestContext>, options: RouterOptions): ContractRoutes {
  const router = new Router();
  const table = new RouteTable();
  for (const op of operations) {
    const run = pipeline(op, handlers, options);
    router.register(op.koaPath, [op.method.toUpperCase()], [run], { name: op.operationId });
    table.add(op.method.toUpperCase(), op.koaPath, run);
  }
  return { lookup: (method, path) => table.lookup(method, path), router };
}

/**
 * One operation's whole request, as one function: failed-authentication guard → authentication → the
 * caller's rate limit → (a test clock's time) → body → validation → handler. One function rather than a
 * Koa layer each: every layer costs promises and getters on every request.
 */
function pipeline(op: Operation, handlers: Handlers<RequestContext>, options: RouterOptions): Middleware {
  const tokenRefusal = "403" in op.responseHeaders ? 403 : 401;
  const permission = (op as { permission?: string }).permission;
  const authenticate = authenticator(op.security as readonly (readonly SchemeName[])[], options.auth, tokenRefusal, permission);
  const limiter = op.security.length > 0 ? options.rateLimiter : undefined;
  const readBody = op.body ? bodyReader(LARGE_BODIES.has(op.operationId) ? LARGE_BODY_LIMIT : BODY_LIMIT) : undefined;
  const answer = invoke(op, handlers, options);

  const rest = (ctx: Context, auth: Auth): Promise<void> => {
    const counted = limiter?.count(ctx, auth, op.operationId);
    // A request without a body counted at once goes straight to its handler: no promise of its own.
    return counted || readBody ? countedThenAnswer(ctx, auth, counted) : answer(ctx, auth);
  };
  const countedThenAnswer = async (ctx: Context, auth: Auth, counted: Promise<void> | undefined): Promise<void> => {
    if (counted) await counted;
    if (readBody) await readBody(ctx);
    await answer(ctx, auth);
  };
  return async (ctx) => {
    const refused = limiter?.refuseExhausted(ctx);
    if (refused) await refused;
    let auth: Auth;
    try {
      const found = authenticate(ctx);
      auth = found instanceof Promise ? await found : found;
    } catch (err) {
      // A wrong credential (not a missing one) counts against the address (http/rate-limit.ts).
      if (limiter && ctx.state.credentialRejected === true && err instanceof ApiError && err.status === 401) await limiter.countRejected(ctx);
      throw err;
    }
    ctx.state.auth = auth;
    return onTestClock(options.auth, auth, () => rest(ctx, auth));
  };
}

/**
 * The contract's routes by method and path: a path without parameters by one map lookup, the others
 * by comparing segments. Where two routes would match one path, the first in the contract wins, as
 * in @koa/router (whose first matching route answers). Path parameters are decoded as the router decodes them.
 */
class RouteTable {
  private readonly routes: Array<{ method: string; segments: readonly string[]; run: Middleware }> = [];
  private readonly exact = new Map<string, Middleware>();

  add(method: string, koaPath: string, run: Middleware): void {
    const segments = koaPath.split("/");
    // A static path earlier routes do not already answer (with their parameters) is one lookup.
    if (!segments.some(isParam) && !this.match(method, segments)) this.exact.set(`${method} ${koaPath}`, run);
    this.routes.push({ method, segments, run });
  }

  lookup(method: string, path: string): { run: Middleware; params: Record<string, string> } | undefined {
    const run = this.exact.get(`${method} ${path}`);
    if (run) return { run, params: {} };
    return this.match(method, path.split("/"));
  }

  private match(method: string, parts: readonly string[]): { run: Middleware; params: Record<string, string> } | undefined {
    for (const route of this.routes) {
      if (route.method !== method || route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let matched = true;
      for (let i = 0; i < parts.length && matched; i++) {
        const segment = route.segments[i];
        if (isParam(segment)) {
          if (parts[i] === "") matched = false;
          else params[segment.slice(1)] = decodeParam(parts[i]);
        } else matched = segment === parts[i];
      }
      if (matched) return { run: route.run, params };
    }
    return undefined;
  }
}

const isParam = (segment: string) => segment.startsWith(":");

function decodeParam(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * 405 with an `Allow` header for a known path with another method (501 for an
 * unknown method); unknown paths fall through to 404. The router sets `Allow`
 * only in its non-throwing mode, so its answer is turned into the error body here.
 */
export function methodNotAllowed(router: Router): Middleware {
  const allowed = router.allowedMethods() as unknown as Middleware;
  return async (ctx, next) => {
    await allowed(ctx, next);
    const allow = ctx.response.get("Allow");
    if (ctx.status === 405) throw new ApiError(405, "method_not_allowed", `This route accepts ${allow}.`, { Allow: allow });
    if (ctx.status === 501) throw new ApiError(501, "not_implemented", "Unknown HTTP method.");
  };
}

/** Reads a JSON body (415 for another media type), as `ctx.request.body` and `ctx.request.rawBody`. */
function bodyReader(limit: string): (ctx: Context) => Promise<void> {
  const parser = bodyParser({
    enableTypes: ["json"],
    jsonLimit: limit,
    jsonStrict: true,
    encoding: "utf-8",
    onError: (err) => {
      throw bodyError(err as { status?: number; type?: string });
    },
  }) as unknown as Middleware;
  const done = () => Promise.resolve();
  return async (ctx) => {
    const hasBody = Number(header(ctx, "content-length") || 0) > 0 || Boolean(header(ctx, "transfer-encoding"));
    if (hasBody && !ctx.is("application/json")) {
      throw new ApiError(415, "unsupported_media_type", "Send the body as application/json.");
    }
    await parser(ctx, done);
  };
}

/** The body parser's failures, as documented errors. */
function bodyError(err: { status?: number; type?: string }): ApiError {
  if (err.status === 413 || err.type === "entity.too.large") {
    return new ApiError(413, "payload_too_large", "The request body is larger than the limit for this route.");
  }
  if (err.status === 415 || err.type === "encoding.unsupported" || err.type === "charset.unsupported") {
    return new ApiError(415, "unsupported_media_type", "The request body must be UTF-8 application/json.");
  }
  return new ApiError(400, "invalid_json", "The request body is not valid JSON (an object or an array is expected).");
}

type Operation = (typeof operations)[number];

/**
 * An event sent with an `Idempotency-Key` equal to its own `id` is keyed by
 * that id, as the seed says; reusing it for a different event is the event's
 * documented `event_id_conflict`, not a complaint about a header.
 */
function eventIdReused(operationId: string, key: string, body: unknown): (() => ApiError) | undefined {
  if (operationId !== "Events_send" || typeof body !== "object" || body === null || (body as { id?: unknown }).id !== key) return undefined;
  return () => new ApiError(409, "event_id_conflict", `Event id '${key}' was already used for a different event; send this event with its own id.`);
}

/** What a handler answers. */
interface HandlerResult {
  status: number;
  body: unknown;
  headers?: Record<string, string | number>;
}

/** A handler's RequestContext: the hooks it asks for run once it has returned (each distinct hook once; none when it threw). */
class HandlerContext implements RequestContext {
  readonly requestId: string;
  private hooks: Set<() => void> | undefined;

  constructor(
    readonly koa: Context,
    readonly auth: Auth,
  ) {
    this.requestId = koa.state.requestId;
  }

  afterCommit(hook: () => void): void {
    (this.hooks ??= new Set()).add(hook);
  }

  runHooks(): void {
    if (this.hooks) for (const hook of this.hooks) hook();
  }
}

function invoke(op: Operation, handlers: Handlers<RequestContext>, options: RouterOptions): (ctx: Context, auth: Auth) => Promise<void> {
  const validators = operationValidators[op.operationId as OperationId];
  const handler = handlers[op.operationId as OperationId] as unknown as (req: unknown, ctx: RequestContext) => Promise<HandlerResult>;
  const policy = (op as { audit?: "always" | "staff" }).audit;
  const textResponses = (op as { textResponses?: Record<string, string> }).textResponses;
  const redactable = (op as { permission?: string }).permission !== "self" && !textResponses;
  return async (ctx, auth) => {
    const path = check(validators.path, { ...ctx.params }, "path");
    const query = check(validators.query, { ...ctx.query }, "query");
    const headers = readHeaders(ctx, op.params.headers, validators.headers);
    const body = readBody(ctx, op, validators.body);

    const audited = options.audit && isAudited(policy, auth);
    const key = headers["idempotency-key"];
    const { idempotency } = options;
    const keyed = typeof key === "string" && idempotency !== undefined && auth.kind !== "public";
    const request = { path, query, headers, body };
    let result: HandlerResult;
    if (!audited && !keyed) {
      // The usual request: the handler itself, without the wrappers' promises and closures.
      const context = new HandlerContext(ctx, auth);
      result = await handler(request, context);
      context.runHooks();
    } else {
      let ran = () => {};
      const call = async () => {
        ran();
        const context = new HandlerContext(ctx, auth);
        const answered = await handler(request, context);
        context.runHooks();
        return answered;
      };
      const run = () =>
        keyed
          ? withIdempotencyKey(
              idempotency.db,
              idempotency.now,
              {
                scope: { clubId: auth.clubId, env: auth.env },
                key,
                operationId: op.operationId,
                request: { path, query, body, participant: auth.kind === "participant" ? auth.externalId : null },
                reused: eventIdReused(op.operationId, key, body),
              },
              call,
            )
          : call();
      result = audited
        ? await auditCall(options.audit!, ctx, { operationId: op.operationId, method: op.method, path: ctx.path, params: path, body }, (onRun) => {
            ran = onRun;
            return run();
          })
        : await run();
    }
    // A viewer never receives contact data or secrets (their own session's answers are theirs to see).
    if (auth.kind === "staff" && auth.role === "viewer" && redactable) result.body = redactForViewer(result.body);

    // A 304 (conditional GET) and a 204 have no body to check.
    if (options.validateResponses && result.status !== 304 && result.status !== 204)
      assertResponse(op.operationId, validators.responses, result.status, result.body);
    ctx.status = result.status;
    if (result.headers) {
      for (const name in result.headers) ctx.res.setHeader(name, String(result.headers[name]));
    }
    // An export (CSV) answers the media type its contract declares; everything else is JSON.
    const textType = textResponses?.[String(result.status)];
    if (textType) ctx.type = `${textType}; charset=utf-8`;
    if (!textType && typeof result.body === "object" && result.body !== null && !Buffer.isBuffer(result.body)) {
      // Serialised here rather than by Koa, so that the parts shared by every answer are spliced in as made (cache/json-text.ts).
      if (!ctx.res.hasHeader("Content-Type")) ctx.res.setHeader("Content-Type", JSON_TYPE);
      ctx.body = jsonText(result.body);
    } else ctx.body = result.body;
  };
}

/** Header parameters arrive, are validated and are handed over under lower-case names (as Node delivers them). */
function readHeaders(ctx: Context, declared: readonly string[], validator: Parameters<typeof check>[0]): Record<string, unknown> {
  const headers: Record<string, unknown> = {};
  for (const name of declared) {
    const value = header(ctx, name);
    if (value !== "") headers[name] = value;
  }
  return check(validator, headers, "headers");
}

function readBody(ctx: Context, op: Operation, validator: Parameters<typeof check>[0]): unknown {
  if (!op.body) return undefined;
  const raw = (ctx.request as { rawBody?: string }).rawBody;
  if (raw === undefined || raw === "") {
    if (op.body.required) throw new ApiError(422, "validation_failed", "body is required.");
    return check(validator, {}, "body");
  }
  return check(validator, (ctx.request as { body?: unknown }).body, "body");
}

function assertResponse(operationId: string, validators: Record<string, Parameters<typeof check>[0]>, status: number, body: unknown): void {
  const validator = validators[String(status)];
  if (!validator) throw new Error(`${operationId} answered ${status}, a status its contract does not list`);
  if (!validator(body)) {
    throw new Error(`${operationId} ${status} response breaks the contract: ${JSON.stringify(validator.errors?.slice(0, 3))}`);
  }
}
