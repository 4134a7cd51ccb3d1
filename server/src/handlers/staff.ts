import { createLoginLimiter, loginLimitFromEnv } from "../http/login-limit.js";
import { sessionCookie } from "../http/staff-session.js";
import type { Services } from "../services.js";
import {
  ROLE_PERMISSIONS,
  ROLES,
  changePassword,
  createStaffMember,
  deleteStaff,
  endSession,
  endSessionOfToken,
  getStaff,
  listNotifications,
  listStaff,
  login,
  markNotificationRead,
  normalizeEmail,
  sessionView,
  staffView,
  updateStaff,
  InvalidCredentials,
} from "../usecases/staff/index.js";
import { scopeOf, staffOf } from "./context.js";
import type { HandlerSet } from "./types.js";

type Ops =
  | "StaffSessions_create"
  | "StaffSessions_get"
  | "StaffSessions_delete"
  | "StaffPasswords_change"
  | "StaffRoles_list"
  | "StaffMembers_list"
  | "StaffMembers_create"
  | "StaffMembers_get"
  | "StaffMembers_update"
  | "StaffMembers_delete"
  | "StaffNotifications_list"
  | "StaffNotifications_markRead";

/** Staff accounts, sessions, passwords, roles and notifications. */
export function staffHandlers(services: Services): HandlerSet<Ops> {
  const { db, settings } = services;
  // Sessions and audit entries live in real time, never on a test clock.
  const now = () => (services.realClock ?? services.clock).now();
  const policy = { idleMs: settings.staffSessionIdleMs, maxMs: settings.staffSessionMaxMs };
  const limiter = createLoginLimiter(loginLimitFromEnv(process.env.CLUBE_RATE_LIMIT_LOGIN), services.rateLimitStore);

  return {
    async StaffSessions_create(req, ctx) {
      const ip = ctx.koa.ip;
      const account = `${req.body.club_id}:${normalizeEmail(req.body.email)}`;
      await limiter.check(ip, account);
      let signedIn;
      try {
        signedIn = await login(db, req.body, now(), policy);
      } catch (err) {
        if (err instanceof InvalidCredentials) await limiter.failed(ip, account);
        throw err;
      }
      await limiter.succeeded(account);
      // Rotation: the session this browser had before signing in ends.
      const previous = ctx.koa.cookies.get("clube_session");
      if (previous) await endSessionOfToken(db, previous);
      const cookie = sessionCookie(signedIn.token, ctx.koa.secure, Math.floor(policy.maxMs / 1000));
      return { status: 201, headers: { "Set-Cookie": cookie }, body: sessionView(signedIn.session, signedIn.member, policy) };
    },
    async StaffSessions_get(_req, ctx) {
      const { session, member } = staffOf(ctx);
      return { status: 200, body: sessionView(session, member, policy) };
    },
    async StaffSessions_delete(_req, ctx) {
      await endSession(db, staffOf(ctx).session.id);
      return { status: 204, headers: { "Set-Cookie": sessionCookie("", ctx.koa.secure, 0) }, body: undefined };
    },
    async StaffPasswords_change(req, ctx) {
      const { session } = staffOf(ctx);
      const member = await changePassword(db, session.staffId, session.id, req.body, now());
      return { status: 200, body: sessionView(session, member, policy) };
    },
    async StaffRoles_list() {
      return { status: 200, body: { data: ROLES.map((role) => ({ role, permissions: [...ROLE_PERMISSIONS[role]] })) } };
    },
    async StaffMembers_list(req, ctx) {
      return { status: 200, body: await listStaff(db, scopeOf(ctx).clubId, req.query) };
    },
    async StaffMembers_create(req, ctx) {
      const { member, temporaryPassword } = await createStaffMember(db, scopeOf(ctx).clubId, req.body, now());
      return { status: 201, body: { ...staffView(member), temporary_password: temporaryPassword } };
    },
    async StaffMembers_get(req, ctx) {
      return { status: 200, body: staffView(await getStaff(db, scopeOf(ctx).clubId, req.path.id)) };
    },
    async StaffMembers_update(req, ctx) {
      const { member } = await updateStaff(db, scopeOf(ctx).clubId, req.path.id, req.body, now());
      return { status: 200, body: staffView(member) };
    },
    async StaffMembers_delete(req, ctx) {
      return { status: 200, body: staffView(await deleteStaff(db, scopeOf(ctx).clubId, req.path.id)) };
    },
    async StaffNotifications_list(req, ctx) {
      const { member } = staffOf(ctx);
      return { status: 200, body: await listNotifications(db, scopeOf(ctx), member.id, req.query) };
    },
    async StaffNotifications_markRead(req, ctx) {
      const { member } = staffOf(ctx);
      return { status: 200, body: await markNotificationRead(db, scopeOf(ctx), member.id, req.path.id, now()) };
    },
  };
}
