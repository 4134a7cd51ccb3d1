import { createHash, randomBytes } from "node:crypto";
import type { components } from "../../../../generated/types.js";
import { Club, StaffMember, StaffSession, type StaffRole } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Env } from "../../db/scope.js";
import { ApiError, notFound, validationFailed } from "../shared/errors.js";
import { checkPasswordStrength, hashPassword, temporaryPassword, verifyPassword } from "./passwords.js";
import { ROLE_PERMISSIONS } from "./permissions.js";

export type StaffMemberView = components["schemas"]["StaffMember"];
export type StaffSessionView = components["schemas"]["StaffSession"];

/** How long sessions live: idle (since the last request) and absolute (since login). */
export interface SessionPolicy {
  idleMs: number;
  maxMs: number;
}

/** A request refreshes `lastSeenAt` only when it is older than this, so reads do not each write. */
const TOUCH_AFTER_MS = 15_000;

export function staffView(member: StaffMember): StaffMemberView {
  return {
    id: member.id,
    email: member.email,
    display_name: member.displayName,
    role: member.role,
    env: member.env ?? null,
    disabled: member.disabled,
    created_at: member.createdAt.toISOString(),
    updated_at: member.updatedAt.toISOString(),
  };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

const EMAIL = /^[^@\s]+@[^@\s]+$/;

export interface NewStaffMember {
  email: string;
  display_name: string;
  role: StaffRole;
  env?: Env | null;
  password?: string;
}

/** Adds a member to a club; without a password a temporary one is made and returned (shown once). 409 when the e-mail is taken. */
export async function createStaffMember(
  db: Database,
  clubId: string,
  input: NewStaffMember,
  now: Date,
): Promise<{ member: StaffMember; temporaryPassword: string | null }> {
  const email = normalizeEmail(input.email);
  if (!EMAIL.test(email) || email.length > 254) throw validationFailed("body.email must be an e-mail address");
  const displayName = input.display_name.trim();
  if (displayName.length === 0) throw validationFailed("body.display_name must not be blank");
  if (input.password !== undefined) checkPasswordStrength(input.password, email, "body.password");
  const temporary = input.password === undefined ? temporaryPassword() : null;
  const em = db.em();
  if (!(await em.findOne(Club, { id: clubId }))) throw notFound(`Club ${clubId}`);
  if (await em.findOne(StaffMember, { clubId, email })) throw new ApiError(409, "conflict", `A staff member with e-mail ${email} already exists in this club.`);
  const member = em.create(StaffMember, {
    id: newId("stf"),
    clubId,
    email,
    displayName,
    role: input.role,
    env: input.env ?? null,
    disabled: false,
    passwordHash: await hashPassword(input.password ?? temporary!),
    createdAt: now,
    updatedAt: now,
  });
  try {
    await em.flush();
  } catch (err) {
    // Two concurrent adds of one e-mail: the unique (club, e-mail) decides.
    if ((err as { name?: string }).name === "UniqueConstraintViolationException") {
      throw new ApiError(409, "conflict", `A staff member with e-mail ${email} already exists in this club.`);
    }
    throw err;
  }
  return { member, temporaryPassword: temporary };
}

export async function listStaff(
  db: Database,
  clubId: string,
  query: { limit?: number; starting_after?: string },
): Promise<{ data: StaffMemberView[]; has_more: boolean }> {
  const em = db.em();
  const limit = query.limit ?? 20;
  const where: Record<string, unknown> = { clubId };
  if (query.starting_after) {
    const after = await em.findOne(StaffMember, { clubId, id: query.starting_after });
    if (!after) throw validationFailed("query.starting_after is not a staff member of this club");
    where.$or = [{ createdAt: { $gt: after.createdAt } }, { createdAt: after.createdAt, id: { $gt: after.id } }];
  }
  const rows = await em.find(StaffMember, where, { orderBy: [{ createdAt: "asc" }, { id: "asc" }], limit: limit + 1 });
  return { data: rows.slice(0, limit).map(staffView), has_more: rows.length > limit };
}

export async function getStaff(db: Database, clubId: string, id: string): Promise<StaffMember> {
  const member = await db.em().findOne(StaffMember, { clubId, id });
  if (!member) throw notFound(`Staff member ${id}`);
  return member;
}

/** Whether removing the owner role from (or disabling) `member` leaves the club without an enabled owner. */
async function isLastOwner(db: Database, member: StaffMember): Promise<boolean> {
  if (member.role !== "owner" || member.disabled) return false;
  const owners = await db.em().count(StaffMember, { clubId: member.clubId, role: "owner", disabled: false });
  return owners <= 1;
}

export async function updateStaff(
  db: Database,
  clubId: string,
  id: string,
  patch: { display_name?: string; role?: StaffRole; env?: Env | null; disabled?: boolean },
  now: Date,
): Promise<{ member: StaffMember; changes: string[] }> {
  const member = await getStaff(db, clubId, id);
  const changes: string[] = [];
  const losesOwner = (patch.role !== undefined && patch.role !== "owner") || patch.disabled === true;
  if (losesOwner && (await isLastOwner(db, member))) {
    throw new ApiError(409, "conflict", "The club's last enabled owner cannot be demoted or disabled; make another owner first.");
  }
  if (patch.display_name !== undefined) {
    const name = patch.display_name.trim();
    if (name.length === 0) throw validationFailed("body.display_name must not be blank");
    if (name !== member.displayName) changes.push(`display_name`);
    member.displayName = name;
  }
  if (patch.role !== undefined && patch.role !== member.role) {
    changes.push(`role ${member.role} → ${patch.role}`);
    member.role = patch.role;
  }
  if (patch.env !== undefined && (patch.env ?? null) !== (member.env ?? null)) {
    changes.push(`env ${member.env ?? "both"} → ${patch.env ?? "both"}`);
    member.env = patch.env;
  }
  if (patch.disabled !== undefined && patch.disabled !== member.disabled) {
    changes.push(patch.disabled ? "disabled" : "enabled");
    member.disabled = patch.disabled;
  }
  member.updatedAt = now;
  await db.em().transactional(async (em) => {
    await em.nativeUpdate(
      StaffMember,
      { id: member.id },
      {
        displayName: member.displayName,
        role: member.role,
        env: member.env ?? null,
        disabled: member.disabled,
        updatedAt: now,
      },
    );
    if (member.disabled) await em.nativeDelete(StaffSession, { staffId: member.id });
  });
  return { member, changes };
}

/** Removes a member and every session of theirs at once. */
export async function deleteStaff(db: Database, clubId: string, id: string): Promise<StaffMember> {
  const member = await getStaff(db, clubId, id);
  if (await isLastOwner(db, member)) throw new ApiError(409, "conflict", "The club's last enabled owner cannot be removed; make another owner first.");
  await db.em().transactional(async (em) => {
    await em.nativeDelete(StaffSession, { staffId: member.id });
    await em.nativeDelete(StaffMember, { id: member.id });
  });
  return member;
}

// ─────────────────────────────── Sessions ───────────────────────────────

function sha256(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export function sessionView(session: StaffSession, member: StaffMember, policy: SessionPolicy): StaffSessionView {
  const idle = new Date(Math.min(session.lastSeenAt.getTime() + policy.idleMs, session.expiresAt.getTime()));
  return {
    id: session.id,
    club_id: session.clubId,
    staff: staffView(member),
    permissions: [...ROLE_PERMISSIONS[member.role]],
    csrf_token: session.csrfToken,
    created_at: session.createdAt.toISOString(),
    idle_expires_at: idle.toISOString(),
    expires_at: session.expiresAt.toISOString(),
  };
}

export class InvalidCredentials extends ApiError {
  constructor() {
    super(401, "invalid_credentials", "The e-mail, password or club is wrong.");
  }
}

/**
 * Signs a member in: a new session (a new cookie value each time). Every
 * failure is the same InvalidCredentials after one scrypt run, whether the
 * club or the e-mail is unknown, the member disabled or the password wrong.
 */
export async function login(
  db: Database,
  input: { club_id: string; email: string; password: string },
  now: Date,
  policy: SessionPolicy,
): Promise<{ token: string; session: StaffSession; member: StaffMember }> {
  const member = await db.em().findOne(StaffMember, { clubId: input.club_id, email: normalizeEmail(input.email) });
  const matches = await verifyPassword(input.password, member?.passwordHash ?? null);
  if (!member || !matches || member.disabled) throw new InvalidCredentials();
  const { token, session } = await openSession(db, member, now, policy);
  return { token, session, member };
}

async function openSession(db: Database, member: StaffMember, now: Date, policy: SessionPolicy): Promise<{ token: string; session: StaffSession }> {
  const token = randomBytes(32).toString("base64url");
  const em = db.em();
  const session = em.create(StaffSession, {
    id: newId("sess"),
    tokenHash: sha256(token),
    clubId: member.clubId,
    staffId: member.id,
    csrfToken: randomBytes(24).toString("base64url"),
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + policy.maxMs),
  });
  await em.flush();
  return { token, session };
}

/** The live session of a cookie value and its member, or null (unknown, idle too long, past its end, member disabled or removed). */
export async function resolveSession(
  db: Database,
  token: string,
  now: Date,
  policy: SessionPolicy,
): Promise<{ session: StaffSession; member: StaffMember } | null> {
  if (token.length < 20 || token.length > 128) return null;
  const em = db.em();
  const session = await em.findOne(StaffSession, { tokenHash: sha256(token) });
  if (!session) return null;
  if (now >= session.expiresAt || now.getTime() - session.lastSeenAt.getTime() >= policy.idleMs) {
    await em.nativeDelete(StaffSession, { id: session.id });
    return null;
  }
  const member = await em.findOne(StaffMember, { id: session.staffId });
  if (!member || member.disabled) return null;
  if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_AFTER_MS) {
    await em.nativeUpdate(StaffSession, { id: session.id }, { lastSeenAt: now });
    session.lastSeenAt = now;
  }
  return { session, member };
}

