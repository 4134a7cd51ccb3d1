import { auditCsv, listAudit } from "../usecases/staff/index.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

/** The audit log of staff and API changes, as JSON pages or CSV. */
export function auditLogHandlers({ db }: Services): HandlerSet<"AuditLog_list" | "AuditLog_listCsv"> {
  return {
    async AuditLog_list(req, ctx) {
      return { status: 200, body: await listAudit(db, scopeOf(ctx), req.query) };
    },
    async AuditLog_listCsv(req, ctx) {
      const page = await listAudit(db, scopeOf(ctx), req.query);
      return { status: 200, body: auditCsv(page), headers: { "Clube-Has-More": page.has_more ? "true" : "false" } };
    },
  };
}
