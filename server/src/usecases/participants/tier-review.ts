import type { components } from "../../../../generated/types.js";
import type { ClubConfig } from "../../engine/config.js";
import { reviewTier, tierForLevel } from "../../engine/tiers.js";
import { monthKey, previousMonthKey } from "../../engine/time.js";
import { ConfigVersion, Participant, TierReview } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { getPublishedConfig } from "../club/index.js";
import { recordWebhook } from "../webhooks/index.js";
import { clubTimeZone, lockParticipant, webhookParticipant } from "../evaluation/index.js";
import { peakSince } from "../evaluation/index.js";
import { runEach } from "../shared/run-each.js";

/*
 * The monthly tier review (`demotion: monthly_review`, spec/config/progression.tsp
 * `TierDemotion`): at the start of each club month every participant's tier
 * becomes the tier of the highest level reached since the previous month
 * began (engine reviewTier), announced by `tier.changed`.
 *
 * A job calls reviewTiers hourly; it acts in the first run of each club
 * month. The month's TierReview row (unique per club, env and month) is the
 * claim: the worker that inserts it reviews, the others skip. A club is
 * reviewed only when the month before has a row too, i.e. it was already
 * under monthly review then: a club that switches to it mid-month is first
 * reviewed when that month is over (and a club no worker ran for during a
 * whole month skips the following review).
 *
 * Each participant is reviewed under their row lock from their row as it is
 * then, so even two reviews of the same month (a claim taken over from a
 * worker that seemed dead) lower a tier once and announce it once.
 */

/** After this long without finishing, a month's review is taken to have died with its worker, and the next run takes it over. */
export const REVIEW_CLAIM_LEASE_MS = 60 * 60_000;

/** Participants read per page while reviewing a club. */
const PAGE_SIZE = 500;

type ReviewedRow = Pick<Participant, "id" | "externalId" | "level" | "tierCode" | "peakMonth" | "peakLevel" | "priorMonthPeakLevel">;

export interface TierReviewRun {
  /** Club months reviewed by this run. */
  reviews: number;
  /** Participants whose tier it changed. */
  changed: number;
}

/**
 * Reviews the tiers of every club and environment whose published
 * configuration has `demotion: monthly_review` and whose review of the
 * current club month is due. One club's failure does not stop the others';
 * the failures are thrown together at the end.
 */
export async function reviewTiers(db: Database, now: Date, only?: Scope): Promise<TierReviewRun> {
  const run: TierReviewRun = { reviews: 0, changed: 0 };
  const published = await db.em().find(ConfigVersion, { ...only, status: "published" }, { fields: ["clubId", "env"], orderBy: { clubId: "asc", env: "asc" } });
  await runEach(
    published,
    (row) => `tier review of ${row.clubId}/${row.env}`,
    async (row) => {
      const scope: Scope = { clubId: row.clubId, env: row.env };
      const config = (await getPublishedConfig(db, scope))?.config;
      if (config?.progression.demotion !== "monthly_review") return;
      const month = monthKey(now, clubTimeZone(config));
      const reviewId = await claimReview(db, scope, month, now);
      if (reviewId === null) return;
      run.changed += await reviewParticipants(db, scope, config, now);
      await db.em().nativeUpdate(TierReview, { id: reviewId }, { finishedAt: now });
      run.reviews += 1;
    },
  );
  return run;
}

/**
 * Claims the review of `month` and returns its id; null when there is nothing
 * to do: it is finished, another worker is on it, or the club was not under
 * monthly review in the month before (it only began now, so the first review
 * is at the start of the next month; this month is recorded as not reviewed).
 */
