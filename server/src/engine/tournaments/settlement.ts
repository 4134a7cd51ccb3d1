import type { RankedRow } from "./ranking.js";

/*
 * Settlement maths. Configured tournaments pay each prize range `from..to`
 * to the ranked participants in it (a rank nobody holds pays nothing).
 * Official tournaments pay shares of a pool in integer minor units (cents):
 *
 *   pool  = seed × 100 + ⌊total wagered (cents) × poolPercent ÷ 100⌋
 *   share = ⌊pool × split[rank−1] ÷ 100⌋
 *
 * Both round down, and the validator refuses splits over 100 %, so the shares
 * paid never add up to more than the pool; the cents rounded away and the
 * shares of ranks nobody holds are not paid. Percentages are read to the
 * ten-thousandth of a percent and computed in BigInt, so no float error moves a cent.
 */

export interface TournamentPrizeConfig {
  from: number;
  to: number;
  reward: string;
}

export interface PrizeAward {
  participantId: string;
  rank: number;
  reward: string;
}

/** The prizes of the ranked rows; overlapping ranges pay each of their prizes. */
export function awardPrizes(ranked: RankedRow[], prizes: TournamentPrizeConfig[]): PrizeAward[] {
  const awards: PrizeAward[] = [];
  for (const row of ranked) {
    for (const prize of prizes) {
      if (row.rank >= prize.from && row.rank <= prize.to) awards.push({ participantId: row.participantId, rank: row.rank, reward: prize.reward });
    }
  }
  return awards;
}

/** A percentage as millionths of the whole (10 → 100_000n), exact to 0.0001 %. */
function millionths(percent: number): bigint {
  return BigInt(Math.round(percent * 10_000));
}

/** Hundredths of a main-unit amount (seed 12.5 → 1250), exact for the seed's two decimals. */
function cents(mainUnits: number): bigint {
  return BigInt(Math.round(mainUnits * 100));
}

export interface OfficialPeriodSettings {
  poolPercent?: number;
  seed?: number;
  split?: number[];
  minWager?: number;
}

/** The pool in cents from the period's total wagered on the track (cents). */
export function officialPool(totalWageredMinor: number, settings: OfficialPeriodSettings): number {
  const percent = (BigInt(totalWageredMinor) * millionths(settings.poolPercent ?? 10)) / 1_000_000n;
  return Number(cents(settings.seed ?? 0) + percent);
}

/** Share of rank `rank` (1-based) of a pool, in cents; 0 beyond the split. */
export function officialShare(poolMinor: number, split: number[], rank: number): number {
  const percent = split[rank - 1];
  if (percent === undefined) return 0;
  return Number((BigInt(poolMinor) * millionths(percent)) / 1_000_000n);
}

/** Only participants who wagered at least `minWager` (main units) rank. */
export function minWagerMinor(settings: OfficialPeriodSettings): number {
  return Number(cents(settings.minWager ?? 0));
}

export interface OfficialPayout {
  participantId: string;
  rank: number;
  amountMinor: number;
}

/** What each ranked participant receives (non-zero shares only). */
export function officialPayouts(ranked: RankedRow[], poolMinor: number, split: number[]): OfficialPayout[] {
  return ranked
    .map((row) => ({ participantId: row.participantId, rank: row.rank, amountMinor: officialShare(poolMinor, split, row.rank) }))
    .filter((payout) => payout.amountMinor > 0);
}
