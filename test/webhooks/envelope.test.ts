import { describe, expect, it } from "vitest";
import { buildEnvelope, effectiveEvents, subscriptionMatches } from "../../server/src/webhooks/envelope.js";

describe("buildEnvelope", () => {
  const input = {
    id: "evt_4f2a",
    type: "level.up",
    createdAt: new Date("2025-03-01T12:00:00.000Z"),
    clubId: "club_cassino",
    env: "live" as const,
    data: { participant: { id: "par_1", external_id: "user_8412" }, level: 3, from: 2 },
  };

  it("writes the contract's envelope with its keys in order", () => {
    expect(buildEnvelope(input)).toBe(
      '{"id":"evt_4f2a","type":"level.up","created_at":"2025-03-01T12:00:00.000Z","club_id":"club_cassino","env":"live",' +
        '"data":{"participant":{"id":"par_1","external_id":"user_8412"},"level":3,"from":2}}',
    );
  });

  it("gives the same bytes for the same input", () => {
    expect(buildEnvelope({ ...input, data: { ...input.data } })).toBe(buildEnvelope(input));
  });
});

describe("subscriptionMatches", () => {
  it("delivers reward.*, referral.qualified and message.requested when no event is marked", () => {
    for (const type of [
      "reward.delivery_requested",
      "reward.granted",
      "reward.delivered",
      "reward.delivery_failed",
      "referral.qualified",
      "message.requested",
    ]) {
      expect(subscriptionMatches([], type)).toBe(true);
    }
  });

  it("does not deliver participant notices by default", () => {
    for (const type of [
      "participant.created",
      "level.up",
      "tier.changed",
      "checkin.completed",
      "mission.completed",
      "wheel.spun",
      "code.redeemed",
      "store.purchased",
      "cashback.credited",
    ]) {
      expect(subscriptionMatches([], type)).toBe(false);
    }
  });

  it("delivers exactly the marked events when some are marked", () => {
    expect(subscriptionMatches(["level.up"], "level.up")).toBe(true);
    expect(subscriptionMatches(["level.up"], "reward.granted")).toBe(false);
    expect(subscriptionMatches(["level.up"], "referral.qualified")).toBe(false);
  });

  it("matches a group wildcard against its group only", () => {
    expect(subscriptionMatches(["reward.*"], "reward.delivered")).toBe(true);
    expect(subscriptionMatches(["reward.*"], "rewards.delivered")).toBe(false);
    expect(subscriptionMatches(["reward.*"], "reward.")).toBe(false);
    expect(subscriptionMatches(["reward.*"], "reward")).toBe(false);
    expect(subscriptionMatches(["reward.*"], "level.up")).toBe(false);
  });

  it("reports the effective list", () => {
    expect(effectiveEvents([])).toEqual(["reward.*", "referral.qualified", "message.requested"]);
    expect(effectiveEvents(["level.up"])).toEqual(["level.up"]);
  });
});
