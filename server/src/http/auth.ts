import { withClockAt } from "../usecases/sandbox/index.js";
import type { Middleware } from "koa";
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

export interface AuthDeps {
  resolveApiKey(raw: string): Promise<{ clubId: string; env: "test" | "live"; keyId: string } | null>;
  /** The secret new participant tokens are signed with. */
  signingSecret(clubId: string, env: "test" | "live"): Promise<string | null>;
  /** The secrets a token is verified with (current, plus the previous one during a roll's overlap); defaults to `signingSecret`. */
  verificationSecrets?(clubId: string, env: "test" | "live"): Promise<readonly string[] | null>;
  /** The club's test clock time, or null when its test environment runs in real time. */
  testClockAt?(clubId: string): Promise<Date | null>;
  now(): Date;
  /** Staff sessions (the `clube_session` cookie); without it the cookie is not accepted. */
  staff?: StaffSessionDeps;
}

const SECRET_KEY = /^cf_(test|live)_[A-Za-z0-9]+$/;

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
export function authenticate(
  security: readonly (readonly SchemeName[])[],
  deps: AuthDeps,
  /** 403 where the contract documents it (the secret-key-only operations, e.g. rename); 401 elsewhere. */
  tokenRefusalStatus: 401 | 403 = 401,
  /** The operation's `x-clube-permission`, checked against a staff session's role. */
  permission?: string,
): Middleware {
  const acceptsSession = security.some((alt) => alt.length === 1 && alt[0] === "StaffSessionAuth");
  const acceptsSecret = security.some((alt) => alt.length === 1 && alt[0] === "SecretKeyAuth");
  const acceptsHeadless = security.some((alt) => alt.includes("ParticipantHeaderAuth"));
  const acceptsToken = security.some((alt) => alt.includes("ParticipantTokenAuth"));

  /** Runs the rest of the request at the test clock's time when it is for a test environment with a clock. */
  const onClock = async (env: "test" | "live", clubId: string, next: () => Promise<unknown>) => {
    const at = env === "test" && deps.testClockAt ? await deps.testClockAt(clubId) : null;
    return at === null ? next() : withClockAt(at, next);
  };

  return async (ctx, next) => {
    if (security.length === 0) {
      ctx.state.auth = { kind: "public" } satisfies Auth;
      return next();
    }
    const credential = bearer(ctx.get("Authorization"));
    // A staff session counts only without an Authorization header: key and token callers are never affected by a cookie.
    if (!credential && acceptsSession && deps.staff && ctx.get("Authorization") === "") {
      const cookie = ctx.cookies.get("clube_session");
      if (cookie) {
        const auth = await staffSession(ctx, cookie, deps.staff, permission);
        ctx.state.auth = auth;
        return onClock(auth.env, auth.clubId, next);
      }
    }
    if (!credential && acceptsSession && !acceptsSecret) {
      throw new ApiError(401, "unauthorized", "Sign in first: this route needs a staff session (the clube_session cookie set by POST /v1/staff/sessions).");
    }
    if (!credential) {
      throw new ApiError(401, "unauthorized", "Send your key as `Authorization: Bearer <key>`.");
    }
    if (SECRET_KEY.test(credential)) {
      const key = await deps.resolveApiKey(credential);
      if (!key) {
        // A well-formed key that is wrong: what key guessing looks like (http/rate-limit.ts counts it per address).
        ctx.state.credentialRejected = true;
        throw new ApiError(401, "unauthorized", "The key is unknown or revoked.");
      }
      if (acceptsSecret) {
        ctx.state.auth = { kind: "secret", ...key } satisfies Auth;
      } else if (acceptsHeadless) {
        const externalId = ctx.get("X-Participant");
        if (!externalId) {
          throw new ApiError(401, "unauthorized", "Headless mode: send X-Participant: <external_id> with the secret key on /v1/me/*.");
        }
        if (externalId.length > 128) {
          throw new ApiError(401, "unauthorized", "X-Participant must be an external id of 1 to 128 characters.");
        }
        ctx.state.auth = { kind: "participant", clubId: key.clubId, env: key.env, externalId, via: "header", keyId: key.keyId } satisfies Auth;
      } else {
        throw new ApiError(401, "unauthorized", "This route does not accept a secret key.");
      }
      return onClock(key.env, key.clubId, next);
    }
    if (!acceptsToken) {
      if (looksLikeJwt(credential)) {
        throw tokenRefusalStatus === 403
          ? new ApiError(403, "secret_key_required", "This operation needs the secret key; participant tokens are refused.")
          : new ApiError(401, "unauthorized", "This route needs the secret key; participant tokens are accepted only on /v1/me/*.");
      }
      throw new ApiError(401, "unauthorized", "The key is malformed: expected cf_test_… or cf_live_….");
    }
    const verified = await verifyParticipantToken(credential, deps.verificationSecrets ?? deps.signingSecret, deps.now());
    if (!verified.ok) {
      ctx.state.credentialRejected = true;
      const why = verified.reason === "expired" ? "has expired" : "is not valid for this club";
      throw new ApiError(401, "invalid_token", `The participant token ${why}; ask your server for a new one.`);
    }
    ctx.state.auth = { kind: "participant", ...verified.claims, via: "token" } satisfies Auth;
    return onClock(verified.claims.env, verified.claims.clubId, next);
  };
}

function bearer(header: string): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1] : null;
}

function looksLikeJwt(value: string): boolean {
  return value.split(".").length === 3;
}
