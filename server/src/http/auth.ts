import { withClockAt } from "../usecases/sandbox/index.js";
import type { Context } from "koa";
import { ApiError } from "../usecases/shared/errors.js";
import { verifyParticipantToken } from "./tokens.js";
import { staffSession, type StaffAuth, type StaffSessionDeps } from "./staff-session.js";

/** The schemes of the contract. */
export type SchemeName = "SecretKeyAuth" | "ParticipantTokenAuth" | "ParticipantHeaderAuth" | "StaffSessionAuth";

/** Who is calling, once authenticated. */
export type Auth =
  | { kind: "public" }
  | { kind: "secret"; clubId: string; env: "test" | "live"; keyId: string }
  | {
      kind: "participant";
      clubId: string;
      env: "test" | "live";
      externalId: string;
      /** `token`: a participant token; `header`: headless mode (secret key + X-Participant). */
      via: "token" | "header";
      /** Headless mode: the secret key's id (its requests spend that key's rate limit). */
      keyId?: string;
    }
  | StaffAuth;

/** A secret key's club, environment and id. */
export interface ResolvedKey {
  clubId: string;
  env: "test" | "live";
  keyId: string;
}

export interface AuthDeps {
  /** The key of a well-formed secret key, null when unknown or revoked; at once (no promise) when known from memory. */
  resolveApiKey(raw: string): ResolvedKey | null | Promise<ResolvedKey | null>;
  /** The secret new participant tokens are signed with. */
  signingSecret(clubId: string, env: "test" | "live"): Promise<string | null>;
  /** The secrets a token is verified with (current, plus the previous one during a roll's overlap); defaults to `signingSecret`. */
  verificationSecrets?(clubId: string, env: "test" | "live"): Promise<readonly string[] | null>;
  /** The club's test clock time, or null when its test environment runs in real time; at once when known from memory. */
  testClockAt?(clubId: string): Date | null | Promise<Date | null>;
  now(): Date;
  /** Staff sessions (the `clube_session` cookie); without it the cookie is not accepted. */
  staff?: StaffSessionDeps;
}

const SECRET_KEY = /^cf_(test|live)_[A-Za-z0-9]+$/;

/** Who a request is from, or a thrown 401/403 ApiError (`ctx.state.credentialRejected` set when a credential was wrong, not missing). */
export type Authenticate = (ctx: Context) => Auth | Promise<Auth>;

/**
 * Authenticates a request against an operation's security alternatives (from
 * generated/operations.ts). `[]` is public. A secret key alone satisfies
 * `[["SecretKeyAuth"]]`; the participant surface accepts a participant token,
 * or a secret key plus `X-Participant` (headless mode).
 *
 * Status choices: no or unknown credentials → 401; a participant token on a
 * server route → 403 `secret_key_required` where the contract marks the
 * operation secret-key-only (rename), else 401; a secret key on the participant surface without
 * `X-Participant` → 401 (the credentials are incomplete for headless mode).
 */
