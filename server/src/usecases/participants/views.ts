import type { components } from "../../../../generated/types.js";
import type { ClubConfig, TierConfig } from "../../engine/config.js";
import { fromMinorUnits } from "../../engine/money.js";
import { levelThresholds, progressFor, type Progress } from "../../engine/progression.js";
import { nextTierAfter, tierForLevel } from "../../engine/tiers.js";
import type { Participant } from "../../db/entities/index.js";
import { levelName } from "../club/index.js";
import { frozenJson } from "../../cache/json-text.js";

/*
 * The participant resources of the contract, computed from the stored state
 * and the published configuration. Pure: the caller loads the rows.
 *
 * Levels have no configured names or artwork, so a level is shown through its
 * tier: name `Nível <n>`, `color` the tier's colour, `badge_url` the tier's
 * badge when that is an image URL (a badge may also be an icon code, which is
 * not a URL and gives null).
 */

type Schemas = components["schemas"];
export type ParticipantProfile = Schemas["ParticipantProfile"];
export type ParticipantProgress = Schemas["ParticipantProgress"];
export type ProgressLevel = Schemas["ProgressLevel"];
export type ProgressXp = Schemas["ProgressXp"];
export type CurrencyBalance = Schemas["CurrencyBalance"];
export type ParticipantProgressBatchItem = Schemas["ParticipantProgressBatchItem"];

/** The participant's columns the views show: the ORM's entity or a row read on the driver (db/hot/participant-reads.ts). */
export type ViewedParticipant = Pick<Participant, "id" | "externalId" | "displayName" | "avatarUrl" | "xp" | "tierCode" | "flags" | "updatedAt">;

/** Balances in minor units by currency code; a currency without a row is 0. */
export type Balances = Record<string, number>;

function badgeUrl(tier: TierConfig): string | null {
  return tier.badge && /^https?:\/\//.test(tier.badge) ? tier.badge : null;
}

function levelOf(config: ClubConfig, level: number): ProgressLevel {
  // One shared object per level of a published version (its JSON made once: cache/json-text.ts); built levels on demand beyond the table.
  let levels = levelViews.get(config);
  if (!levels) levelViews.set(config, (levels = []));
  return (levels[level] ??= frozenJson(buildLevel(config, level)));
}
const levelViews = new WeakMap<ClubConfig, ProgressLevel[]>();

function buildLevel(config: ClubConfig, level: number): ProgressLevel {
  const tier = tierForLevel(config.progression.tiers, level);
  return { number: level, name: levelName(level, config), badge_url: badgeUrl(tier), color: tier.color ?? null };
}

function xpOf(progress: Progress, xp: number): ProgressXp {
  return { current: progress.current, required: progress.required, total: xp, progress: progress.progress };
}

/** Every configured currency in the configured order, with the participant's balance in main units (0 when none). */
export function currencyBalances(config: ClubConfig, balances: Balances): CurrencyBalance[] {
  return config.currencies.map((currency) => ({
    code: currency.code,
    name: currency.name,
    icon: currency.icon,
    balance: fromMinorUnits(balances[currency.code] ?? 0, currency.decimals),
  }));
}

/** Integer minor units of `code` in main units, exact for its configured `decimals` (0 for a currency no longer configured). */
export function inMainUnits(config: Pick<ClubConfig, "currencies"> | null | undefined, code: string, minor: number): number {
  return fromMinorUnits(minor, config?.currencies.find((currency) => currency.code === code)?.decimals ?? 0);
}

/** A balance map (currency code to minor units) in main units. */
export function balancesInMainUnits(config: Pick<ClubConfig, "currencies"> | null | undefined, balances: Balances): Balances {
  return Object.fromEntries(Object.entries(balances).map(([code, minor]) => [code, inMainUnits(config, code, minor)]));
}

/**
 * Who reads a profile: a `participant` (/v1/me) sees only benefits whose
 * compliance is `ok`; `server` routes see every benefit of the tier.
 */
export type ProfileAudience = "participant" | "server";

/**
 * The profile. Its tier is the stored one (`tierCode`, kept by the engine and
 * the monthly review), the same one `tier_in` conditions and `tier.changed`
 * webhooks use, so they agree even after a curve change moved the level the
 * XP computes to; the tier computed from the level stands in only while none
 * is stored or the stored code is no longer configured.
 */