/** Ends the session of a cookie value, if it is one (a new sign-in replaces the session the browser had). */
export async function endSessionOfToken(db: Database, token: string): Promise<void> {
  await db.em().nativeDelete(StaffSession, { tokenHash: sha256(token) });
}

export async function endSession(db: Database, sessionId: string): Promise<void> {
  await db.em().nativeDelete(StaffSession, { id: sessionId });
}

/** Changes the member's own password and ends their other sessions. 422 naming `body.current_password` when it is wrong. */
export async function changePassword(
  db: Database,
  staffId: string,
  sessionId: string,
  input: { current_password: string; new_password: string },
  now: Date,
): Promise<StaffMember> {
  const em = db.em();
  const member = await em.findOneOrFail(StaffMember, { id: staffId });
  if (!(await verifyPassword(input.current_password, member.passwordHash))) throw validationFailed("body.current_password is wrong");
  checkPasswordStrength(input.new_password, member.email, "body.new_password");
  const passwordHash = await hashPassword(input.new_password);
  await em.transactional(async (tx) => {
    await tx.nativeUpdate(StaffMember, { id: staffId }, { passwordHash, updatedAt: now });
    await tx.nativeDelete(StaffSession, { staffId, id: { $ne: sessionId } });
  });
  member.passwordHash = passwordHash;
  member.updatedAt = now;
  return member;
}
