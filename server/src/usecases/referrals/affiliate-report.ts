import type { Knex } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import { Affiliate } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
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
  "affiliate_id", "code", "name", "status", ...(Object.keys(NO_FIGURES) as (keyof Figures)[]), "net_gaming_result_minor",
] as const satisfies readonly (keyof AffiliateReportRow)[];

interface Period {
  from: Date | null;
  to: Date | null;
}

function periodOf(query: AffiliateReportQuery): Period {
  const from = query.from === undefined ? null : new Date(query.from);
  const to = query.to === undefined ? null : new Date(query.to);
  if (from && to && to.getTime() <= from.getTime()) throw validationFailed("query.to must be after query.from");
  return { from, to };
}

/** SQLite keeps datetimes as epoch milliseconds, PostgreSQL as timestamptz: the bound value follows. */
function instant(db: Database, at: Date): Date | number {
  return db.dialect === "sqlite" ? at.getTime() : at;
}

/** A counted event of an attributed player (see AffiliateReportRow): joined as `e` on the attribution `a`. */
function countedEvents(db: Database, knex: Knex, scope: Scope, affiliateIds: string[], currency: string, period: Period): Knex.QueryBuilder {
  const query = knex("affiliate_attributions as a")
    .join("events as e", function () {
      this.on("e.participant_id", "a.participant_id").andOn("e.club_id", "a.club_id").andOn("e.env", "a.env");
    })
    .where({ "a.club_id": scope.clubId, "a.env": scope.env })
    .whereIn("a.affiliate_id", affiliateIds)
    .whereIn("e.type", [...AFFILIATE_EVENT_TYPES])
    .whereNull("e.duplicate_of")
    .whereNot("e.status", "failed")
    .where("e.currency", currency)
    .where("e.received_at", ">=", knex.raw("coalesce(a.signup_at, a.created_at)"));
  if (period.from) query.where("e.occurred_at", ">=", instant(db, period.from));
  if (period.to) query.where("e.occurred_at", "<", instant(db, period.to));
  return query;
}

/**
 * 1 when `e` is its player's first deposit ever: no earlier (occurred_at, id)
 * deposit that counts as received. PostgreSQL finds every player's first
 * deposit in one pass (DISTINCT ON, hashed as a set) because a correlated
 * NOT EXISTS per deposit takes a minute at 100,000 events; SQLite answers
 * the correlated form from its index faster than a window over every deposit.
 */
function firstDepositFlag(db: Database, knex: Knex, scope: Scope): Knex.Raw {
  if (db.dialect === "postgresql") {
    const firsts = knex("events as p")
      .distinctOn("p.participant_id")
      .select("p.id")
      .where({ "p.club_id": scope.clubId, "p.env": scope.env, "p.type": "deposit.confirmed" })
      .whereNull("p.duplicate_of")
      .whereNot("p.status", "failed")
      .orderBy([{ column: "p.participant_id" }, { column: "p.occurred_at" }, { column: "p.id" }]);
    // The subquery is a binding (knex parenthesizes it), so its values stay bound parameters.
    return knex.raw("case when e.type = 'deposit.confirmed' and e.id in ? then 1 else 0 end", [firsts]);
  }
  const earlier = knex("events as p")
    .select(knex.raw("1"))
    .whereRaw("p.participant_id = e.participant_id")
    .where("p.type", "deposit.confirmed")
    .whereNull("p.duplicate_of")
    .whereNot("p.status", "failed")
    .where(function () {
      this.whereRaw("p.occurred_at < e.occurred_at").orWhereRaw("p.occurred_at = e.occurred_at and p.id < e.id");
    });
  return knex.raw("case when e.type = 'deposit.confirmed' and not exists ? then 1 else 0 end", [earlier]);
}

/** The money and activity figures of each affiliate in `affiliateIds`, one grouped statement. */
async function activityFigures(db: Database, scope: Scope, affiliateIds: string[], currency: string, period: Period) {
  const knex = db.em().getKnex();
  const perEvent = countedEvents(db, knex, scope, affiliateIds, currency, period).select(
    "a.affiliate_id",
    "e.participant_id",
    "e.type",
    knex.raw("coalesce(e.amount_minor, 0) as amount_minor"),
    firstDepositFlag(db, knex, scope).wrap("(", ") as first_deposit"),
  );
  const sumWhen = (condition: string, value: string) => knex.raw(`sum(case when ${condition} then ${value} else 0 end)`);
  const rows: Record<string, string | number>[] = await knex
    .from(perEvent.as("x"))
    .select(
      "x.affiliate_id",
      knex.raw("count(distinct x.participant_id) as active_players"),
      sumWhen("x.first_deposit = 1", "1").wrap("", " as first_deposits"),
      sumWhen("x.first_deposit = 1", "x.amount_minor").wrap("", " as first_deposits_minor"),
      sumWhen("x.type = 'deposit.confirmed'", "1").wrap("", " as deposits"),
      sumWhen("x.type = 'deposit.confirmed'", "x.amount_minor").wrap("", " as deposits_minor"),
      sumWhen("x.type = 'withdrawal.completed'", "x.amount_minor").wrap("", " as withdrawals_minor"),
      sumWhen("x.type = 'bet.placed'", "x.amount_minor").wrap("", " as wagers_minor"),
      sumWhen("x.type = 'bet.settled'", "x.amount_minor").wrap("", " as wins_minor"),
    )
    .groupBy("x.affiliate_id");
  return new Map(rows.map((row) => [String(row.affiliate_id), row]));
}

/** Players attributed to each affiliate in `affiliateIds` who signed up in the period, one grouped statement. */
async function signupCounts(db: Database, scope: Scope, affiliateIds: string[], period: Period): Promise<Map<string, number>> {
  const knex = db.em().getKnex();
  const signedUp = knex.raw("coalesce(signup_at, created_at)");
  const query = knex("affiliate_attributions")
    .select("affiliate_id", knex.raw("count(*) as players"))
    .where({ club_id: scope.clubId, env: scope.env })
    .whereIn("affiliate_id", affiliateIds)
    .groupBy("affiliate_id");
  if (period.from) query.where(signedUp, ">=", instant(db, period.from));
  if (period.to) query.where(signedUp, "<", instant(db, period.to));
  const rows: { affiliate_id: string; players: string | number }[] = await query;
  return new Map(rows.map((row) => [row.affiliate_id, Number(row.players)]));
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
  const activity = ids.length === 0 ? new Map<string, Record<string, string | number>>() : await activityFigures(db, scope, ids, currency, period);
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
  return toCsv(AFFILIATE_REPORT_COLUMNS, report.data.map((row) => AFFILIATE_REPORT_COLUMNS.map((column) => row[column])));
}
