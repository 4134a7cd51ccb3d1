import { describe, expect, it } from "vitest";
import {
  REFERRAL_CODE_LENGTH,
  affiliateLink,
  earnedText,
  friendName,
  isOldAccount,
  normalizeReferralCode,
  qualifiesReferral,
  referralCodeFor,
  referralLink,
  referralRefusal,
  type ReferralConfig,
  type ReferralFacts,
} from "../../../server/src/engine/referral.js";
import { casinoEngineConfig } from "../fixtures.js";

const referral = (overrides: Partial<ReferralConfig> = {}): ReferralConfig => ({
  enabled: true,
  referrerReward: "coins:200",
  referredReward: "coins:100",
  qualifyEvent: "deposit.confirmed",
  minAmount: 20,
  dailyLimit: 10,
  shareUrl: "https://cassino.example.com/cadastro",
  ...overrides,
});

describe("referral codes", () => {
  it("are 8 unambiguous upper-case characters, stable for an id", () => {
    const code = referralCodeFor("par_4kT9aB");
    expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{8}$/);
    expect(code).toHaveLength(REFERRAL_CODE_LENGTH);
    expect(referralCodeFor("par_4kT9aB")).toBe(code);
    expect(referralCodeFor("par_4kT9aC")).not.toBe(code);
  });

  it("give another code on the next attempt after a collision", () => {
    expect(referralCodeFor("par_4kT9aB", 1)).not.toBe(referralCodeFor("par_4kT9aB"));
    expect(referralCodeFor("par_4kT9aB", 1)).toMatch(/^[0-9A-HJKMNP-TV-Z]{8}$/);
  });

  it("are matched without regard to case", () => {
    expect(normalizeReferralCode("ab12cd34")).toBe("AB12CD34");
  });
});

describe("links", () => {
  it("the share link adds ref=<code> to shareUrl, keeping its own query", () => {
    expect(referralLink(referral(), "AB12CD34")).toBe("https://cassino.example.com/cadastro?ref=AB12CD34");
    expect(referralLink(referral({ shareUrl: "https://cassino.example.com/?utm=x" }), "AB12CD34")).toBe("https://cassino.example.com/?utm=x&ref=AB12CD34");
  });

  it("there is no share link without a shareUrl", () => {
    expect(referralLink(referral({ shareUrl: "" }), "AB12CD34")).toBeNull();
  });

  it("an affiliate link uses shareUrl, else the first allowed origin", () => {
    expect(affiliateLink({ referral: referral(), allowedOrigins: ["https://other.example"] }, "STREAMERJOAO")).toBe(
      "https://cassino.example.com/cadastro?aff=STREAMERJOAO",
    );
    expect(affiliateLink({ allowedOrigins: ["https://cassino.example.com"] }, "STREAMERJOAO")).toBe("https://cassino.example.com/?aff=STREAMERJOAO");
  });

  it("an affiliate link of a club with no site is a URN naming the code", () => {
    expect(affiliateLink({ referral: referral({ shareUrl: "" }), allowedOrigins: [] }, "STREAMER JOAO")).toBe("urn:clube:affiliate:STREAMER%20JOAO");
  });
});

describe("isOldAccount", () => {
  const now = new Date("2026-11-21T12:00:00Z");
  it("accepts an account exactly 30 days old and refuses one a second older", () => {
    expect(isOldAccount(new Date("2026-10-22T12:00:00Z"), now)).toBe(false);
    expect(isOldAccount(new Date("2026-10-22T11:59:59Z"), now)).toBe(true);
  });
});

describe("referralRefusal", () => {
  const counts: ReferralFacts = { enabled: true, ownCode: false, alreadyReferred: false, existingPlayer: false, referrerToday: 0, dailyLimit: 10 };

  it("counts a new user under the daily limit", () => {
    expect(referralRefusal(counts)).toBeNull();
    expect(referralRefusal({ ...counts, referrerToday: 9 })).toBeNull();
  });

  it.each([
    [{ enabled: false }, "The club's referral program is disabled"],
    [{ ownCode: true }, "A participant cannot use their own referral code"],
    [{ alreadyReferred: true }, "The participant was already referred"],
    [{ existingPlayer: true }, "The participant is an existing player, not a new user"],
    [{ referrerToday: 10 }, "The referrer reached the limit of 10 referrals today"],
  ])("refuses %o", (facts, message) => {
    expect(referralRefusal({ ...counts, ...facts })).toBe(message);
  });

  it.each([
    [1, 0, null],
    [1, 1, "The referrer reached the limit of 1 referrals today"],
    [100, 99, null],
    [100, 100, "The referrer reached the limit of 100 referrals today"],
  ])("dailyLimit %i with %i today", (dailyLimit, referrerToday, message) => {
    expect(referralRefusal({ ...counts, dailyLimit, referrerToday })).toBe(message);
  });
});

describe("qualifiesReferral", () => {
  it("needs the qualify event with an amount of at least minAmount", () => {
    expect(qualifiesReferral(referral(), { type: "deposit.confirmed", amount: "20" })).toBe(true);
    expect(qualifiesReferral(referral(), { type: "deposit.confirmed", amount: 20.0 })).toBe(true);
    expect(qualifiesReferral(referral(), { type: "deposit.confirmed", amount: "19.99" })).toBe(false);
    expect(qualifiesReferral(referral(), { type: "bet.placed", amount: 500 })).toBe(false);
  });

  it("compares decimals exactly", () => {
    expect(qualifiesReferral(referral({ minAmount: 0.3 }), { type: "deposit.confirmed", amount: "0.3" })).toBe(true);
    expect(qualifiesReferral(referral({ minAmount: 0.3 }), { type: "deposit.confirmed", amount: "0.299999" })).toBe(false);
  });

  it("treats a missing amount as 0, which qualifies only with minAmount 0", () => {
    expect(qualifiesReferral(referral({ qualifyEvent: "bet.placed", minAmount: 0 }), { type: "bet.placed" })).toBe(true);
    expect(qualifiesReferral(referral({ qualifyEvent: "bet.placed" }), { type: "bet.placed", amount: null })).toBe(false);
  });

  it("never qualifies on an event when the club qualifies at signup", () => {
    expect(qualifiesReferral(referral({ qualifyEvent: "signup", minAmount: 0 }), { type: "user.signed_up" })).toBe(false);
  });
});

describe("friendName", () => {
  it.each([
    ["Bruno Costa", "Bruno C."],
    ["  carla  maria  souza ", "carla S."],
    ["Ana", "Ana"],
    ["", "Amigo"],
    [null, "Amigo"],
  ])("%s is shown as %s", (name, shown) => {
    expect(friendName(name)).toBe(shown);
  });
});

describe("earnedText", () => {
  const config = casinoEngineConfig();

  it("reads like the club talks: currency names in lower case, XP, reward titles", () => {
    expect(earnedText({ units: { coins: 600 }, rewards: {} }, config)).toBe("600 moedas");
    expect(earnedText({ units: { xp: 1500, cashback: 250 }, rewards: { "giros-10": 2 } }, config)).toBe("1500 XP + 2.5 cashback + 2× 10 giros grátis");
    expect(earnedText({ units: {}, rewards: { "giros-10": 1 } }, config)).toBe("10 giros grátis");
  });

  it("is null before anything was earned", () => {
    expect(earnedText({ units: {}, rewards: {} }, config)).toBeNull();
    expect(earnedText({ units: { coins: 0 }, rewards: {} }, config)).toBeNull();
  });
});
