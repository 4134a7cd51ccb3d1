import { attributeAffiliate, createAffiliate, getAffiliate, listAffiliates, updateAffiliate } from "../usecases/referrals/index.js";
import { affiliateReport, affiliateReportCsv } from "../usecases/referrals/index.js";
import type { Services } from "../services.js";
import { scopeOf } from "./context.js";
import type { HandlerSet } from "./types.js";

type Ops =
  | "Affiliates_attribute"
  | "AffiliateAccounts_create"
  | "AffiliateAccounts_list"
  | "AffiliateAccounts_get"
  | "AffiliateAccounts_update"
  | "AffiliateReports_report"
  | "AffiliateReports_reportCsv";

/** Affiliates: attribution at signup, the club's affiliate accounts and their report. */
export function affiliateHandlers({ db, clock }: Services): HandlerSet<Ops> {
  return {
    async Affiliates_attribute(req, ctx) {
      return { status: 201, body: await attributeAffiliate(db, scopeOf(ctx), req.body, clock.now()) };
    },
    async AffiliateAccounts_create(req, ctx) {
      return { status: 201, body: await createAffiliate(db, scopeOf(ctx), req.body, clock.now()) };
    },
    async AffiliateAccounts_list(req, ctx) {
      return { status: 200, body: await listAffiliates(db, scopeOf(ctx), req.query) };
    },
    async AffiliateAccounts_get(req, ctx) {
      return { status: 200, body: await getAffiliate(db, scopeOf(ctx), req.path.id) };
    },
    async AffiliateAccounts_update(req, ctx) {
      return { status: 200, body: await updateAffiliate(db, scopeOf(ctx), req.path.id, req.body, clock.now()) };
    },
    async AffiliateReports_report(req, ctx) {
      return { status: 200, body: await affiliateReport(db, scopeOf(ctx), req.query) };
    },
    async AffiliateReports_reportCsv(req, ctx) {
      const report = await affiliateReport(db, scopeOf(ctx), req.query);
      return { status: 200, body: affiliateReportCsv(report), headers: { "Clube-Has-More": report.has_more ? "true" : "false" } };
    },
  };
}
