import { describe, expect, it } from "vitest";
import { evaluate } from "../../server/src/engine/evaluate.js";
import { expireLots, spendLots } from "../../server/src/engine/lots.js";
import type { Lot } from "../../server/src/engine/types.js";
import { bet, blankState, casinoEngineConfig, NOON, rule, SAO_PAULO } from "./fixtures.js";

function lot(id: string, remaining: number, grantedAt: string, expiresAt: string, currency = "gems"): Lot {
  return { id, currency, remaining, grantedAt, expiresAt };
}

// Listed out of order on purpose: the engine sorts by grant time.
const lots = [
  lot("newest", 30, "2026-11-20T10:00:00Z", "2026-12-20T10:00:00Z"),
  lot("oldest", 10, "2026-11-01T10:00:00Z", "2026-12-01T10:00:00Z"),
  lot("middle", 20, "2026-11-10T10:00:00Z", "2026-12-10T10:00:00Z"),
  lot("coins", 99, "2026-10-01T10:00:00Z", "2026-12-30T10:00:00Z", "coins"),
];

describe("spendLots", () => {
  it("spends the oldest lots of the currency first", () => {
    expect(spendLots(lots, "gems", 25, NOON)).toEqual([
      { lotId: "oldest", amount: 10 },
      { lotId: "middle", amount: 15 },
    ]);
  });

  it("covers only what the lots hold", () => {
    expect(spendLots(lots, "gems", 100, NOON).reduce((sum, entry) => sum + entry.amount, 0)).toBe(60);
  });

  it("never spends an expired lot", () => {
    expect(spendLots(lots, "gems", 5, new Date("2026-12-01T10:00:00Z"))).toEqual([{ lotId: "middle", amount: 5 }]);
  });

  it("breaks ties on grant time by lot id", () => {
    const same = "2026-11-01T10:00:00Z";
    expect(spendLots([lot("b", 5, same, "2026-12-30T00:00:00Z"), lot("a", 5, same, "2026-12-30T00:00:00Z")], "gems", 6, NOON)).toEqual([
      { lotId: "a", amount: 5 },
      { lotId: "b", amount: 1 },
    ]);
  });
});

describe("expireLots", () => {
  it("expires lots at their expiry instant, oldest first, with one ledger line each", () => {
    const { expired, ledger } = expireLots(lots, new Date("2026-12-10T10:00:00Z"));
    expect(expired.map((entry) => entry.id)).toEqual(["oldest", "middle"]);
    expect(ledger).toEqual([
      { unit: "gems", delta: -10, reason: "lot_expired", ruleId: null },
      { unit: "gems", delta: -20, reason: "lot_expired", ruleId: null },
    ]);
  });

  it("keeps a lot a millisecond before it expires and skips spent lots", () => {
    const spent = lot("spent", 0, "2026-11-01T10:00:00Z", "2026-11-02T10:00:00Z");
    expect(expireLots([...lots, spent], new Date("2026-12-01T09:59:59.999Z")).expired).toEqual([]);
  });
});

describe("debits spend lots through evaluate", () => {
  const config = casinoEngineConfig({ rules: [rule("troca", [{ type: "debit_currency", currency: "gems", amount: "event.amount" }])] });
  const state = blankState({ balances: { gems: 65 }, lots: lots.slice(0, 3) }); // 60 in lots, 5 that never expire

  it("takes the oldest lots first, then the non-expiring balance", () => {
    const result = evaluate({ config, state, event: bet({ amount: 62 }), now: NOON, timeZone: SAO_PAULO });
    expect(result.delta.lotsConsumed).toEqual([
      { lotId: "oldest", amount: 10 },
      { lotId: "middle", amount: 20 },
      { lotId: "newest", amount: 30 },
    ]);
    expect(result.delta.balances).toEqual({ gems: -62 });
  });

  it("does not count expired lots as spendable", () => {
    const afterFirstExpiry = new Date("2026-12-01T10:00:00Z");
    const refused = evaluate({ config, state, event: bet({ amount: 56 }), now: afterFirstExpiry, timeZone: SAO_PAULO });
    expect(refused.refused).toEqual([{ rule_id: "troca", effect: "debit_currency", reason: "insufficient_balance" }]);
    const accepted = evaluate({ config, state, event: bet({ amount: 55 }), now: afterFirstExpiry, timeZone: SAO_PAULO });
    expect(accepted.delta.lotsConsumed).toEqual([
      { lotId: "middle", amount: 20 },
      { lotId: "newest", amount: 30 },
    ]);
  });

  it("spends a lot granted earlier in the same evaluation last", () => {
    const grantThenDebit = casinoEngineConfig({
      rules: [
        rule("ganha", [{ type: "grant_currency", currency: "gems", amount: 10 }]),
        rule("gasta", [{ type: "debit_currency", currency: "gems", amount: 64 }]),
      ],
    });
    const result = evaluate({ config: grantThenDebit, state, event: bet(), now: NOON, timeZone: SAO_PAULO });
    expect(result.delta.lotsConsumed.reduce((sum, entry) => sum + entry.amount, 0)).toBe(60);
    // The 4 gems the old lots did not cover come from the new lot, before the 5 that never expire.
    expect(result.delta.lotsCreated).toMatchObject([{ currency: "gems", amount: 6 }]);
    expect(result.delta.balances).toEqual({ gems: -54 });
  });
});
