import type { MissionConfig, RuleConfig, RuleEffect } from "./config.js";
import { resolveAmount } from "./expressions.js";
import { dailyCapUnits, fitUnderCap } from "./limits.js";
import { advanceMission, missionAvailable } from "./missions.js";
import type { Session } from "./session.js";
import type { EngineEvent } from "./types.js";

/** A rule's `amount`/`increment`/`points` as a number, or null (reported in `skipped`). */
function resolve(session: Session, ruleId: string, effect: RuleEffect, amount: number | string, event: EngineEvent): number | null {
  // A number as configured needs no variables (see Session#expressionVariables).
  const result = typeof amount === "number" ? { ok: true as const, value: amount } : resolveAmount(amount, session.expressionVariables(event));
  if (!result.ok) {
    session.skip(ruleId, effect.type, result.reason, result.detail);
    return null;
  }
  return result.value;
}

/**
 * A grant in `unit` ("xp" or a currency code), reduced to what still fits
 * under the rule's daily cap for that unit; `granted` is today's running total
 * per unit for this rule (caps are in main units, `granted` in minor units).
 */
function capped(
  session: Session,
  rule: RuleConfig,
  effect: RuleEffect,
  unit: string,
  amount: number,
  decimals: number,
  granted: Record<string, number>,
): number | null {
  const fitting = fitUnderCap(amount, granted[unit] ?? 0, dailyCapUnits(rule, unit, decimals));
  if (fitting === 0) {
    session.skip(rule.id, effect.type, "daily_limit", `the rule's daily ${unit} limit is reached`);
    return null;
  }
  granted[unit] = (granted[unit] ?? 0) + fitting;
  return fitting;
}

/** The mission with `id` (a loop, not `find` with a closure: asked for each effect of each event). */
function missionWithId(missions: readonly MissionConfig[], id: string): MissionConfig | undefined {
  for (let i = 0; i < missions.length; i++) if (missions[i].id === id) return missions[i];
  return undefined;
}

/** Applies one effect of a firing rule. `granted` is updated with what the rule grants today. */
export function applyRuleEffect(session: Session, rule: RuleConfig, effect: RuleEffect, event: EngineEvent, granted: Record<string, number>): void {
  const ruleId = rule.id;
  switch (effect.type) {
    case "grant_xp": {
      const value = resolve(session, ruleId, effect, effect.amount, event);
      const xp = value === null ? null : session.positiveUnits(ruleId, effect.type, value, 0);
      const fitting = xp === null ? null : capped(session, rule, effect, "xp", xp, 0, granted);
      if (fitting !== null) session.grantXp(fitting, ruleId);
      return;
    }
    case "grant_currency":
    case "debit_currency": {
      const currency = session.currency(effect.currency);
      if (!currency) {
        session.skip(ruleId, effect.type, "unknown_currency", `no currency with code ${JSON.stringify(effect.currency)}`);
        return;
      }
      const value = resolve(session, ruleId, effect, effect.amount, event);
      const amount = value === null ? null : session.positiveUnits(ruleId, effect.type, value, currency.decimals);
      if (amount === null) return;
      if (effect.type === "debit_currency") {
        if (!session.debitCurrency(currency, amount, ruleId)) session.refuse(ruleId, effect.type, "insufficient_balance");
        return;
      }
      const fitting = capped(session, rule, effect, currency.code, amount, currency.decimals, granted);
      if (fitting !== null) session.grantCurrency(currency, fitting, ruleId);
      return;
    }
    case "grant_reward": {
      const reward = session.reward(effect.reward);
      if (reward) session.grantReward(reward, ruleId);
      else session.skip(ruleId, effect.type, "unknown_reward", `no reward with code ${JSON.stringify(effect.reward)}`);
      return;
    }
    case "progress_mission": {
      const mission = missionWithId(session.config.missions, effect.mission);
      if (!mission) {
        session.skip(ruleId, effect.type, "unknown_mission", `no mission with id ${JSON.stringify(effect.mission)}`);
        return;
      }
      if (!missionAvailable(session, mission)) {
        session.skip(ruleId, effect.type, "mission_unavailable", `mission ${mission.id} is disabled, outside its dates or not for this participant`);
        return;
      }
      const increment = resolve(session, ruleId, effect, effect.increment, event);
      if (increment === null) return;
      if (increment <= 0) session.skip(ruleId, effect.type, "non_positive", `the increment ${increment} is not positive`);
      else advanceMission(session, mission, increment);
      return;
    }
    case "add_leaderboard_points": {
      // Points are used as computed (a tournament may sum amounts with cents).
      const points = resolve(session, ruleId, effect, effect.points, event);
      if (points === null) return;
      if (points <= 0) session.skip(ruleId, effect.type, "non_positive", `the points ${points} are not positive`);
      else session.addLeaderboardPoints(effect.campaign, points, ruleId);
      return;
    }
    case "grant_badge":
      session.grantBadge(effect.badge, ruleId);
      return;
    case "notify":
      session.notify(effect.template, ruleId);
      return;
    case "webhook":
      session.requestWebhook(effect.event, ruleId);
      return;
    case "tag_participant": {
      const refusal = session.tag(effect.tag, ruleId);
      if (refusal !== null) session.refuse(ruleId, effect.type, refusal);
      return;
    }
  }
}
