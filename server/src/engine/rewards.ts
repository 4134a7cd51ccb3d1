import type { RuleEffect } from "./config.js";
import type { Session } from "./session.js";

/**
 * A reward spec as written in the config (missions, check-in, wheel, referral):
 * `xp:<number>`, `<currency_code>:<number>`, `reward:<reward_code>`, or a bare
 * reward code. The number is in main units and may have a decimal part.
 */
export type RewardSpec = { kind: "xp"; amount: string } | { kind: "currency"; currency: string; amount: string } | { kind: "reward"; code: string };

const NUMBER = "(\\d+(?:\\.\\d+)?)";
const XP_SPEC = new RegExp(`^xp:${NUMBER}$`);
const CURRENCY_SPEC = new RegExp(`^([a-z][a-z0-9_]*):${NUMBER}$`);
const REWARD_SPEC = /^reward:([a-z0-9-]+)$/;
const REWARD_CODE = /^[a-z0-9-]+$/;

/** Parses a reward spec; null when it follows none of the forms. */
export function parseRewardSpec(spec: string): RewardSpec | null {
  let match = XP_SPEC.exec(spec);
  if (match) return { kind: "xp", amount: match[1] };
  match = REWARD_SPEC.exec(spec);
  if (match) return { kind: "reward", code: match[1] };
  match = CURRENCY_SPEC.exec(spec);
  if (match) return { kind: "currency", currency: match[1], amount: match[2] };
  if (REWARD_CODE.test(spec)) return { kind: "reward", code: spec };
  return null;
}

const EFFECT_OF_KIND: Record<RewardSpec["kind"], RuleEffect["type"]> = {
  xp: "grant_xp",
  currency: "grant_currency",
  reward: "grant_reward",
};

/**
 * Grants what `spec` describes on behalf of `ruleId` (e.g. `mission:<id>`):
 * XP truncated to whole points, currency converted to minor units truncated,
 * or a configured reward. A spec that is malformed, names an unknown currency
 * or reward, or comes to nothing is reported in `skipped`.
 */
export function grantRewardSpec(session: Session, spec: string, ruleId: string): void {
  const parsed = parseRewardSpec(spec);
  if (parsed === null) {
    session.skip(ruleId, "grant_reward", "invalid_reward_spec", `${JSON.stringify(spec)} is not xp:<n>, <currency>:<n>, reward:<code> or a reward code`);
    return;
  }
  const effect = EFFECT_OF_KIND[parsed.kind];
  switch (parsed.kind) {
    case "reward": {
      const reward = session.reward(parsed.code);
      if (reward) session.grantReward(reward, ruleId);
      else session.skip(ruleId, effect, "unknown_reward", `no reward with code ${JSON.stringify(parsed.code)}`);
      return;
    }
    case "xp": {
      const xp = session.positiveUnits(ruleId, effect, parsed.amount, 0);
      if (xp !== null) session.grantXp(xp, ruleId);
      return;
    }
    case "currency": {
      const currency = session.currency(parsed.currency);
      if (!currency) {
        session.skip(ruleId, effect, "unknown_currency", `no currency with code ${JSON.stringify(parsed.currency)}`);
        return;
      }
      const amount = session.positiveUnits(ruleId, effect, parsed.amount, currency.decimals);
      if (amount !== null) session.grantCurrency(currency, amount, ruleId);
      return;
    }
  }
}
