import type { components } from "../../../../generated/types.js";
import { Affiliate } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import { activityFigures, signupCounts, type Period } from "../../db/referrals/affiliate-figures.js";
import type { Scope } from "../../db/scope.js";
import { AFFILIATE_EVENT_TYPES } from "../../engine/referral.js";
import { toCsv } from "../shared/csv.js";
import { validationFailed } from "../shared/errors.js";
import { olderThan } from "../shared/paging.js";

/*
 * The affiliate report (GET /v1/affiliates/report and its .csv twin): per
 * affiliate, what its players did over a period. The figures are summed by
 * the database in two grouped statements over the page's affiliates; no event
 * is loaded into the process. What counts is documented on the contract's
 * `AffiliateReportRow`.
 */

type Schemas = components["schemas"];
export type AffiliateReport = Schemas["AffiliateReport"];
export type AffiliateReportRow = Schemas["AffiliateReportRow"];

export interface AffiliateReportQuery {
  from?: string;
  to?: string;
  affiliate_id?: string;
  currency?: string;
  limit?: number;
  starting_after?: string;
}

type Figures = Omit<AffiliateReportRow, "affiliate_id" | "code" | "name" | "status" | "net_gaming_result_minor">;

const NO_FIGURES: Figures = {
  players_attributed: 0,
  active_players: 0,
  first_deposits: 0,
  first_deposits_minor: 0,
  deposits: 0,
  deposits_minor: 0,
  withdrawals_minor: 0,
  wagers_minor: 0,
  wins_minor: 0,
};

/** The CSV columns: the row's fields in the contract's order. */
export const AFFILIATE_REPORT_COLUMNS = [
  "affiliate_id",
  "code",
  "name",
  "status",
  ...(Object.keys(NO_FIGURES) as (keyof Figures)[]),
  "net_gaming_result_minor",
] as const satisfies readonly (keyof AffiliateReportRow)[];

function periodOf(query: AffiliateReportQuery): Period {
  const from = query.from === undefined ? null : new Date(query.from);
  const to = query.to === undefined ? null : new Date(query.to);
  if (from && to && to.getTime() <= from.getTime()) throw validationFailed("query.to must be after query.from");
  return { from, to };
}

function reportRow(affiliate: Affiliate, players: number, activity: Record<string, string | number> | undefined): AffiliateReportRow {
  const figures: Figures = { ...NO_FIGURES, players_attributed: players };
  if (activity) {
    for (const key of Object.keys(NO_FIGURES) as (keyof Figures)[]) {
      if (key !== "players_attributed") figures[key] = Number(activity[key] ?? 0);
    }
  }
  return {
    affiliate_id: affiliate.id,
    code: affiliate.code,
    name: affiliate.name,
    status: affiliate.status,
    ...figures,
    net_gaming_result_minor: figures.wagers_minor - figures.wins_minor,
  };
}

/** GET /v1/affiliates/report: a page of affiliates (newest first, like the affiliate list) with their figures. */
export async function affiliateReport(db: Database, scope: Scope, query: AffiliateReportQuery): Promise<AffiliateReport> {
  const period = periodOf(query);
  const currency = query.currency ?? "BRL";
  const limit = query.limit ?? 20;
  const em = db.em();
  const where: Record<string, unknown> = { ...scope };
  if (query.affiliate_id !== undefined) where.id = query.affiliate_id;
  if (query.starting_after) {
    const after = await em.findOne(Affiliate, { ...scope, id: query.starting_after }, { fields: ["id", "createdAt"] });
    if (!after) throw validationFailed("query.starting_after is not an affiliate of this club and environment");
    Object.assign(where, olderThan("createdAt", after));
  }
  const affiliates = await em.find(Affiliate, where, { orderBy: [{ createdAt: "desc" }, { id: "desc" }], limit: limit + 1 });
  const page = affiliates.slice(0, limit);
  const ids = page.map((affiliate) => affiliate.id);
  const players = ids.length === 0 ? new Map<string, number>() : await signupCounts(db, scope, ids, period);
  const activity =
    ids.length === 0
      ? new Map<string, Record<string, string | number>>()
      : await activityFigures(db, scope, { affiliateIds: ids, eventTypes: AFFILIATE_EVENT_TYPES, currency, period });
  return {
    from: period.from?.toISOString() ?? null,
    to: period.to?.toISOString() ?? null,
    currency,
    data: page.map((affiliate) => reportRow(affiliate, players.get(affiliate.id) ?? 0, activity.get(affiliate.id))),
    has_more: affiliates.length > limit,
  };
}

/** The report's rows as CSV (the columns of AFFILIATE_REPORT_COLUMNS). */
export function affiliateReportCsv(report: AffiliateReport): string {
  return toCsv(
    AFFILIATE_REPORT_COLUMNS,
    report.data.map((row) => AFFILIATE_REPORT_COLUMNS.map((column) => row[column])),
  );
}
