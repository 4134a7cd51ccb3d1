import { expect } from "vitest";
import { schemaValidators, type SchemaName } from "../../generated/validators.js";
import { createClub } from "../../server/src/usecases/club/clubs.js";
import type { Database } from "../../server/src/db/orm.js";
import type { Scope } from "../../server/src/db/scope.js";

/**
 * A casino club's configuration as a client would send it (defaults left
 * out): two currencies, the `media` preset over 60 levels, three tiers with
 * benefits, a priced reward, a mission and a rule.
 */
export function casinoConfig(): Record<string, any> {
  return {
    name: "Clube Sorte Grande",
    theme: {
      name: "Noite Dourada",
      colors: { bg: "#0B0B1A", surface: "#16162E", primary: "#7C3AED", secondary: "#F5B301", text: "#F8FAFC", muted: "#94A3B8" },
    },
    currencies: [
      { code: "coins", name: "Moedas", icon: "coin" },
      { code: "cashback", name: "Cashback", icon: "wallet", decimals: 2 },
    ],
    progression: {
      curve: { kind: "preset", preset: "media", base: 1000, maxLevel: 60 },
      tiers: [
        { code: "bronze", name: "Bronze", levels: [1, 9], color: "#CD7F32", benefits: ["suporte"] },
        { code: "prata", name: "Prata", levels: [10, 29], color: "#C0C0C0", benefits: ["suporte", "cashback-5"] },
        { code: "ouro", name: "Ouro", levels: [30, null], color: "#FFD700", vip: true, badge: "https://cdn.example.com/ouro.png", benefits: ["cashback-5"] },
      ],
      benefits: [
        { code: "suporte", name: "Suporte prioritário" },
        { code: "cashback-5", name: "5% de cashback semanal" },
      ],
    },
    rewards: [
      { code: "giros-10", title: "10 giros grátis", type: "client_delivered", payload: { kind: "free_spins", spins: 10 } },
      { code: "vip-box", title: "Caixa VIP", cost: { currency: "coins", amount: 500 } },
    ],
    missions: [{ id: "primeiro-deposito", title: "Primeiro depósito", event: "deposit.confirmed", goal: { target: 1 }, reward: "giros-10" }],
    rules: [
      {
        id: "deposito-xp",
        trigger: { event: "deposit.confirmed" },
        effects: [
          { type: "grant_xp", amount: "event.amount * 10" },
          { type: "grant_currency", currency: "coins", amount: 5 },
          { type: "progress_mission", mission: "primeiro-deposito" },
        ],
      },
    ],
  };
}

/** A club with the casino configuration published; returns its test-environment scope and keys. */
export async function casinoClub(db: Database, now = new Date("2026-11-21T12:00:00Z")) {
  const created = await createClub(db, { name: "Cassino do Sol", config: casinoConfig() }, now);
  const scope: Scope = { clubId: created.club_id, env: "test" };
  return { ...created, scope };
}

/** Asserts that a use case's answer is exactly what the contract's schema allows. */
export function expectContract(schema: SchemaName, value: unknown): void {
  const validate = schemaValidators[schema];
  const valid = validate(structuredClone(value));
  expect(valid ? [] : validate.errors).toEqual([]);
}