export function profileView(participant: ViewedParticipant, balances: Balances, config: ClubConfig, audience: ProfileAudience = "server"): ParticipantProfile {
  const progress = progressFor(config.progression, participant.xp);
  const tier = config.progression.tiers.find((candidate) => candidate.code === participant.tierCode) ?? progress.tier;
  const { tierView, nextTierView, benefits } = tierParts(config, tier, audience);
  return {
    id: participant.id,
    external_id: participant.externalId,
    display_name: participant.displayName ?? null,
    avatar_url: participant.avatarUrl ?? null,
    xp: participant.xp,
    level: progress.level,
    max_level: progress.maxLevel,
    level_start_xp: progress.levelStartXp,
    next_level_xp: progress.nextLevelXp,
    remaining_xp: progress.remainingXp,
    percent: progress.percent,
    tier: tierView,
    next_tier: nextTierView,
    benefits,
    currencies: currencyBalances(config, balances),
    flags: participant.flags,
  };
}

interface TierParts {
  tierView: ParticipantProfile["tier"];
  nextTierView: ParticipantProfile["next_tier"];
  benefits: string[];
}

/** The profile's parts that depend on the tier and the audience alone: built once per published version (shared, JSON made once). */
function tierParts(config: ClubConfig, tier: TierConfig, audience: ProfileAudience): TierParts {
  let parts = tierPartsOf.get(config);
  if (!parts) tierPartsOf.set(config, (parts = new Map()));
  const key = `${audience}\u0000${tier.code}`;
  let found = parts.get(key);
  if (found && found.tier === tier) return found.parts;
  const nextTier = nextTierAfter(config.progression.tiers, tier.levels[1] ?? Number.POSITIVE_INFINITY);
  const shown = config.progression.benefits.filter((benefit) => audience === "server" || benefit.compliance === "ok");
  const benefitNames = new Map(shown.map((benefit) => [benefit.code, benefit.name]));
  found = {
    tier,
    parts: {
      tierView: frozenJson({ code: tier.code, name: tier.name, color: tier.color ?? null, badge: tier.badge ?? null, vip: tier.vip }),
      nextTierView: nextTier && frozenJson({ code: nextTier.code, name: nextTier.name, starts_at_level: nextTier.startsAtLevel }),
      benefits: frozenJson(tier.benefits.filter((code) => benefitNames.has(code)).map((code) => benefitNames.get(code)!)),
    },
  };
  parts.set(key, found);
  return found.parts;
}
const tierPartsOf = new WeakMap<ClubConfig, Map<string, { tier: TierConfig; parts: TierParts }>>();

/** The club's whole level table: XP each level spans (null on the last) and its tier's look. */
export function levelTable(config: ClubConfig): Schemas["LevelInfo"][] {
  // Depends on the configuration alone (one object per published version): built once per version, shared by every view.
  let table = levelTables.get(config);
  if (!table) levelTables.set(config, (table = frozenJson(buildLevelTable(config))));
  return table;
}
const levelTables = new WeakMap<ClubConfig, Schemas["LevelInfo"][]>();

function buildLevelTable(config: ClubConfig): Schemas["LevelInfo"][] {
  const thresholds = levelThresholds(config.progression.curve);
  return thresholds.map((start, index) => {
    const { number, name, badge_url, color } = buildLevel(config, index + 1);
    return { number, name, xp_required: index + 1 < thresholds.length ? thresholds[index + 1] - start : null, badge_url, color };
  });
}

export function progressView(participant: ViewedParticipant, balances: Balances, config: ClubConfig): ParticipantProgress {
  const progress = progressFor(config.progression, participant.xp);
  const next = progress.nextLevelXp === null ? null : levelOf(config, progress.level + 1);
  return {
    participant: { external_id: participant.externalId, display_name: participant.displayName ?? null, avatar_url: participant.avatarUrl ?? null },
    level: levelOf(config, progress.level),
    xp: xpOf(progress, participant.xp),
    next_level: next && { number: next.number, name: next.name, badge_url: next.badge_url },
    levels: levelTable(config),
    currencies: currencyBalances(config, balances),
    updated_at: participant.updatedAt.toISOString(),
  };
}

export function progressBatchItem(participant: Pick<Participant, "externalId" | "xp">, config: ClubConfig): ParticipantProgressBatchItem {
  const progress = progressFor(config.progression, participant.xp);
  return { external_id: participant.externalId, level: levelOf(config, progress.level), xp: xpOf(progress, participant.xp) };
}
