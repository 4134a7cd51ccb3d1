import type { SqlEntityManager } from "@mikro-orm/knex";
import { raw } from "@mikro-orm/core";
import { WebhookAttempt, type WebhookSending } from "../db/entities/index.js";
import { MAX_SCHEDULED_ATTEMPTS } from "./schedule.js";
import type { AttemptTiming } from "./sending-store.js";

/**
 * Attempts kept per sending in its log: three rounds of the schedule. A
 * round makes at most MAX_SCHEDULED_ATTEMPTS, and only a resend starts
 * another, so pruning at each resend (`pruneAttemptLog`) bounds the log
 * without any work on the sending path.
 */
export const KEPT_ATTEMPTS = 3 * MAX_SCHEDULED_ATTEMPTS;

/** Rows read per statement (an id list each). */
const READ_CHUNK = 500;

/** The last attempt number of each of these sendings that has a log (the others are absent). */
export async function lastAttemptNumbers(em: SqlEntityManager, ids: readonly string[]): Promise<Map<string, number>> {
  const last = new Map<string, number>();
  for (let i = 0; i < ids.length; i += READ_CHUNK) {
    const rows: Array<{ sending_id: string; last: number | string }> = await em
      .createQueryBuilder(WebhookAttempt)
      .select(["sendingId", raw("max(number) as last")])
      .where({ sendingId: { $in: ids.slice(i, i + READ_CHUNK) } })
      .groupBy("sendingId")
      .execute("all", false);
    for (const row of rows) last.set(row.sending_id, Number(row.last));
  }
  return last;
}

/**
 * The log row of an attempt of `sending` made at its attempt count
 * `attemptsBefore`, the log's last number being `last` (0 without a log):
 * numbers go on across resends, see sending-store.ts.
 */
export function attemptRow(
  sending: Pick<WebhookSending, "id" | "clubId" | "env">,
  attemptsBefore: number,
  last: number,
  timing: AttemptTiming,
  result: { succeeded: boolean; httpStatus: number | null; error: string | null },
): WebhookAttempt {
  return {
    sendingId: sending.id,
    number: Math.max(last, attemptsBefore) + 1,
    clubId: sending.clubId,
    env: sending.env,
    startedAt: timing.startedAt,
    durationMs: timing.durationMs,
    outcome: result.succeeded ? "succeeded" : "failed",
    httpStatus: result.httpStatus,
    error: result.succeeded ? null : result.error,
    resend: last > attemptsBefore,
  } as WebhookAttempt;
}

/**
 * Before a resend's round: keeps the latest KEPT_ATTEMPTS minus one round of
 * the sending's log, so that with the new round's attempts it holds at most
 * KEPT_ATTEMPTS. The last number stays, so numbering goes on.
 */
export async function pruneAttemptLog(em: SqlEntityManager, sendingId: string): Promise<void> {
  const [oldestDropped] = await em.find(
    WebhookAttempt,
    { sendingId },
    { orderBy: { number: "desc" }, offset: KEPT_ATTEMPTS - MAX_SCHEDULED_ATTEMPTS, limit: 1, fields: ["number"], disableIdentityMap: true },
  );
  if (oldestDropped) await em.nativeDelete(WebhookAttempt, { sendingId, number: { $lte: oldestDropped.number } });
}
