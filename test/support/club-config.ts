import { readFileSync } from "node:fs";

/**
 * The one club fixture of the suites: the demo casino configuration
 * (server/src/demo/casino.json, what `clube club create --demo` publishes) as a
 * client would send it, defaults left out, and named variants of it. A test
 * that needs another shape takes the demo and changes what it needs, so a
 * reader knows the rest of the club.
 */

const DEMO_CONFIG_TEXT = readFileSync(new URL("../../server/src/demo/casino.json", import.meta.url), "utf8");

/** A change to a configuration: edits the copy it is given, or returns a replacement. */
export type ConfigVariant = (config: Record<string, any>) => Record<string, any> | void;

/** The demo casino configuration (BRL, coins and expiring gems, Bronze/Prata/Ouro/Diamante); a fresh copy per call, `variants` applied in order. */
export function demoConfig(...variants: ConfigVariant[]): Record<string, any> {
  let config: Record<string, any> = JSON.parse(DEMO_CONFIG_TEXT);
  for (const variant of variants) config = variant(config) ?? config;
  return config;
}

const DAY_MS = 86_400_000;

/**
 * The demo's tournaments with their first edition starting at `start`
 * (a minute before it, so `start` itself is inside it). The demo's weekly
 * tournament is anchored on a past week: its ended edition is settled by the
 * periodic job whenever that job first runs, and its `tournament.finished`
 * lands in the middle of whatever a test is watching. Anchored at the test's
 * start, no edition ends while a test runs.
 */
export function tournamentsStartingAt(start: Date): ConfigVariant {
  return (config) => {
    for (const tournament of config.tournaments ?? []) {
      const length = Date.parse(tournament.endsAt) - Date.parse(tournament.startsAt);
      const startsAt = new Date(start.getTime() - 60_000);
      tournament.startsAt = startsAt.toISOString();
      tournament.endsAt = new Date(startsAt.getTime() + Math.max(length, DAY_MS)).toISOString();
    }
  };
}

/**
 * A smaller casino for the database suites, whose assertions count its exact
 * levels, tiers and coins: two currencies, the `media` preset over 60 levels,
 * three tiers with benefits, a priced reward, a mission and a rule. It replaces
 * the demo as a whole: the demo's wheel, check-in and store name rewards this
 * one does not have.
 */
export const compactCasino: ConfigVariant = () => ({
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
});
