import type { Scope } from "../../db/scope.js";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { expireLots } from "../../engine/lots.js";
import type { Lot } from "../../engine/types.js";
import { CurrencyLot, LedgerEntry } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import { lockParticipant } from "../evaluation/index.js";
import { loadBalances } from "../participants/index.js";
import { runEach } from "../shared/run-each.js";
import { debitBalanceIfHeld, participantsWithDueLotsPage } from "../../db/rewards/lots.js";

/*
 * The expiry of currency lots (currencies with `expiresInDays`): a lot still
 * holding something at its `expiresAt` gives it up; the balance goes down by
 * as much, with a `lot_expired` ledger row per lot. A job runs it every few
 * minutes; until it has, debits already refuse to spend an expired lot
 * (engine/lots.ts `expiredAmount`).
 *
 * Each participant's lots expire in a transaction holding the participant's
 * lock, the lock events, claims and redemptions take to spend lots, and read
 * after taking it: a run that comes second (another worker, or a repeat)
 * finds nothing left to expire, so a lot expires once.
 */

export interface LotExpiryRun {
  /** Participants who lost something. */
  participants: number;
  /** Lots expired. */
  lots: number;
}

/**
 * Expires every lot past its `expiresAt` at `now`. One participant's failure
 * does not stop the others; the failures are thrown together at the end.
 */
export async function expireCurrencyLots(db: Database, now: Date, pageSize = 200, scope?: Scope): Promise<LotExpiryRun> {
  const run: LotExpiryRun = { participants: 0, lots: 0 };
  await runEach(
    participantsWithDueLots(db, now, pageSize, scope),
    (id) => `lot expiry of ${id}`,
    async (participantId) => {
      const expired = await db.em().transactional((em) => expireParticipantLots(em, db, participantId, now));
      if (expired > 0) {
        run.participants += 1;
        run.lots += expired;
      }
    },
  );
  return run;
}

/** The participants holding lots due to expire at `now`, read a page at a time in id order. */
async function* participantsWithDueLots(db: Database, now: Date, pageSize: number, scope?: Scope): AsyncGenerator<string> {
  let after = "";
  for (;;) {
    const rows = await participantsWithDueLotsPage(db.em(), { now, after, pageSize, scope });
    for (const row of rows) yield row;
    if (rows.length < pageSize) return;
    after = rows[rows.length - 1];
  }
}

/** Expires one participant's due lots in `em`'s transaction; returns how many expired. */
async function expireParticipantLots(em: SqlEntityManager, db: Database, participantId: string, now: Date): Promise<number> {
  const participant = await lockParticipant(em, { id: participantId });
  if (!participant) return 0;
  const rows = await em.find(CurrencyLot, { participantId, remaining: { $gt: 0 }, expiresAt: { $lte: now } });
  const lots: Lot[] = rows.map((row) => ({
    id: row.id,
    currency: row.currency,
    remaining: row.remaining,
    grantedAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt!.toISOString(),
  }));
  const { expired, ledger } = expireLots(lots, now);
  if (expired.length === 0) return 0;

  const balances = await loadBalances(em, participantId);
  const taken: Record<string, number> = {};
  const entries: LedgerEntry[] = [];
  for (const [index, lot] of expired.entries()) {
    const line = ledger[index];
    // Lots are spent before the rest of the balance, so the balance covers them; should it not, it stops at zero.
    const take = Math.min(lot.remaining, balances[lot.currency] ?? 0);
    balances[lot.currency] = (balances[lot.currency] ?? 0) - take;
    taken[lot.currency] = (taken[lot.currency] ?? 0) + take;
    await em.nativeUpdate(CurrencyLot, { id: lot.id }, { remaining: 0 });
    if (take === 0) continue;
    entries.push({
      id: newId("led"),
      clubId: participant.clubId,
      env: participant.env,
      participantId,
      unit: line.unit,
      delta: -take,
      balanceAfter: balances[lot.currency],
      reason: line.reason,
      ruleId: line.ruleId,
      eventId: null,
      createdAt: now,
    });
  }
  if (entries.length > 0) await em.insertMany(LedgerEntry, entries);
  for (const [currency, amount] of Object.entries(taken)) {
    if (amount === 0) continue;
    // Atomic, and refused rather than taken below zero.
    if (!(await debitBalanceIfHeld(em, participantId, currency, amount, now)))
      throw new Error(`the ${currency} balance of ${participantId} changed while its lots expired`);
  }
  return expired.length;
}
