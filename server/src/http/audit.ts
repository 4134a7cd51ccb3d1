import type { Context } from "koa";
import { ConfigVersion } from "../db/entities/index.js";
import type { Database } from "../db/orm.js";
import type { Scope } from "../db/scope.js";
import { recordAudit } from "../usecases/staff/index.js";
import type { Auth } from "./auth.js";

/*
 * The audit log's one recording point: the router calls `auditCall` around
 * every operation whose contract row has `audit` (spec/manage/access.tsp), so
 * no audited operation can be forgotten. Entries are written after the change
 * succeeded; the details below add what a generic entry cannot say.
 */

interface Call {
  operationId: string;
  method: string;
  path: string;
  params: Record<string, unknown>;
  body: unknown;
}

interface Detail {
  /** Read before the change (e.g. the published version a publish replaces). */
  before?(db: Database, scope: Scope): Promise<unknown>;
  describe(call: Call, result: any, before: unknown): { target?: string | null; summary: string };
}

/** Operations acting on the whole club (staff), recorded without an environment. */
const CLUB_WIDE = new Set(["StaffMembers_create", "StaffMembers_update", "StaffMembers_delete", "StaffPasswords_change"]);

const DETAILS: Record<string, Detail> = {
  ConfigVersions_publish: {
    async before(db, scope) {
      return (await db.em().findOne(ConfigVersion, { ...scope, status: "published" }, { fields: ["version"] }))?.version ?? null;
    },
    describe: (_call, result, before) => ({ target: String(result.version), summary: `published version ${result.version} (was ${before ?? "none"})` }),
  },
  ConfigVersions_saveDraft: { describe: (_c, result) => ({ target: String(result.version), summary: `saved draft version ${result.version}` }) },
  ApiKeys_create: { describe: (_c, result) => ({ target: result.id, summary: `created key ${result.key_prefix}…` }) },
  ApiKeys_roll: { describe: (call, result) => ({ target: String(call.params.id), summary: `rolled key ${call.params.id} to ${result.key.id}` }) },
  ApiKeys_revoke: { describe: (call) => ({ target: String(call.params.id), summary: `revoked key ${call.params.id}` }) },
  TokenSecret_roll: {
    describe: (_c, result) => ({ target: null, summary: `rolled the participant-token signing secret (previous valid until ${result.previous_expires_at})` }),
  },
  WebhookEndpoints_create: { describe: (_c, result) => ({ target: result.id, summary: `created webhook endpoint ${result.url}` }) },
  Deliveries_confirm: { describe: (call) => ({ target: String(call.params.id), summary: `confirmed delivery ${call.params.id}` }) },
  Deliveries_fail: { describe: (call) => ({ target: String(call.params.id), summary: `failed delivery ${call.params.id}` }) },
  Participants_rename: {
    describe: (call) => {
      const body = call.body as { new_external_id?: string; merge?: boolean } | undefined;
      return {
        target: String(call.params.external_id),
        summary: `renamed participant ${call.params.external_id} to ${body?.new_external_id}${body?.merge ? " (merge)" : ""}`,
      };
    },
  },
  StaffMembers_create: {
    describe: (_c, result) => ({ target: result.id, summary: `added staff member ${result.id} (${result.display_name}) as ${result.role}` }),
  },
  StaffMembers_update: {
    describe: (call, result) => ({
      target: result.id,
      summary: `changed staff member ${result.id}: ${Object.entries((call.body ?? {}) as Record<string, unknown>)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(", ")}`,
    }),
  },
  StaffMembers_delete: {
    describe: (_c, result) => ({ target: result.id, summary: `removed staff member ${result.id} (${result.display_name}, ${result.role})` }),
  },
  StaffPasswords_change: { describe: (_c, result) => ({ target: result.staff.id, summary: "changed own password; other sessions ended" }) },
};

/** A generic entry: the path's id (or the created resource's) and the request line. */
function generic(call: Call, result: any): { target: string | null; summary: string } {
  const firstParam = Object.values(call.params)[0];
  const target = firstParam !== undefined ? String(firstParam) : typeof result?.id === "string" ? result.id : null;
  const fields = call.body && typeof call.body === "object" && !Array.isArray(call.body) ? Object.keys(call.body).join(", ") : "";
  return { target, summary: `${call.method.toUpperCase()} ${call.path}${fields ? ` (${fields})` : ""}` };
}

export interface AuditContext {
  db: Database;
  now: () => Date;
}

/** Whether this call is recorded: `always` for sessions and keys, `staff` for sessions only. */
export function isAudited(policy: "always" | "staff" | undefined, auth: Auth): boolean {
  if (auth.kind === "staff") return policy !== undefined;
  return policy === "always" && auth.kind === "secret";
}

/**
 * Runs `change`, then records it when it succeeded (2xx) and actually ran
 * (an `Idempotency-Key` replay is not a second change).
 */
export async function auditCall<R extends { status: number; body: unknown }>(
  audit: AuditContext,
  ctx: Context,
  call: Call,
  change: (ran: () => void) => Promise<R>,
): Promise<R> {
  const auth = ctx.state.auth as Auth;
  if (auth.kind !== "staff" && auth.kind !== "secret") return change(() => {});
  const detail = DETAILS[call.operationId];
  const scope = { clubId: auth.clubId, env: auth.env };
  const before = detail?.before ? await detail.before(audit.db, scope) : undefined;
  let ran = false;
  const result = await change(() => {
    ran = true;
  });
  if (!ran || result.status < 200 || result.status >= 300) return result;
  try {
    await record(audit, ctx, auth, call, result, detail, before);
  } catch (err) {
    // The change is committed: answering 500 now would invite a retry that applies it twice. The failure is logged loudly instead.
    console.error(`[${ctx.state.requestId}] audit entry for ${call.operationId} could not be written: ${(err as Error).stack ?? err}`);
  }
  return result;
}

async function record(
  audit: AuditContext,
  ctx: Context,
  auth: Extract<Auth, { kind: "staff" | "secret" }>,
  call: Call,
  result: { status: number; body: unknown },
  detail: Detail | undefined,
  before: unknown,
): Promise<void> {
  const described = detail ? detail.describe(call, result.body, before) : generic(call, result.body);
  await recordAudit(
    audit.db,
    {
      clubId: auth.clubId,
      env: CLUB_WIDE.has(call.operationId) ? null : auth.env,
      actorType: auth.kind === "staff" ? "staff" : "key",
      actorId: auth.kind === "staff" ? auth.staffId : auth.keyId,
      action: call.operationId,
      target: described.target === undefined ? generic(call, result.body).target : described.target,
      summary: described.summary,
      ip: ctx.ip,
      requestId: String(ctx.state.requestId ?? ""),
    },
    audit.now(),
  );
}
