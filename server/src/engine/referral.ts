import { createHash } from "node:crypto";
import type { components } from "../../../generated/types.js";
import { fromMinorUnits, toMinorUnits } from "./money.js";
import type { CurrencyConfig, RewardConfig } from "./config.js";
import type { EngineEvent } from "./types.js";

/*
 * Referral and affiliate rules that need no database: codes, links, when a
 * referral counts and qualifies, how friends and earnings are shown.
 * Semantics: `ReferralConfig` (spec/config/referral.tsp), `ReferralState`
 * (spec/surface/referral.tsp) and the affiliate models of spec/core and spec/manage.
 */

type Schemas = components["schemas"];

/** The `referral` section with every default filled (as the validator leaves it). */
export type ReferralConfig = Required<Schemas["ReferralConfig"]>;

// Crockford's base-32 alphabet: no I, L, O or U, so a code read aloud or
// typed from a screen is not mistaken for another.
const CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
export const REFERRAL_CODE_LENGTH = 8;

/**
 * A participant's referral code: 8 base-32 characters of the SHA-256 of its
 * id (40 bits). The code is stored on the participant the first time it is
 * needed, so it never changes (a rename keeps the id, hence the code). When it
 * collides with another participant's code the next `attempt` hashes
 * `<id>:<attempt>` instead.
 */
export function referralCodeFor(participantId: string, attempt = 0): string {
  const digest = createHash("sha256")
    .update(attempt === 0 ? participantId : `${participantId}:${attempt}`)
    .digest();
  let code = "";
  for (let i = 0; i < REFERRAL_CODE_LENGTH; i++) code += CODE_ALPHABET[digest[i] % CODE_ALPHABET.length];
  return code;
}

/**
 * Referral codes are generated in upper case and matched without regard to
 * case, since people type them from a link or from a friend's message.
 */
export function normalizeReferralCode(code: string): string {
  return code.toUpperCase();
}

/** `base` with the query parameter `name=value` set; null when `base` is empty or not an absolute URL. */
function linkWith(base: string, name: string, value: string): string | null {
  if (base === "") return null;
  try {
    const url = new URL(base);
    url.searchParams.set(name, value);
    return url.toString();
  } catch {
    return null;
  }
}

/** The participant's share link: `referral.shareUrl` with `ref=<code>`; null without a share URL. */
export function referralLink(config: ReferralConfig, code: string): string | null {
  return linkWith(config.shareUrl, "ref", code);
}

/**
 * An affiliate's signup link, `aff=<code>` on the club's site: the referral
 * `shareUrl` (the club's signup page) when set, else the first allowed
 * origin. A club that configured neither gets a `urn:` naming the code, so the
 * field is still a valid URI; the club fixes it by configuring either.
 */
export function affiliateLink(config: { referral?: { shareUrl?: string }; allowedOrigins: string[] }, code: string): string {
  const bases = [config.referral?.shareUrl ?? "", ...config.allowedOrigins];
  for (const base of bases) {
    const link = linkWith(base, "aff", code);
    if (link !== null) return link;
  }
  return `urn:clube:affiliate:${encodeURIComponent(code)}`;
}

/** An affiliate attribution is refused for an account older than this (its `signup_at`, or when the participant was created). */
export const AFFILIATE_ACCOUNT_MAX_AGE_DAYS = 30;

/** Whether an account created at `createdAt` is too old to be attributed at `now`: older than 30 days; exactly 30 days still counts. */
export function isOldAccount(createdAt: Date, now: Date): boolean {
  return now.getTime() - createdAt.getTime() > AFFILIATE_ACCOUNT_MAX_AGE_DAYS * 86_400_000;
}

/** The event types that count for an affiliate: deposits, withdrawals and bets. */
export const AFFILIATE_EVENT_TYPES = ["deposit.confirmed", "withdrawal.completed", "bet.placed", "bet.settled"] as const;

/** What decides whether a registration counts; the use case gathers these facts. */
export interface ReferralFacts {
  enabled: boolean;
  ownCode: boolean;
  alreadyReferred: boolean;
  /** The referred participant already exists and has sent events: not a new user. */
  existingPlayer: boolean;
  /** Referrals the referrer registered in the current club day. */
  referrerToday: number;
  dailyLimit: number;
}

/** Why a registration does not count (the 409 `referral_not_counted` message), or null when it counts. */
export function referralRefusal(facts: ReferralFacts): string | null {
  if (!facts.enabled) return "The club's referral program is disabled";
  if (facts.ownCode) return "A participant cannot use their own referral code";
  if (facts.alreadyReferred) return "The participant was already referred";
  if (facts.existingPlayer) return "The participant is an existing player, not a new user";
  if (facts.referrerToday >= facts.dailyLimit) return `The referrer reached the limit of ${facts.dailyLimit} referrals today`;
  return null;
}

// Amounts are compared in millionths, exactly, so 19.999999 never passes a minimum of 20.
const AMOUNT_PLACES = 6;

/**
 * Whether `event` qualifies a pending referral: it is the club's
 * `qualifyEvent` with an amount of at least `minAmount` (an event without
 * amount counts as 0). `signup` qualifies at registration, never on an event.
 */
export function qualifiesReferral(config: ReferralConfig, event: Pick<EngineEvent, "type" | "amount">): boolean {
  if (config.qualifyEvent === "signup" || event.type !== config.qualifyEvent) return false;
  const amount = event.amount === undefined || event.amount === null ? 0 : toMinorUnits(event.amount, AMOUNT_PLACES);
  return amount >= toMinorUnits(config.minAmount, AMOUNT_PLACES);
}

/** A friend as the referrer sees them: first name and last initial (`Bruno C.`), `Amigo` without a name. */
export function friendName(displayName: string | null): string {
  const words = (displayName ?? "").trim().split(/\s+/).filter(Boolean);
  if (words.length === 0) return "Amigo";
  if (words.length === 1) return words[0];
  return `${words[0]} ${words.at(-1)![0].toUpperCase()}.`;
}

/** What a referrer earned from referrals: ledger totals per unit (`xp` or a currency, minor units) and rewards per code. */
export interface ReferralEarnings {
  units: Record<string, number>;
  rewards: Record<string, number>;
}

/**
 * A readable total of referral earnings (`600 moedas`, `1500 XP + 2× Bônus`),
 * in the club's own words: currency names in lower case, reward titles; null
 * when nothing was earned.
 */
export function earnedText(earnings: ReferralEarnings, config: { currencies: CurrencyConfig[]; rewards: RewardConfig[] }): string | null {
  const parts: string[] = [];
  for (const [unit, amount] of Object.entries(earnings.units)) {
    if (amount === 0) continue;
    const currency = config.currencies.find((candidate) => candidate.code === unit);
    if (unit === "xp") parts.push(`${amount} XP`);
    else parts.push(`${currency ? fromMinorUnits(amount, currency.decimals) : amount} ${currency ? currency.name.toLowerCase() : unit}`);
  }
  for (const [code, count] of Object.entries(earnings.rewards)) {
    const title = config.rewards.find((reward) => reward.code === code)?.title ?? code;
    parts.push(count === 1 ? title : `${count}× ${title}`);
  }
  return parts.length === 0 ? null : parts.join(" + ");
}
