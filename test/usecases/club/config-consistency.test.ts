import { describe, expect, it } from "vitest";
import { validateClubConfig } from "../../../server/src/usecases/club/config.js";
import { compactCasino, demoConfig } from "../../support/club-config.js";

/** The 422 message for the casino config after `change`, or null when it is accepted. */
function problem(change: (config: Record<string, any>) => void): string | null {
  const config = demoConfig(compactCasino);
  change(config);
  try {
    validateClubConfig(config, "body");
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

const tiers = (...levels: [number, number | null][]) => levels.map((range, i) => ({ code: `t${i}`, name: `Tier ${i}`, levels: range }));

const slice = (id: string, extra: Record<string, unknown> = {}) => ({ id, label: id, ...extra });

describe("cross-field configuration rules", () => {
  it("accepts the reference configuration", () => {
    expect(problem(() => {})).toBeNull();
  });

  describe("tier level ranges", () => {
    it("must start at level 1", () => {
      expect(problem((c) => (c.progression.tiers = tiers([1, 9], [10, null])))).toBeNull();
      expect(problem((c) => (c.progression.tiers = tiers([2, 9], [10, null])))).toBe(
        "body.progression.tiers[0].levels must start at level 1 (the lowest tier starts at level 2)",
      );
    });

    it("must not overlap (touching is fine, sharing a level is not), in any listed order", () => {
      expect(problem((c) => (c.progression.tiers = tiers([10, null], [1, 9])))).toBeNull();
      expect(problem((c) => (c.progression.tiers = tiers([1, 10], [10, null])))).toBe(
        "body.progression.tiers[1].levels overlaps body.progression.tiers[0].levels (levels 10 to level 10)",
      );
      expect(problem((c) => (c.progression.tiers = tiers([10, 20], [1, null])))).toBe(
        "body.progression.tiers[0].levels overlaps body.progression.tiers[1].levels (levels 10 to the last level)",
      );
    });

    it("may leave gaps, but a range cannot end before it starts", () => {
      expect(problem((c) => (c.progression.tiers = tiers([1, 5], [10, null])))).toBeNull();
      expect(problem((c) => (c.progression.tiers = tiers([1, 1], [2, null])))).toBeNull();
      expect(problem((c) => (c.progression.tiers = tiers([1, 9], [12, 11])))).toBe(
        "body.progression.tiers[1].levels ends (level 11) before it starts (level 12)",
      );
    });
  });

  describe("table curve thresholds", () => {
    it("start at 0 and never decrease", () => {
      expect(problem((c) => (c.progression.curve = { kind: "table", thresholds: [0, 100, 100, 250] }))).toBeNull();
      expect(problem((c) => (c.progression.curve = { kind: "table", thresholds: [0] }))).toBeNull();
      expect(problem((c) => (c.progression.curve = { kind: "table", thresholds: [1, 100] }))).toBe(
        "body.progression.curve.thresholds[0] must be 0 (level 1 starts at 0 XP)",
      );
      expect(problem((c) => (c.progression.curve = { kind: "table", thresholds: [0, 100, 99] }))).toBe(
        "body.progression.curve.thresholds[2] must be >= body.progression.curve.thresholds[1] (100)",
      );
    });
  });

  describe("references", () => {
    it("tier benefits name configured benefits", () => {
      expect(problem((c) => c.progression.tiers[1].benefits.push("saque-rapido"))).toBe(
        "body.progression.tiers[1].benefits[2] names benefit 'saque-rapido', which is not in body.progression.benefits",
      );
    });

    it("rule effects name configured currencies, rewards and missions", () => {
      expect(problem((c) => c.rules[0].effects.push({ type: "debit_currency", currency: "gems", amount: 1 }))).toBe(
        "body.rules[0].effects[3].currency names currency 'gems', which is not in body.currencies",
      );
      expect(problem((c) => c.rules[0].effects.push({ type: "grant_reward", reward: "bolo" }))).toBe(
        "body.rules[0].effects[3].reward names reward 'bolo', which is not in body.rewards",
      );
      expect(problem((c) => c.rules[0].effects.push({ type: "grant_reward", reward: "vip-box" }))).toBeNull();
      expect(problem((c) => (c.rules[0].effects[2].mission = "segundo-deposito"))).toBe(
        "body.rules[0].effects[2].mission names mission 'segundo-deposito', which is not in body.missions",
      );
    });

    it("rule tier_in conditions name configured tiers", () => {
      expect(problem((c) => (c.rules[0].conditions = [{ tier_in: ["prata", "ouro"] }]))).toBeNull();
      expect(problem((c) => (c.rules[0].conditions = [{ first_time: true }, { tier_in: ["prata", "diamante"] }]))).toBe(
        "body.rules[0].conditions[1].tier_in[1] names tier 'diamante', which is not in body.progression.tiers",
      );
    });

    it("rule expressions compile (amount, increment, points), naming the rule and the error", () => {
      const message = problem((c) => (c.rules[0].effects[0].amount = "event.amount * * 5"));
      expect(message).toMatch(/^body\.rules\[0\]\.effects\[0\]\.amount of rule 'deposito-xp' does not compile: invalid expression "event\.amount \* \* 5": \S/);
      expect(problem((c) => (c.rules[0].effects[2].increment = "participant.nope("))).toMatch(
        /^body\.rules\[0\]\.effects\[2\]\.increment of rule 'deposito-xp' does not compile/,
      );
      expect(problem((c) => (c.rules[0].effects[0].amount = "account.balance * 2"))).toMatch(/does not compile/);
      expect(problem((c) => (c.rules[0].effects[0].amount = "'dez'"))).toMatch(/gives a string, not a number/);
      expect(problem((c) => (c.rules[0].effects[0].amount = "event.amount * 2 + participant.level"))).toBeNull();
    });

    it("reward costs are in a configured currency", () => {
      expect(problem((c) => (c.rewards[1].cost.currency = "gems"))).toBe(
        "body.rewards[1].cost.currency names currency 'gems', which is not in body.currencies",
      );
    });

    it("mission rewards are reward references to configured rewards or currencies", () => {
      for (const ok of ["giros-10", "reward:vip-box", "coins:50", "cashback:2.5", "xp:100"]) {
        expect(problem((c) => (c.missions[0].reward = ok))).toBeNull();
      }
      expect(problem((c) => (c.missions[0].reward = "reward:bolo"))).toBe("body.missions[0].reward names reward 'bolo', which is not in body.rewards");
      expect(problem((c) => (c.missions[0].reward = "gems:10"))).toBe("body.missions[0].reward names currency 'gems', which is not in body.currencies");
      expect(problem((c) => (c.missions[0].reward = "Giros 10"))).toBe(
        "body.missions[0].reward must be xp:<number>, <currency>:<number>, reward:<reward_code> or a reward code (got 'Giros 10')",
      );
    });

    it("check-in days, wheel slices and tournament prizes grant configured things", () => {
      expect(problem((c) => (c.checkin = { rewards: [{ reward: "coins:10" }, { reward: "giros-10", multiplier: 2 }] }))).toBeNull();
      expect(problem((c) => (c.checkin = { rewards: [{ reward: "coins:10" }, { reward: "gems:1" }] }))).toBe(
        "body.checkin.rewards[1].reward names currency 'gems', which is not in body.currencies",
      );
      const wheel = (slices: object[]) => ({ slices });
      const fourSlices = [slice("a", { reward: "coins:5" }), slice("b"), slice("c", { reward: "giros-10" }), slice("d", { tierQty: { ouro: 2 } })];
      expect(problem((c) => (c.wheel = wheel(fourSlices)))).toBeNull();
      expect(problem((c) => (c.wheel = wheel([...fourSlices, slice("e", { reward: "reward:bolo" })])))).toBe(
        "body.wheel.slices[4].reward names reward 'bolo', which is not in body.rewards",
      );
      expect(problem((c) => (c.wheel = wheel([...fourSlices, slice("e", { tierQty: { diamante: 1 } })])))).toBe(
        "body.wheel.slices[4].tierQty.diamante names tier 'diamante', which is not in body.progression.tiers",
      );
    });

    it("referral rewards name configured currencies and rewards (the defaults use coins)", () => {
      expect(problem((c) => (c.referral = { referrerReward: "reward:vip-box", referredReward: null }))).toBeNull();
      expect(problem((c) => (c.referral = { referredReward: "xp:50" }))).toBeNull();
      expect(problem((c) => (c.referral = { referrerReward: "reward:bolo" }))).toBe(
        "body.referral.referrerReward names reward 'bolo', which is not in body.rewards",
      );
      expect(
        problem((c) => {
          c.currencies = [{ code: "pontos", name: "Pontos" }];
          c.rewards[1].cost.currency = "pontos";
          c.rules[0].effects[1].currency = "pontos";
          c.referral = {};
        }),
      ).toBe("body.referral.referrerReward names currency 'coins', which is not in body.currencies");
    });
  });

  describe("tournaments", () => {
    const tournament = (prizes: object[], window = { startsAt: "2026-12-01T00:00:00Z", endsAt: "2026-12-08T00:00:00Z" }) => ({
      id: "semana-slots",
      title: "Semana dos slots",
      event: "bet.placed",
      ...window,
      prizes,
    });

    it("prize ranges run forwards and do not overlap", () => {
      const prizes = [
        { from: 1, to: 1, reward: "vip-box" },
        { from: 2, to: 10, reward: "coins:100" },
      ];
      expect(problem((c) => (c.tournaments = [tournament(prizes)]))).toBeNull();
      expect(
        problem(
          (c) =>
            (c.tournaments = [
              tournament([
                { from: 1, to: 3, reward: "vip-box" },
                { from: 3, to: 10, reward: "coins:100" },
              ]),
            ]),
        ),
      ).toBe("body.tournaments[0].prizes[1] overlaps body.tournaments[0].prizes[0] (ranks 3 to 3)");
      expect(problem((c) => (c.tournaments = [tournament([{ from: 5, to: 4, reward: "vip-box" }])]))).toBe(
        "body.tournaments[0].prizes[0].to must be >= from (5)",
      );
      expect(problem((c) => (c.tournaments = [tournament([{ from: 1, to: 1, reward: "bolo" }])]))).toBe(
        "body.tournaments[0].prizes[0].reward names reward 'bolo', which is not in body.rewards",
      );
    });

    it("end after they start", () => {
      const same = { startsAt: "2026-12-01T00:00:00Z", endsAt: "2026-12-01T00:00:00Z" };
      expect(problem((c) => (c.tournaments = [tournament([{ from: 1, to: 1, reward: "vip-box" }], same)]))).toBe(
        "body.tournaments[0].endsAt must be after body.tournaments[0].startsAt",
      );
      expect(problem((c) => Object.assign(c.missions[0], { startsAt: "2026-12-02T00:00:00Z", endsAt: "2026-12-01T00:00:00Z" }))).toBe(
        "body.missions[0].endsAt must be after body.missions[0].startsAt",
      );
    });
  });

  describe("codes", () => {
    it("are unique within their list", () => {
      expect(problem((c) => c.currencies.push({ code: "coins", name: "Outras moedas" }))).toBe(
        "body.currencies[2].code 'coins' repeats body.currencies[0].code",
      );
      expect(problem((c) => c.rewards.push({ code: "vip-box", title: "Outra caixa" }))).toBe("body.rewards[2].code 'vip-box' repeats body.rewards[1].code");
      expect(problem((c) => c.rules.push({ ...c.rules[0] }))).toBe("body.rules[1].id 'deposito-xp' repeats body.rules[0].id");
      expect(problem((c) => c.progression.tiers.push({ code: "bronze", name: "Bronze 2", levels: [61, null] }))).toBe(
        "body.progression.tiers[3].code 'bronze' repeats body.progression.tiers[0].code",
      );
    });

    it("xp, reward and runs are not currency codes (reward specs and rule limits reserve them)", () => {
      expect(problem((c) => c.currencies.push({ code: "xp", name: "XP" }))).toBe("body.currencies[2].code 'xp' is reserved (in reward specs xp:<n> means XP)");
      expect(problem((c) => c.currencies.push({ code: "reward", name: "Prêmio" }))).toBe(
        "body.currencies[2].code 'reward' is reserved (in reward specs reward:<code> means a reward)",
      );
      expect(problem((c) => c.currencies.push({ code: "runs", name: "Corridas" }))).toBe(
        "body.currencies[2].code 'runs' is reserved (in per_participant_per_day the key runs caps the number of runs)",
      );
      expect(problem((c) => c.currencies.push({ code: "runs_2", name: "Corridas" }))).toBeNull();
    });
  });
});
