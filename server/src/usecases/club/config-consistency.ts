import type { ClubConfig } from "../../engine/config.js";
import { compileExpression } from "../../engine/expressions.js";
import { parseRewardSpec } from "../../engine/rewards.js";

/**
 * The configuration rules a JSON Schema cannot express: codes that must be
 * unique, references that must point at configured currencies, rewards,
 * missions, tiers and benefits, and ranges that must fit together. Runs on a
 * configuration the schema validator accepted (defaults filled). Returns the
 * first problem as a 422 message naming the field from `root` (`body` for a
 * request body, `config` for a file). Every problem is reported, in the
 * order of the checks, so an operator fixes a file in one pass; [] when consistent.
 */
export function findInconsistencies(config: ClubConfig, root: string): string[] {
  const checks: Check[] = [
    reservedCurrencyCodes,
    duplicateCodes,
    tierRanges,
    tableThresholds,
    tierBenefits,
    ruleReferences,
    ruleExpressions,
    rewardCosts,
    missionReferences,
    tournamentReferences,
    officialSplits,
    checkinReferences,
    wheelReferences,
    referralReferences,
  ];
  return checks.flatMap((check) => check(config, root));
}

/** Problems as messages naming the field; a single problem may be `null` (none) where a list is built. */
type Problems = string[];
type Check = (config: ClubConfig, root: string) => Problems;

/** The problems of every item, in order. */
function each<T>(items: readonly T[], problems: (item: T, index: number) => Problems | string | null): Problems {
  return items.flatMap((item, index) => list(problems(item, index)));
}

function list(problem: Problems | string | null): Problems {
  return problem === null ? [] : typeof problem === "string" ? [problem] : problem;
}

