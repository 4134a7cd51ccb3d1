import type { LedgerLine, Lot, LotConsumption } from "./types.js";

function isExpired(lot: Lot, now: Date): boolean {
  return Date.parse(lot.expiresAt) <= now.getTime();
}

function oldestFirst(a: Lot, b: Lot): number {
  return Date.parse(a.grantedAt) - Date.parse(b.grantedAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * What a debit of `amount` takes from the participant's unexpired lots of
 * `currency`, oldest first; it may cover less than `amount` when the lots hold
 * less (the rest comes from the balance that does not expire). Lots are spent
 * before the non-expiring balance so that as little as possible expires.
 */
export function spendLots(lots: readonly Lot[], currency: string, amount: number, now: Date): LotConsumption[] {
  const consumed: LotConsumption[] = [];
  let left = amount;
  for (const lot of lots.filter((candidate) => candidate.currency === currency && candidate.remaining > 0 && !isExpired(candidate, now)).sort(oldestFirst)) {
    if (left === 0) break;
    const take = Math.min(left, lot.remaining);
    consumed.push({ lotId: lot.id, amount: take });
    left -= take;
  }
  return consumed;
}

/**
 * Minor units of `currency` held in lots that have expired but are still in the
 * balance (the expiry job has not run yet); a debit must not spend them.
 */
export function expiredAmount(lots: readonly Lot[], currency: string, now: Date): number {
  return lots.filter((lot) => lot.currency === currency && isExpired(lot, now)).reduce((sum, lot) => sum + lot.remaining, 0);
}

/**
 * The lots that have expired at `now` with something left, and one ledger
 * line per lot taking the remainder out of the balance. Called by the expiry job.
 */
export function expireLots(lots: readonly Lot[], now: Date): { expired: Lot[]; ledger: LedgerLine[] } {
  const expired = lots.filter((lot) => lot.remaining > 0 && isExpired(lot, now)).sort(oldestFirst);
  return {
    expired,
    ledger: expired.map((lot) => ({ unit: lot.currency, delta: -lot.remaining, reason: "lot_expired", ruleId: null })),
  };
}
