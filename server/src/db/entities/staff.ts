import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import type { Env } from "../scope.js";
import { enumColumn, idColumn, refColumn } from "./columns.js";

export type StaffRole = "owner" | "operator" | "viewer";

/**
 * A person who runs a club (the administration console). Per club, not per
 * environment: `env` optionally limits the member to one. `email` is stored
 * lower-cased, unique within the club. `passwordHash` is self-describing
 * (`scrypt$N$r$p$salt$hash`), so its parameters can change without a migration.
 */
export const StaffMember = defineEntity({
  name: "StaffMember",
  tableName: "staff_members",
  uniques: [{ properties: ["clubId", "email"] }],
  properties: {
    id: idColumn(),
    clubId: refColumn(),
    email: p.string().length(254),
    displayName: p.string().length(120),
    role: enumColumn<StaffRole>(),
    env: enumColumn<Env>().nullable(),
    disabled: p.boolean(),
    passwordHash: p.string().length(255),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type StaffMember = InferEntity<typeof StaffMember>;

/**
 * A staff sign-in. The cookie value is never stored: `tokenHash` is its
 * SHA-256, so a copy of the database cannot be replayed as sessions. Ended
 * sessions are deleted (logout, password change, disabling or removal).
 */
export const StaffSession = defineEntity({
  name: "StaffSession",
  tableName: "staff_sessions",
  indexes: [{ properties: ["staffId"] }],
  properties: {
    id: idColumn(),
    tokenHash: p.string().length(64).unique(),
    clubId: refColumn(),
    staffId: refColumn(),
    csrfToken: p.string().length(64),
    createdAt: p.datetime(),
    lastSeenAt: p.datetime(),
    expiresAt: p.datetime(),
  },
});
export type StaffSession = InferEntity<typeof StaffSession>;

/**
 * One change recorded in the audit log. Append-only: no route updates or
 * deletes a row, and nothing purges them (kept at least 400 days).
 */
export const AuditEntry = defineEntity({
  name: "AuditEntry",
  tableName: "audit_entries",
  indexes: [{ properties: ["clubId", "createdAt"] }],
  properties: {
    id: idColumn(),
    clubId: refColumn(),
    /** Null for club-wide changes (staff members). */
    env: enumColumn<Env>().nullable(),
    actorType: enumColumn<"staff" | "key">(),
    actorId: refColumn(),
    action: p.string().length(64),
    target: p.string().length(128).nullable(),
    summary: p.text(),
    ip: p.string().length(64),
    requestId: p.string().length(64),
    createdAt: p.datetime(),
  },
});
export type AuditEntry = InferEntity<typeof AuditEntry>;

/** A staff member's read mark on one staff warning (their notification). */
export const StaffNotificationRead = defineEntity({
  name: "StaffNotificationRead",
  tableName: "staff_notification_reads",
  uniques: [{ properties: ["staffId", "warningId"] }],
  properties: {
    id: idColumn(),
    staffId: refColumn(),
    warningId: refColumn(),
    readAt: p.datetime(),
  },
});
export type StaffNotificationRead = InferEntity<typeof StaffNotificationRead>;
