import { describe, expect, it } from "vitest";
import { operations } from "../../generated/operations.js";
import { ALL_PERMISSIONS, ROLE_PERMISSIONS, roleAllows } from "../../server/src/usecases/staff/permissions.js";

/*
 * Staff permissions in the contract (spec/manage/access.tsp): every operation a
 * secret key or a staff session may call declares the permission it needs, so
 * none can be forgotten when the server enforces them generically.
 */
type Row = (typeof operations)[number] & { permission?: string; audit?: string };
const rows = operations as readonly Row[];
const accepts = (op: Row, scheme: string) => op.security.some((alt) => alt.length === 1 && alt[0] === scheme);

describe("staff permissions in the contract", () => {
  it("gives every secret-key or staff-session operation a known permission", () => {
    const missing = rows.filter((op) => (accepts(op, "SecretKeyAuth") || accepts(op, "StaffSessionAuth")) && !op.permission).map((op) => op.operationId);
    expect(missing).toEqual([]);
    const unknown = rows
      .filter((op) => op.permission && op.permission !== "self" && !ALL_PERMISSIONS.includes(op.permission))
      .map((op) => `${op.operationId}: ${op.permission}`);
    expect(unknown).toEqual([]);
  });

  it("accepts a staff session on every secret-key operation but GET /v1/key", () => {
    const secretOnly = rows.filter((op) => accepts(op, "SecretKeyAuth") && !accepts(op, "StaffSessionAuth")).map((op) => op.operationId);
    expect(secretOnly).toEqual(["Keys_get"]);
    // The participant surface never takes a session.
    expect(rows.filter((op) => op.path.startsWith("/v1/me") && accepts(op, "StaffSessionAuth"))).toEqual([]);
  });

  it("lets viewers only read, operators not manage keys or staff, owners everything", () => {
    for (const op of rows.filter((row) => row.permission && row.permission !== "self")) {
      expect(roleAllows("owner", op.permission!)).toBe(true);
      if (op.method !== "get" && !["Participants_progressBatch", "StaffNotifications_markRead"].includes(op.operationId)) {
        expect(roleAllows("viewer", op.permission!), op.operationId).toBe(false);
      }
    }
    for (const permission of ["keys.write", "staff.manage", "events.send", "participants.tokens"]) expect(roleAllows("operator", permission)).toBe(false);
    expect(ROLE_PERMISSIONS.viewer.every((permission) => permission.endsWith(".read"))).toBe(true);
  });

  it("audits every state-changing staff operation and the changes the issue names", () => {
    for (const id of [
      "ConfigVersions_publish",
      "ApiKeys_create",
      "ApiKeys_roll",
      "ApiKeys_revoke",
      "TokenSecret_roll",
      "WebhookEndpoints_create",
      "WebhookEndpoints_update",
      "WebhookEndpoints_delete",
      "WebhookSendings_resend",
      "Deliveries_confirm",
      "Deliveries_fail",
      "Codes_create",
      "Codes_disable",
      "Participants_rename",
      "StaffMembers_create",
      "StaffMembers_update",
      "StaffMembers_delete",
      "TestClocks_advance",
      "TestClocks_delete",
    ]) {
      expect(rows.find((op) => op.operationId === id)?.audit, id).toBeDefined();
    }
    expect(rows.filter((op) => op.audit && !["always", "staff"].includes(op.audit))).toEqual([]);
    expect(rows.filter((op) => op.method === "get" && op.audit)).toEqual([]);
  });
});
