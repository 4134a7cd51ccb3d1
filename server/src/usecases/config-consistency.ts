import type { ClubConfig } from "../engine/config.js";
import { parseRewardSpec } from "../engine/rewards.js";

/**
 * The configuration rules a JSON Schema cannot express: codes that must be
 * unique, references that must point at configured currencies, rewards,
 * missions, tiers and benefits, and ranges that must fit together. Runs on a
 * configuration the schema validator accepted (defaults filled). Returns the
 * first problem as a 422 message naming the field (`config.<path>`), or null.
 */
export function findInconsistency(config: ClubConfig): string | null {
  const checks = [
    () => reservedCurrencyCodes(config),
    () => duplicateCodes(config),
    () => tierRanges(config),
    () => tableThresholds(config),
    () => tierBenefits(config),
    () => ruleReferences(config),
    () => rewardCosts(config),
    () => missionReferences(config),
    () => tournamentReferences(config),
    () => checkinReferences(config),
    () => wheelReferences(config),
    () => referralReferences(config),
  ];
  for (const check of checks) {
    const problem = check();
    if (problem) return problem;
  }
  return null;
}

type Problem = string | null;

/** The unit prefixes of a reward spec mean XP and a reward: a currency with one of these codes could never be referenced. */
const RESERVED_UNITS: Record<string, string> = { xp: "xp:<n> means XP", reward: "reward:<code> means a reward" };

function reservedCurrencyCodes(config: ClubConfig): Problem {
  const index = config.currencies.findIndex((currency) => Object.hasOwn(RESERVED_UNITS, currency.code));
  if (index < 0) return null;
  const code = config.currencies[index].code;
  return `config.currencies[${index}].code ${JSON.stringify(code)} is reserved (in reward specs ${RESERVED_UNITS[code]})`;
}

function firstDuplicate(codes: string[], path: (index: number) => string): Problem {
  const seen = new Map<string, number>();
  for (const [index, code] of codes.entries()) {
    const first = seen.get(code);
    if (first !== undefined) return `${path(index)} ${JSON.stringify(code)} repeats ${path(first)}`;
    seen.set(code, index);
  }
  return null;
}

function duplicateCodes(config: ClubConfig): Problem {
  return (
    firstDuplicate(config.currencies.map((c) => c.code), (i) => `config.currencies[${i}].code`) ??
    firstDuplicate(config.progression.tiers.map((t) => t.code), (i) => `config.progression.tiers[${i}].code`) ??
    firstDuplicate(config.progression.benefits.map((b) => b.code), (i) => `config.progression.benefits[${i}].code`) ??
    firstDuplicate(config.rewards.map((r) => r.code), (i) => `config.rewards[${i}].code`) ??
    firstDuplicate(config.rules.map((r) => r.id), (i) => `config.rules[${i}].id`) ??
    firstDuplicate(config.missions.map((m) => m.id), (i) => `config.missions[${i}].id`) ??
    firstDuplicate(config.tournaments.map((t) => t.id), (i) => `config.tournaments[${i}].id`) ??
    firstDuplicate((config.wheel?.slices ?? []).map((s) => s.id), (i) => `config.wheel.slices[${i}].id`)
  );
}

/**
 * Tier level ranges: each ends at or after its start, the lowest starts at
 * level 1, and no two overlap (an open range, `last` null, must be the highest).
 * Gaps are allowed: a level in a gap keeps the tier below it.
 */
function tierRanges(config: ClubConfig): Problem {
  const tiers = config.progression.tiers.map((tier, index) => ({ index, first: tier.levels[0], last: tier.levels[1] }));
  for (const tier of tiers) {
    if (tier.last !== null && tier.last < tier.first) {
      return `config.progression.tiers[${tier.index}].levels ends (level ${tier.last}) before it starts (level ${tier.first})`;
    }
  }
  const byStart = [...tiers].sort((a, b) => a.first - b.first);
  if (byStart[0].first !== 1) return `config.progression.tiers[${byStart[0].index}].levels must start at level 1 (the lowest tier starts at level ${byStart[0].first})`;
  for (let i = 1; i < byStart.length; i++) {
    const below = byStart[i - 1];
    if (below.last === null || below.last >= byStart[i].first) {
      return `config.progression.tiers[${byStart[i].index}].levels overlaps config.progression.tiers[${below.index}].levels`;
    }
  }
  return null;
}

/** A table curve starts at 0 XP (level 1) and never decreases. */
function tableThresholds(config: ClubConfig): Problem {
  const curve = config.progression.curve;
  if (curve.kind !== "table") return null;
  if (curve.thresholds[0] !== 0) return `config.progression.curve.thresholds[0] must be 0 (level 1 starts at 0 XP)`;
  for (let i = 1; i < curve.thresholds.length; i++) {
    if (curve.thresholds[i] < curve.thresholds[i - 1]) {
      return `config.progression.curve.thresholds[${i}] must be >= thresholds[${i - 1}] (${curve.thresholds[i - 1]})`;
    }
  }
  return null;
}

function tierBenefits(config: ClubConfig): Problem {
  const benefits = new Set(config.progression.benefits.map((b) => b.code));
  for (const [t, tier] of config.progression.tiers.entries()) {
    const b = tier.benefits.findIndex((code) => !benefits.has(code));
    if (b >= 0) return `config.progression.tiers[${t}].benefits[${b}] names no benefit of config.progression.benefits (${JSON.stringify(tier.benefits[b])})`;
  }
  return null;
}

function unknown(path: string, what: string, value: string): string {
  return `${path} names no configured ${what} (${JSON.stringify(value)})`;
}

