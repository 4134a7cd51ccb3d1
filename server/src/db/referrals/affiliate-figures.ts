import { raw } from "@mikro-orm/core";
import type { Knex, SqlEntityManager } from "@mikro-orm/knex";
import { AffiliateAttribution } from "../entities/index.js";
import type { Database } from "../orm.js";
import type { Scope } from "../scope.js";

/*
 * The affiliate report's figures (usecases/referrals/affiliate-report.ts),
 * summed by the database in two grouped statements over a page's
 * affiliates; no event is loaded into the process.
 */

/** A period of the report; null ends are open. */
export interface Period {
  from: Date | null;
  to: Date | null;
}

/** What the activity figures sum: the affiliates' players' events of `eventTypes` in `currency` over `period`. */
export interface ActivityQuery {
  affiliateIds: string[];
  eventTypes: readonly string[];
  currency: string;
  period: Period;
}

/** SQLite keeps datetimes as epoch milliseconds, PostgreSQL as timestamptz: the bound value follows. */
function instant(db: Database, at: Date): Date | number {
  return db.dialect === "sqlite" ? at.getTime() : at;
}

/** A counted event of an attributed player (see AffiliateReportRow): joined as `e` on the attribution `a`. */
function countedEvents(db: Database, knex: Knex, scope: Scope, { affiliateIds, eventTypes, currency, period }: ActivityQuery): Knex.QueryBuilder {
  const query = knex("affiliate_attributions as a")
    .join("events as e", function () {
      this.on("e.participant_id", "a.participant_id").andOn("e.club_id", "a.club_id").andOn("e.env", "a.env");
    })
    .where({ "a.club_id": scope.clubId, "a.env": scope.env })
    .whereIn("a.affiliate_id", affiliateIds)
    .whereIn("e.type", [...eventTypes])
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
export async function activityFigures(db: Database, scope: Scope, query: ActivityQuery): Promise<Map<string, Record<string, string | number>>> {
  const knex = db.em().getKnex();
  const perEvent = countedEvents(db, knex, scope, query).select(
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
export async function signupCounts(db: Database, scope: Scope, affiliateIds: string[], period: Period): Promise<Map<string, number>> {
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

/** Players attributed to each of `affiliateIds`, in one grouped count. */
export async function attributedPlayerCounts(em: SqlEntityManager, affiliateIds: string[]): Promise<Map<string, number>> {
  if (affiliateIds.length === 0) return new Map();
  const rows = await em
    .createQueryBuilder(AffiliateAttribution)
    .select(["affiliateId", raw("count(*) as players")])
    .where({ affiliateId: { $in: affiliateIds } })
    .groupBy("affiliateId")
    .execute<{ affiliateId: string; players: number | string }[]>("all");
  return new Map(rows.map((row) => [row.affiliateId, Number(row.players)]));
}
