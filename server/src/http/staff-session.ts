import { timingSafeEqual } from "node:crypto";
import type { Context } from "koa";
import type { StaffMember, StaffRole, StaffSession } from "../db/entities/index.js";
import type { Env } from "../db/scope.js";
import { ApiError, validationFailed } from "../usecases/shared/errors.js";
import { roleAllows } from "../usecases/staff/index.js";

/** A request authenticated by a staff session cookie (one club; the environment chosen by `Clube-Env`). */
export interface StaffAuth {
  kind: "staff";
  clubId: string;
  env: Env;
  staffId: string;
  sessionId: string;
  role: StaffRole;
}

export interface StaffSessionDeps {
  /** The live session of a cookie value and its member, or null. */
  resolve(token: string): Promise<{ session: StaffSession; member: StaffMember } | null>;
  /** The server's own origin (`CLUBE_PUBLIC_URL`): a state-changing request's `Origin`, when sent, must be it. */
  publicOrigin: string;
}

/** The cookie's name, documented on `StaffSessionAuth` in the contract. */
const SESSION_COOKIE = "clube_session";

/** Environment of a session request when `Clube-Env` is absent: test, so a console never touches live data by accident. */
const DEFAULT_ENV: Env = "test";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Authenticates a staff session: the session must be live; a state-changing
 * request must pass the CSRF checks (the session's `X-CSRF-Token`, and the
 * server's own `Origin` when one is sent); the member must be allowed the
 * chosen environment and the operation's permission. The session and member
 * are kept in `ctx.state.staff` for the staff routes.
 */
export async function staffSession(ctx: Context, cookie: string, deps: StaffSessionDeps, permission: string | undefined): Promise<StaffAuth> {
  const found = await deps.resolve(cookie);
  if (!found) {
    ctx.state.credentialRejected = true;
    throw new ApiError(401, "unauthorized", "The staff session has ended or is unknown; sign in again.");
  }
  const { session, member } = found;
  if (!SAFE_METHODS.has(ctx.method)) {
    if (!sameSecret(ctx.get("X-CSRF-Token"), session.csrfToken)) {
      throw new ApiError(403, "csrf_failed", "Send the session's csrf_token as X-CSRF-Token on every state-changing request.");
    }
    const origin = ctx.get("Origin");
    if (origin !== "" && origin !== deps.publicOrigin) {
      throw new ApiError(403, "csrf_failed", `Requests with a staff session must come from ${deps.publicOrigin}, not ${origin}.`);
    }
  }
  const requested = ctx.get("Clube-Env");
  if (requested !== "" && requested !== "test" && requested !== "live") throw validationFailed("headers.Clube-Env must be test or live");
  const env: Env = requested === "" ? DEFAULT_ENV : requested;
  if (member.env && member.env !== env) {
    throw new ApiError(403, "forbidden", `This staff member may act only on the ${member.env} environment (send Clube-Env: ${member.env}).`);
  }
  if (permission === undefined || !roleAllows(member.role, permission)) {
    throw new ApiError(403, "forbidden", `The ${member.role} role lacks the permission ${permission ?? "(none declared)"} this operation needs.`);
  }
  ctx.state.staff = found;
  return { kind: "staff", clubId: session.clubId, env, staffId: member.id, sessionId: session.id, role: member.role };
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `clube_session=<value>` with the documented attributes; `Secure` when the request came over HTTPS. */
export function sessionCookie(value: string, secure: boolean, maxAgeSeconds: number | null): string {
  const parts = [`${SESSION_COOKIE}=${value}`, "Path=/", "HttpOnly", "SameSite=Lax"];
  if (maxAgeSeconds !== null) parts.push(`Max-Age=${maxAgeSeconds}`);
  if (secure) parts.push("Secure");
  return parts.join("; ");
}

/** Field names whose values a viewer never receives: contact data and secrets. */
const REDACTED_FIELD = /(e[-_]?mail|phone|mobile|msisdn|password|secret|token)$/i;

/**
 * A viewer session's answer with every value under a contact-data or secret
 * field name replaced by `"[redacted]"`, at any depth (meta, event payloads).
 */
export function redactForViewer(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactForViewer);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] = REDACTED_FIELD.test(key) && inner !== null && typeof inner !== "object" && typeof inner !== "boolean" ? "[redacted]" : redactForViewer(inner);
  }
  return out;
}