export function authenticator(
  security: readonly (readonly SchemeName[])[],
  deps: AuthDeps,
  /** 403 where the contract documents it (the secret-key-only operations, e.g. rename); 401 elsewhere. */
  tokenRefusalStatus: 401 | 403 = 401,
  /** The operation's `x-clube-permission`, checked against a staff session's role. */
  permission?: string,
): Authenticate {
  const acceptsSession = security.some((alt) => alt.length === 1 && alt[0] === "StaffSessionAuth");
  const acceptsSecret = security.some((alt) => alt.length === 1 && alt[0] === "SecretKeyAuth");
  const acceptsHeadless = security.some((alt) => alt.includes("ParticipantHeaderAuth"));
  const acceptsToken = security.some((alt) => alt.includes("ParticipantTokenAuth"));

  const byKey = (ctx: Context, key: ResolvedKey | null): Auth => {
    if (!key) {
      // A well-formed key that is wrong: what key guessing looks like (http/rate-limit.ts counts it per address).
      ctx.state.credentialRejected = true;
      throw new ApiError(401, "unauthorized", "The key is unknown or revoked.");
    }
    if (acceptsSecret) return { kind: "secret", clubId: key.clubId, env: key.env, keyId: key.keyId };
    if (acceptsHeadless) {
      const externalId = header(ctx, "x-participant");
      if (!externalId) {
        throw new ApiError(401, "unauthorized", "Headless mode: send X-Participant: <external_id> with the secret key on /v1/me/*.");
      }
      if (externalId.length > 128) {
        throw new ApiError(401, "unauthorized", "X-Participant must be an external id of 1 to 128 characters.");
      }
      return { kind: "participant", clubId: key.clubId, env: key.env, externalId, via: "header", keyId: key.keyId };
    }
    throw new ApiError(401, "unauthorized", "This route does not accept a secret key.");
  };

  const byToken = async (ctx: Context, credential: string): Promise<Auth> => {
    const verified = await verifyParticipantToken(credential, deps.verificationSecrets ?? deps.signingSecret, deps.now());
    if (!verified.ok) {
      ctx.state.credentialRejected = true;
      const why = verified.reason === "expired" ? "has expired" : "is not valid for this club";
      throw new ApiError(401, "invalid_token", `The participant token ${why}; ask your server for a new one.`);
    }
    return { kind: "participant", ...verified.claims, via: "token" };
  };

  if (security.length === 0) return () => PUBLIC;
  return (ctx) => {
    const authorization = header(ctx, "authorization");
    const credential = bearer(authorization);
    // A staff session counts only without an Authorization header: key and token callers are never affected by a cookie.
    if (!credential && acceptsSession && deps.staff && authorization === "") {
      const cookie = ctx.cookies.get("clube_session");
      if (cookie) return staffSession(ctx, cookie, deps.staff, permission);
    }
    if (!credential && acceptsSession && !acceptsSecret) {
      throw new ApiError(401, "unauthorized", "Sign in first: this route needs a staff session (the clube_session cookie set by POST /v1/staff/sessions).");
    }
    if (!credential) {
      throw new ApiError(401, "unauthorized", "Send your key as `Authorization: Bearer <key>`.");
    }
    if (SECRET_KEY.test(credential)) {
      const key = deps.resolveApiKey(credential);
      return key instanceof Promise ? key.then((found) => byKey(ctx, found)) : byKey(ctx, key);
    }
    if (!acceptsToken) {
      if (looksLikeJwt(credential)) {
        throw tokenRefusalStatus === 403
          ? new ApiError(403, "secret_key_required", "This operation needs the secret key; participant tokens are refused.")
          : new ApiError(401, "unauthorized", "This route needs the secret key; participant tokens are accepted only on /v1/me/*.");
      }
      throw new ApiError(401, "unauthorized", "The key is malformed: expected cf_test_… or cf_live_….");
    }
    return byToken(ctx, credential);
  };
}

const PUBLIC: Auth = Object.freeze({ kind: "public" });

/**
 * Runs `work` at the club's test clock time when `auth` is for a test
 * environment with a clock (the rest of the request then reads that time),
 * else as it is: the clock's scope is entered only when a clock is set.
 */
export function onTestClock<T>(deps: AuthDeps, auth: Auth, work: () => Promise<T>): Promise<T> {
  if (auth.kind === "public" || auth.env !== "test" || !deps.testClockAt) return work();
  const at = deps.testClockAt(auth.clubId);
  if (at instanceof Promise) return at.then((time) => (time === null ? work() : withClockAt(time, work)));
  return at === null ? work() : withClockAt(at, work);
}

/** A request header as Koa's `ctx.get` reads it (`name` in lower case, not Referer): "" when absent. */
export function header(ctx: Context, name: string): string {
  const value = ctx.req.headers[name];
  return value === undefined ? "" : (value as string);
}

function bearer(header: string): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

function looksLikeJwt(value: string): boolean {
  return value.split(".").length === 3;
}