/** A map key as a path segment, written the way 422 messages write field paths: `.ouro`, or `["vip tier"]`. */
function member(key: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** `<path> names <what> '<value>', which is not in <list>`. */
function missing(path: string, what: string, value: string, list: string): string {
  return `${path} names ${what} '${value}', which is not in ${list}`;
}

/** Words that already mean something where currency codes appear: a currency with one of these codes could never be referenced. */
const RESERVED_UNITS: Record<string, string> = {
  xp: "in reward specs xp:<n> means XP",
  reward: "in reward specs reward:<code> means a reward",
  runs: "in per_participant_per_day the key runs caps the number of runs",
};

const reservedCurrencyCodes: Check = (config, root) =>
  each(config.currencies, (currency, i) =>
    Object.hasOwn(RESERVED_UNITS, currency.code) ? `${root}.currencies[${i}].code '${currency.code}' is reserved (${RESERVED_UNITS[currency.code]})` : null,
  );

function duplicates(codes: string[], path: (index: number) => string): Problems {
  const seen = new Map<string, number>();
  return each(codes, (code, index) => {
    const first = seen.get(code);
    seen.set(code, first ?? index);
    return first === undefined ? null : `${path(index)} '${code}' repeats ${path(first)}`;
  });
}

const duplicateCodes: Check = (config, root) => [
  ...duplicates(
    config.currencies.map((c) => c.code),
    (i) => `${root}.currencies[${i}].code`,
  ),
  ...duplicates(
    config.progression.tiers.map((t) => t.code),
    (i) => `${root}.progression.tiers[${i}].code`,
  ),
  ...duplicates(
    config.progression.benefits.map((b) => b.code),
    (i) => `${root}.progression.benefits[${i}].code`,
  ),
  ...duplicates(
    config.rewards.map((r) => r.code),
    (i) => `${root}.rewards[${i}].code`,
  ),
  ...duplicates(
    config.rules.map((r) => r.id),
    (i) => `${root}.rules[${i}].id`,
  ),
  ...duplicates(
    config.missions.map((m) => m.id),
    (i) => `${root}.missions[${i}].id`,
  ),
  ...duplicates(
    config.tournaments.map((t) => t.id),
    (i) => `${root}.tournaments[${i}].id`,
  ),
  ...duplicates(
    (config.wheel?.slices ?? []).map((s) => s.id),
    (i) => `${root}.wheel.slices[${i}].id`,
  ),
];

/**
 * Tier level ranges: each ends at or after its start, the lowest starts at
 * level 1, and no two overlap (an open range, `last` null, must be the highest).
 * Gaps are allowed: a level in a gap keeps the tier below it. A backwards range
 * makes the ordering checks meaningless, so they run only without one.
 */
const tierRanges: Check = (config, root) => {
  const at = (i: number) => `${root}.progression.tiers[${i}].levels`;
  const tiers = config.progression.tiers.map((tier, index) => ({ index, first: tier.levels[0], last: tier.levels[1] }));
  const backwards = each(tiers, (tier) =>
    tier.last !== null && tier.last < tier.first ? `${at(tier.index)} ends (level ${tier.last}) before it starts (level ${tier.first})` : null,
  );
  if (backwards.length > 0) return backwards;
  const byStart = [...tiers].sort((a, b) => a.first - b.first);
  const problems: Problems = [];
  if (byStart[0].first !== 1) problems.push(`${at(byStart[0].index)} must start at level 1 (the lowest tier starts at level ${byStart[0].first})`);
  for (let i = 1; i < byStart.length; i++) {
    const [below, above] = [byStart[i - 1], byStart[i]];
    if (below.last === null || below.last >= above.first) {
      const to = below.last === null ? "the last level" : `level ${below.last}`;
      problems.push(`${at(above.index)} overlaps ${at(below.index)} (levels ${above.first} to ${to})`);
    }
  }
  return problems;
};

/** A table curve starts at 0 XP (level 1) and never decreases. */
const tableThresholds: Check = (config, root) => {
  const curve = config.progression.curve;
  if (curve.kind !== "table") return [];
  const at = `${root}.progression.curve.thresholds`;
  return [
    ...(curve.thresholds[0] !== 0 ? [`${at}[0] must be 0 (level 1 starts at 0 XP)`] : []),
    ...each(curve.thresholds, (xp, i) =>
      i > 0 && xp < curve.thresholds[i - 1] ? `${at}[${i}] must be >= ${at}[${i - 1}] (${curve.thresholds[i - 1]})` : null,
    ),
  ];
};

const tierBenefits: Check = (config, root) => {
  const benefits = new Set(config.progression.benefits.map((b) => b.code));
  return each(config.progression.tiers, (tier, t) =>
    each(tier.benefits, (code, b) =>
      benefits.has(code) ? null : missing(`${root}.progression.tiers[${t}].benefits[${b}]`, "benefit", code, `${root}.progression.benefits`),
    ),
  );
};

const ruleReferences: Check = (config, root) => {
  const currencies = new Set(config.currencies.map((c) => c.code));
  const rewards = new Set(config.rewards.map((r) => r.code));
  const missions = new Set(config.missions.map((m) => m.id));
  const tiers = new Set(config.progression.tiers.map((t) => t.code));
  return each(config.rules, (rule, r) => [
    ...each(rule.effects, (effect, e) => {
      const at = `${root}.rules[${r}].effects[${e}]`;
      if ((effect.type === "grant_currency" || effect.type === "debit_currency") && !currencies.has(effect.currency)) {
        return missing(`${at}.currency`, "currency", effect.currency, `${root}.currencies`);
      }
      if (effect.type === "grant_reward" && !rewards.has(effect.reward)) return missing(`${at}.reward`, "reward", effect.reward, `${root}.rewards`);
      if (effect.type === "progress_mission" && !missions.has(effect.mission)) return missing(`${at}.mission`, "mission", effect.mission, `${root}.missions`);
      return null;
    }),
    ...each(rule.conditions, (condition, c) =>
      "tier_in" in condition
        ? each(condition.tier_in, (code, t) =>
            tiers.has(code) ? null : missing(`${root}.rules[${r}].conditions[${c}].tier_in[${t}]`, "tier", code, `${root}.progression.tiers`),
          )
        : null,
    ),
  ]);
};

/** The effect fields that may hold a `RuleExpression` (a `RuleQuantity`). */
const QUANTITY_FIELDS = ["amount", "increment", "points"] as const;

/**
 * Every rule expression compiles (syntax, names, a numeric result) when the
 * configuration is saved or published: an expression that cannot compile would
 * otherwise be accepted and then silently grant nothing on every event.
 */
const ruleExpressions: Check = (config, root) =>
  each(config.rules, (rule, r) =>
    each(rule.effects, (effect, e) =>
      each(QUANTITY_FIELDS, (field) => {
        const source = (effect as Record<string, unknown>)[field];
        if (typeof source !== "string") return null;
        try {
          compileExpression(source);
          return null;
        } catch (error) {
          return `${root}.rules[${r}].effects[${e}].${field} of rule '${rule.id}' does not compile: ${(error as Error).message}`;
        }
      }),
    ),
  );

const rewardCosts: Check = (config, root) => {
  const currencies = new Set(config.currencies.map((c) => c.code));
  return each(config.rewards, (reward, r) =>
    reward.cost && !currencies.has(reward.cost.currency)
      ? missing(`${root}.rewards[${r}].cost.currency`, "currency", reward.cost.currency, `${root}.currencies`)
      : null,
  );
};

/**
 * A reward reference (`xp:<n>`, `<currency>:<n>`, `reward:<code>` or a bare
 * reward code) must have one of those forms and name a configured currency or reward.
 */
function rewardReference(config: ClubConfig, root: string, path: string, reference: string): string | null {
  const spec = parseRewardSpec(reference);
  if (spec === null) return `${path} must be xp:<number>, <currency>:<number>, reward:<reward_code> or a reward code (got '${reference}')`;
  if (spec.kind === "currency" && !config.currencies.some((c) => c.code === spec.currency))
    return missing(path, "currency", spec.currency, `${root}.currencies`);
  if (spec.kind === "reward" && !config.rewards.some((r) => r.code === spec.code)) return missing(path, "reward", spec.code, `${root}.rewards`);
  return null;
}

/** A time window ends after it starts. */
function window(path: string, startsAt: string | undefined, endsAt: string | undefined): string | null {
  if (startsAt === undefined || endsAt === undefined) return null;
  return Date.parse(endsAt) > Date.parse(startsAt) ? null : `${path}.endsAt must be after ${path}.startsAt`;
}

const missionReferences: Check = (config, root) =>
  each(config.missions, (mission, m) => [
    ...list(rewardReference(config, root, `${root}.missions[${m}].reward`, mission.reward)),
    ...list(window(`${root}.missions[${m}]`, mission.startsAt, mission.endsAt)),
  ]);

/** Prize rank ranges run from `from` to `to` and do not overlap (checked once every range is the right way round). */
const tournamentReferences: Check = (config, root) =>
  each(config.tournaments, (tournament, t) => {
    const at = `${root}.tournaments[${t}]`;
    const prizes = tournament.prizes.map((prize, index) => ({ ...prize, index }));
    const problems = [
      ...list(window(at, tournament.startsAt, tournament.endsAt)),
      ...each(prizes, (prize) =>
        prize.to < prize.from
          ? `${at}.prizes[${prize.index}].to must be >= from (${prize.from})`
          : rewardReference(config, root, `${at}.prizes[${prize.index}].reward`, prize.reward),
      ),
    ];
    if (problems.length > 0) return problems;
    const byRank = prizes.sort((a, b) => a.from - b.from);
    return each(byRank, (prize, i) =>
      i > 0 && prize.from <= byRank[i - 1].to
        ? `${at}.prizes[${prize.index}] overlaps ${at}.prizes[${byRank[i - 1].index}] (ranks ${prize.from} to ${Math.min(prize.to, byRank[i - 1].to)})`
        : null,
    );
  });

/** An official period's shares may not pay out more than its pool. */
const officialSplits: Check = (config, root) =>
  each(["daily", "monthly"] as const, (period) => {
    const split = config.officialTournaments?.[period]?.split ?? [];
    // Summed in ten-thousandths of a percent, as settlement reads them.
    const total = split.reduce((sum, share) => sum + Math.round(share * 10_000), 0);
    return total > 100 * 10_000 ? `${root}.officialTournaments.${period}.split adds up to more than 100 (${total / 10_000})` : null;
  });

const checkinReferences: Check = (config, root) =>
  each(config.checkin?.rewards ?? [], (day, d) => rewardReference(config, root, `${root}.checkin.rewards[${d}].reward`, day.reward));

const wheelReferences: Check = (config, root) => {
  const tiers = new Set(config.progression.tiers.map((t) => t.code));
  return each(config.wheel?.slices ?? [], (slice, s) => {
    const at = `${root}.wheel.slices[${s}]`;
    return [
      ...list(slice.reward == null ? null : rewardReference(config, root, `${at}.reward`, slice.reward)),
      ...each(Object.keys(slice.tierQty ?? {}), (tier) =>
        tiers.has(tier) ? null : missing(`${at}.tierQty${member(tier)}`, "tier", tier, `${root}.progression.tiers`),
      ),
    ];
  });
};

const referralReferences: Check = (config, root) => {
  const referral = config.referral ?? {};
  // `referredReward: null` means the referred friend gets nothing.
  const specs = (["referrerReward", "referredReward"] as const).filter((field) => referral[field] != null);
  return each(specs, (field) => rewardReference(config, root, `${root}.referral.${field}`, referral[field]!));
};