function ruleReferences(config: ClubConfig): Problem {
  const currencies = new Set(config.currencies.map((c) => c.code));
  const rewards = new Set(config.rewards.map((r) => r.code));
  const missions = new Set(config.missions.map((m) => m.id));
  const tiers = new Set(config.progression.tiers.map((t) => t.code));
  for (const [r, rule] of config.rules.entries()) {
    for (const [e, effect] of rule.effects.entries()) {
      const at = `config.rules[${r}].effects[${e}]`;
      if ((effect.type === "grant_currency" || effect.type === "debit_currency") && !currencies.has(effect.currency)) {
        return unknown(`${at}.currency`, "currency", effect.currency);
      }
      if (effect.type === "grant_reward" && !rewards.has(effect.reward)) return unknown(`${at}.reward`, "reward", effect.reward);
      if (effect.type === "progress_mission" && !missions.has(effect.mission)) return unknown(`${at}.mission`, "mission", effect.mission);
    }
    for (const [c, condition] of rule.conditions.entries()) {
      if (!("tier_in" in condition)) continue;
      const t = condition.tier_in.findIndex((code) => !tiers.has(code));
      if (t >= 0) return unknown(`config.rules[${r}].conditions[${c}].tier_in[${t}]`, "tier", condition.tier_in[t]);
    }
  }
  return null;
}

function rewardCosts(config: ClubConfig): Problem {
  const currencies = new Set(config.currencies.map((c) => c.code));
  const index = config.rewards.findIndex((reward) => reward.cost != null && !currencies.has(reward.cost.currency));
  return index < 0 ? null : unknown(`config.rewards[${index}].cost.currency`, "currency", config.rewards[index].cost!.currency);
}

/**
 * A reward reference (`xp:<n>`, `<currency>:<n>`, `reward:<code>` or a bare
 * reward code) must have one of those forms and name a configured currency or reward.
 */
function rewardReference(config: ClubConfig, path: string, reference: string): Problem {
  const spec = parseRewardSpec(reference);
  if (spec === null) return `${path} must be xp:<number>, <currency>:<number>, reward:<reward_code> or a reward code (got ${JSON.stringify(reference)})`;
  if (spec.kind === "currency" && !config.currencies.some((c) => c.code === spec.currency)) return unknown(path, "currency", spec.currency);
  if (spec.kind === "reward" && !config.rewards.some((r) => r.code === spec.code)) return unknown(path, "reward", spec.code);
  return null;
}

function firstProblem<T>(items: T[], problem: (item: T, index: number) => Problem): Problem {
  for (const [index, item] of items.entries()) {
    const found = problem(item, index);
    if (found) return found;
  }
  return null;
}

/** A time window ends after it starts. */
function window(path: string, startsAt: string | undefined, endsAt: string | undefined): Problem {
  if (startsAt === undefined || endsAt === undefined) return null;
  return Date.parse(endsAt) > Date.parse(startsAt) ? null : `${path}.endsAt must be after ${path}.startsAt`;
}

function missionReferences(config: ClubConfig): Problem {
  return firstProblem(config.missions, (mission, m) =>
    rewardReference(config, `config.missions[${m}].reward`, mission.reward) ?? window(`config.missions[${m}]`, mission.startsAt, mission.endsAt),
  );
}

/** Prize rank ranges run from `from` to `to` and do not overlap. */
function tournamentReferences(config: ClubConfig): Problem {
  return firstProblem(config.tournaments, (tournament, t) => {
    const at = `config.tournaments[${t}]`;
    const prizes = tournament.prizes.map((prize, index) => ({ ...prize, index }));
    const problem =
      window(at, tournament.startsAt, tournament.endsAt) ??
      firstProblem(prizes, (prize) =>
        prize.to < prize.from ? `${at}.prizes[${prize.index}].to must be >= from (${prize.from})` : rewardReference(config, `${at}.prizes[${prize.index}].reward`, prize.reward),
      );
    if (problem) return problem;
    const byRank = prizes.sort((a, b) => a.from - b.from);
    for (let i = 1; i < byRank.length; i++) {
      if (byRank[i].from <= byRank[i - 1].to) return `${at}.prizes[${byRank[i].index}] overlaps ${at}.prizes[${byRank[i - 1].index}] (ranks ${byRank[i].from}..${byRank[i - 1].to})`;
    }
    return null;
  });
}

function checkinReferences(config: ClubConfig): Problem {
  return firstProblem(config.checkin?.rewards ?? [], (day, d) => rewardReference(config, `config.checkin.rewards[${d}].reward`, day.reward));
}

function wheelReferences(config: ClubConfig): Problem {
  const tiers = new Set(config.progression.tiers.map((t) => t.code));
  return firstProblem(config.wheel?.slices ?? [], (slice, s) => {
    const at = `config.wheel.slices[${s}]`;
    if (slice.reward != null) {
      const problem = rewardReference(config, `${at}.reward`, slice.reward);
      if (problem) return problem;
    }
    const tier = Object.keys(slice.tierQty ?? {}).find((code) => !tiers.has(code));
    return tier === undefined ? null : unknown(`${at}.tierQty[${JSON.stringify(tier)}]`, "tier", tier);
  });
}

function referralReferences(config: ClubConfig): Problem {
  const referral = config.referral ?? {};
  // `referredReward: null` means the referred friend gets nothing.
  const specs = (["referrerReward", "referredReward"] as const).filter((field) => referral[field] != null);
  return firstProblem(specs, (field) => rewardReference(config, `config.referral.${field}`, referral[field]!));
}
