import type { StaffRole } from "../../db/entities/index.js";

/*
 * The roles' permissions: the table documented on `StaffRole` in
 * spec/manage/staff.tsp and served by GET /v1/staff/roles. Each operation's
 * `x-clube-permission` (spec/manage/access.tsp) names one of these; a contract
 * test checks that every one it names is known here.
 */

const READ = [
  "config.read",
  "participants.read",
  "events.read",
  "deliveries.read",
  "webhooks.read",
  "codes.read",
  "affiliates.read",
  "games.read",
  "tournaments.read",
  "warnings.read",
  "test_clock.read",
  "keys.read",
  "audit_log.read",
  "roles.read",
] as const;

const OPERATE = [
  "config.write",
  "config.publish",
  "participants.write",
  "events.test",
  "deliveries.fulfil",
  "webhooks.write",
  "codes.write",
  "affiliates.write",
  "games.write",
  "test_clock.write",
] as const;

const OWN = ["events.send", "participants.tokens", "keys.write", "staff.manage"] as const;

export const ROLES: readonly StaffRole[] = ["owner", "operator", "viewer"];

export const ROLE_PERMISSIONS: Record<StaffRole, readonly string[]> = {
  owner: [...READ, ...OPERATE, ...OWN],
  operator: [...READ, ...OPERATE],
  viewer: [...READ],
};

/** Every permission an operation may name, besides `self` (any signed-in member, for their own account). */
export const ALL_PERMISSIONS: readonly string[] = ROLE_PERMISSIONS.owner;

/** Whether `role` may call an operation needing `permission`. */
export function roleAllows(role: StaffRole, permission: string): boolean {
  return permission === "self" || ROLE_PERMISSIONS[role].includes(permission);
}