async function claimReview(db: Database, scope: Scope, month: string, now: Date): Promise<string | null> {
  const em = db.em();
  const existing = await em.findOne(TierReview, { ...scope, monthKey: month });
  if (existing) {
    if (existing.finishedAt !== null || existing.startedAt.getTime() > now.getTime() - REVIEW_CLAIM_LEASE_MS) return null;
    // Taken over only if no other worker took it over first.
    const taken = await em.nativeUpdate(TierReview, { id: existing.id, startedAt: existing.startedAt }, { startedAt: now });
    return taken === 1 ? existing.id : null;
  }
  const reviewed = (await em.count(TierReview, { ...scope, monthKey: previousMonthKey(month) })) > 0;
  const id = newId("trv");
  // ON CONFLICT DO NOTHING: of two workers inserting the month at once, one claims it.
  const result = await em
    .createQueryBuilder(TierReview)
    .insert({ id, ...scope, monthKey: month, reviewed, startedAt: now, finishedAt: reviewed ? null : now })
    .onConflict(["clubId", "env", "monthKey"])
    .ignore()
    .execute("run");
  return result.affectedRows === 1 && reviewed ? id : null;
}

/** The tier the participant holds: the stored one, or (never stored) the tier of their level. */
function currentTier(config: ClubConfig, row: Pick<Participant, "level" | "tierCode">): string {
  return row.tierCode ?? tierForLevel(config.progression.tiers, row.level).code;
}

/** The tier the review at `now` gives the participant. */
function reviewedTier(config: ClubConfig, row: ReviewedRow, now: Date): string {
  const timeZone = clubTimeZone(config);
  const reviewedMonth = previousMonthKey(monthKey(now, timeZone));
  return reviewTier(config.progression, { level: row.level, tierCode: currentTier(config, row), peakLevel: peakSince(row, reviewedMonth) }, now, timeZone);
}

/**
 * Reviews every participant of the club; returns how many changed tier. The
 * rows are read without locks to find who changes; each of those is then
 * locked, read again and changed in a transaction of its own. A participant
 * that fails does not stop the others, but leaves the review unfinished (it
 * throws at the end), so it is taken over and tried again after the lease.
 */
async function reviewParticipants(db: Database, scope: Scope, config: ClubConfig, now: Date): Promise<number> {
  let changed = 0;
  await runEach(
    clubParticipants(db, scope),
    (row) => `tier review of ${row.id}`,
    async (row) => {
      if (reviewedTier(config, row, now) !== currentTier(config, row) && (await applyReview(db, scope, config, row.id, now))) changed += 1;
    },
  );
  return changed;
}

/** The club's participants with what the review reads, a page at a time in id order. */
async function* clubParticipants(db: Database, scope: Scope): AsyncGenerator<ReviewedRow> {
  let after = "";
  for (;;) {
    const page: ReviewedRow[] = await db
      .em()
      .find(
        Participant,
        { ...scope, id: { $gt: after } },
        { fields: ["id", "externalId", "level", "tierCode", "peakMonth", "peakLevel", "priorMonthPeakLevel"], orderBy: { id: "asc" }, limit: PAGE_SIZE },
      );
    yield* page;
    if (page.length < PAGE_SIZE) return;
    after = page[page.length - 1].id;
  }
}

/** Sets the reviewed tier of one participant under their lock and records `tier.changed`; false when it was already that tier. */
async function applyReview(db: Database, scope: Scope, config: ClubConfig, participantId: string, now: Date): Promise<boolean> {
  return db.em().transactional(async (em) => {
    const participant = await lockParticipant(em, { ...scope, id: participantId });
    if (!participant) return false;
    const from = currentTier(config, participant);
    const to = reviewedTier(config, participant, now);
    if (to === from) return false;
    await em.nativeUpdate(Participant, { id: participant.id }, { tierCode: to, updatedAt: now });
    const data: components["schemas"]["TierChangedWebhookData"] = {
      participant: webhookParticipant(participant),
      from: tierRef(config, from),
      to: tierRef(config, to),
    };
    await recordWebhook(em, scope, "tier.changed", data, now);
    return true;
  });
}

function tierRef(config: ClubConfig, code: string): components["schemas"]["WebhookTier"] {
  return { code, name: config.progression.tiers.find((tier) => tier.code === code)?.name ?? code };
}
