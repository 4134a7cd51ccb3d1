/**
 * The configuration a club created without one starts with (published as
 * version 1 in both environments), so GET /v1/config, profiles and events work
 * from the first call: one currency, the `media` preset curve and three tiers.
 * Every other section takes the schema's defaults.
 */
export function starterConfig(clubName: string): Record<string, unknown> {
  return {
    name: clubName.slice(0, 60),
    theme: {
      name: "Clube",
      colors: { bg: "#0F172A", surface: "#1E293B", primary: "#7C3AED", secondary: "#F59E0B", text: "#F8FAFC", muted: "#94A3B8" },
    },
    currencies: [{ code: "coins", name: "Moedas", icon: "coin" }],
    progression: {
      curve: { kind: "preset", preset: "media" },
      tiers: [
        { code: "bronze", name: "Bronze", levels: [1, 9], color: "#CD7F32" },
        { code: "prata", name: "Prata", levels: [10, 29], color: "#C0C0C0" },
        { code: "ouro", name: "Ouro", levels: [30, null], color: "#FFD700" },
      ],
    },
  };
}
