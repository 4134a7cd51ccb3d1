// Contract tests of the club configuration schema (spec/config/), run against
// the generated validators the server uses: every seed default is filled, every
// bound holds at its edge (at the bound passes, one past fails), closed models
// refuse unknown fields and the published example is a complete configuration.
import { readFileSync } from "node:fs";
import type { ErrorObject } from "ajv";
import { describe, expect, it } from "vitest";
import { schemaValidators, type SchemaName } from "../../generated/validators.js";

// ───────────────────────────── helpers ─────────────────────────────

/** Validates a copy (validators fill defaults into what they check) and returns the filled copy. */
function check(schema: SchemaName, value: unknown) {
  const copy = structuredClone(value);
  const validate = schemaValidators[schema];
  const ok = validate(copy);
  return { ok, value: copy, errors: validate.errors ?? [] };
}

type Node = Record<string, unknown>;

/** The object at a dotted path (`rewards.0`; "" is the value itself). */
const objectAt = (value: unknown, path: string): Node =>
  path === "" ? (value as Node) : path.split(".").reduce((node, key) => node[key] as Node, value as Node);

/** `base` with the value at a dotted path (`rewards.0.label`) replaced. */
function withField(base: unknown, path: string, value: unknown): unknown {
  const copy = structuredClone(base);
  const cut = path.lastIndexOf(".");
  objectAt(copy, path.slice(0, Math.max(cut, 0)))[path.slice(cut + 1)] = value;
  return copy;
}

/**
 * Whether an Ajv error names the field at a dotted path: by its instance path,
 * or, for errors reported on the parent object (missing, unknown or
 * discriminator property), by the property it names. This is what the API's
 * 422 message is built from.
 */
function pointsAt(error: ErrorObject, path: string): boolean {
  const at = "/" + path.replaceAll(".", "/");
  const named = error.params.missingProperty ?? error.params.unevaluatedProperty ?? error.params.tag;
  return error.instancePath === at || error.instancePath.startsWith(at + "/") || `${error.instancePath}/${named}` === at;
}

const text = (length: number, char = "a") => char.repeat(length);
const list = <T>(length: number, make: (index: number) => T): T[] => Array.from({ length }, (_, i) => make(i));

/** A short test-name rendering of a (possibly huge) value. */
function show(value: unknown): string {
  if (typeof value === "string" && value.length > 24) return `<${value.length} chars>`;
  if (Array.isArray(value) && value.length > 3) return `<${value.length} items>`;
  const json = JSON.stringify(value);
  return json.length > 60 ? json.slice(0, 57) + "..." : json;
}

// ───────────────────────── minimal valid values ─────────────────────────

const colors = { bg: "#0B0B1A", surface: "#16162E", primary: "#7C3AED", secondary: "#F59E0B", text: "#FFFFFF", muted: "#9CA3AF" };
const currency = { code: "coins", name: "Moedas" };
const tier = { code: "bronze", name: "Bronze", levels: [1, null] };
const slice = (i: number) => ({ id: `fatia-${i}`, label: `Fatia ${i}` });
const effect = { type: "grant_xp", amount: 10 };
const asset = (i: number) => ({ id: `avatar-${i}`, url: `https://cdn.example.com/avatars/${i}.png` });
const track = (i: number) => ({ id: `pista-${i}`, title: `Pista ${i}`, games: {} });
const prize = { from: 1, to: 3, reward: "giros-10" };

/** The smallest valid value of each schema whose bounds are tested below. */
const minimal = {
  ClubConfig: { theme: { name: "Sol Noturno", colors }, currencies: [currency], progression: { curve: { kind: "preset", preset: "media" }, tiers: [tier] } },
  ThemeConfig: { name: "Sol Noturno", colors },
  CurrencyConfig: currency,
  ProgressionConfig: { curve: { kind: "preset", preset: "media" }, tiers: [tier] },
  ProgressionCurve: { kind: "preset", preset: "media" },
  TableCurve: { kind: "table", thresholds: [0] },
  TierConfig: tier,
  BenefitConfig: { code: "cashback-5", name: "5% de cashback" },
  CheckinConfig: { rewards: [{ reward: "coins:10" }] },
  WheelConfig: { slices: list(4, slice) },
  WheelSlice: slice(1),
  WheelSlicePayload: { kind: "free_spins" },
  ReferralConfig: {},
  GameFilter: {},
  RuleConfig: { id: "xp-deposito", trigger: { event: "deposit.confirmed" }, effects: [effect] },
  RewardConfig: { code: "giros-10", title: "10 giros grátis" },
  MissionConfig: { id: "primeiro-deposito", title: "Primeiro depósito", event: "deposit.confirmed", goal: { target: 1 }, reward: "giros-10" },
  TournamentConfig: {
    id: "semana-slots",
    title: "Semana dos Slots",
    event: "bet.placed",
    startsAt: "2026-11-16T03:00:00Z",
    endsAt: "2026-11-23T03:00:00Z",
    prizes: [prize],
  },
  OfficialTournamentsConfig: {},
  OfficialPeriodSettings: {},
  OfficialTrack: track(1),
  ModuleCardConfig: { module: "checkin", title: "Check-in", subtitle: "Volte todo dia" },
  ImageAsset: asset(1),
  FaqItem: { category: "Moedas", question: "Como ganho moedas?", answer: "Fazendo check-in." },
} satisfies Partial<Record<SchemaName, unknown>>;

type Tested = keyof typeof minimal;

// ─────────────────────────────── defaults ───────────────────────────────

const emptyFilter = { categories: [], providers: [], games: [] };
const emptyScope = { only: emptyFilter, exclude: emptyFilter };

describe("ClubConfig defaults", () => {
  it("fills every default of a minimal configuration", () => {
    const { ok, value, errors } = check("ClubConfig", minimal.ClubConfig);
    expect(errors).toEqual([]);
    expect(ok).toBe(true);
    expect(value).toEqual({
      name: "Clube",
      theme: {
        name: "Sol Noturno",
        colors: { ...colors, success: "#22C55E", warning: "#F59E0B", danger: "#EF4444" },
        radius: 16,
        glow: false,
        cardStyle: "flat",
        buttonStyle: "flat",
        background: "solid",
        badgeSet: "shields",
        illustrationStyle: "flat",
        motionLevel: "full",
      },
      currencies: [{ code: "coins", name: "Moedas", icon: "coin", decimals: 0, expiresInDays: null }],
      progression: {
        curve: { kind: "preset", preset: "media", base: 1000, maxLevel: 60 },
        tiers: [{ code: "bronze", name: "Bronze", levels: [1, null], benefits: [], vip: false }],
        benefits: [],
        demotion: "never",
      },
      rules: [],
      rewards: [],
      missions: [],
      tournaments: [],
      home: [{ block: "modules", enabled: true }],
      moduleCards: [],
      faq: [],
      avatars: [],
      icons: [],
      allowedOrigins: [],
    });
  });

  // Each optional section, present but minimal, comes back with its own defaults.
  const sections: { section: string; given: unknown; filled: unknown }[] = [
    {
      section: "checkin",
      given: { rewards: [{ reward: "coins:10" }] },
      filled: {
        enabled: true,
        days: 30,
        rewards: [{ reward: "coins:10", multiplier: 1 }],
        highlightDays: [],
        period: "month",
        missedDay: "restart",
        timezone: "America/Sao_Paulo",
        resetHour: 0,
        requireEvent: null,
      },
    },
    {
      section: "wheel",
      given: { slices: list(4, slice) },
      filled: {
        enabled: true,
        style: "classica",
        titleLeft: "ROLETA",
        titleRight: "GRATUITA",
        slices: list(4, (i) => ({ ...slice(i), reward: null, weight: 1 })),
        spinsPerDay: 1,
        probabilityVersion: 1,
      },
    },
    {
      section: "referral",
      given: {},
      filled: {
        enabled: true,
        referrerReward: "coins:200",
        referredReward: "coins:100",
        qualifyEvent: "deposit.confirmed",
        minAmount: 20,
        dailyLimit: 10,
        shareUrl: "",
      },
    },
    { section: "games", given: {}, filled: { exclude: emptyFilter } },
    {
      section: "officialTournaments",
      given: {},
      filled: {
        enabled: false,
        timezone: "America/Sao_Paulo",
        daily: { enabled: true, poolPercent: 10, seed: 0, split: [100], minWager: 0 },
        monthly: { enabled: true, poolPercent: 10, seed: 0, split: [100], minWager: 0 },
        tracks: [
          { id: "slots", title: "Slots", icon: "slots", enabled: true, games: { only: { ...emptyFilter, categories: ["video-slots"] }, exclude: emptyFilter } },
          {
            id: "aviator",
            title: "Aviator",
            icon: "slots",
            enabled: true,
            games: { only: { ...emptyFilter, categories: ["crash", "fast-games"] }, exclude: emptyFilter },
          },
          {
            id: "ao-vivo",
            title: "Ao Vivo",
            icon: "slots",
            enabled: true,
            games: { only: { ...emptyFilter, categories: ["live-casino"] }, exclude: emptyFilter },
          },
        ],
      },
    },
    {
      section: "rules",
      given: [{ ...minimal.RuleConfig, games: {}, effects: [{ type: "progress_mission", mission: "primeiro-deposito" }] }],
      filled: [
        {
          id: "xp-deposito",
          enabled: true,
          trigger: { event: "deposit.confirmed" },
          conditions: [],
          games: emptyScope,
          effects: [{ type: "progress_mission", mission: "primeiro-deposito", increment: 1 }],
          limits: {},
          idempotency: "event.id",
        },
      ],
    },
    {
      section: "rewards",
      given: [minimal.RewardConfig],
      filled: [{ code: "giros-10", title: "10 giros grátis", illustration: "gift", type: "internal", payload: {}, expiresInDays: null, cost: null }],
    },
    {
      section: "missions",
      given: [{ ...minimal.MissionConfig, games: { only: { categories: ["video-slots"] } } }],
      filled: [
        {
          ...minimal.MissionConfig,
          illustration: "target",
          conditions: [],
          games: { only: { ...emptyFilter, categories: ["video-slots"] }, exclude: emptyFilter },
          goal: { kind: "count", field: "amount", target: 1 },
          period: "once",
          claim: "manual",
          enabled: true,
          order: 0,
        },
      ],
    },
    {
      section: "tournaments",
      given: [minimal.TournamentConfig],
      filled: [
        {
          ...minimal.TournamentConfig,
          illustration: "trophy",
          conditions: [],
          scoring: "sum",
          field: "amount",
          recurrence: "none",
          minScore: 0,
          enabled: true,
        },
      ],
    },
    {
      section: "moduleCards",
      given: [minimal.ModuleCardConfig],
      filled: [{ ...minimal.ModuleCardConfig, enabled: true, illustration: "gift", cta: "Saiba mais" }],
    },
    {
      section: "home",
      given: ["hero", { block: "faq" }],
      filled: ["hero", { block: "faq", enabled: true }],
    },
    {
      section: "progression",
      given: { curve: { kind: "table", thresholds: [0, 1000] }, tiers: [tier], benefits: [minimal.BenefitConfig] },
      filled: {
        curve: { kind: "table", thresholds: [0, 1000] },
        tiers: [{ ...tier, benefits: [], vip: false }],
        benefits: [{ ...minimal.BenefitConfig, compliance: "ok" }],
        demotion: "never",
      },
    },
  ];

  it.each(sections)("fills the defaults of a minimal $section", ({ section, given, filled }) => {
    const { ok, value, errors } = check("ClubConfig", { ...minimal.ClubConfig, [section]: given });
    expect(errors).toEqual([]);
    expect(ok).toBe(true);
    expect((value as Record<string, unknown>)[section]).toEqual(filled);
  });

  it("keeps a given value where a default exists (an expression increment)", () => {
    const given = { type: "progress_mission", mission: "primeiro-deposito", increment: "event.amount" };
    expect(check("RuleEffect", given).value).toEqual(given);
  });
});

// ─────────────────────────────── bounds ───────────────────────────────

interface EdgeCase {
  schema: Tested;
  /** Dotted path inside the schema's minimal value. */
  field: string;
  pass: unknown[];
  fail: unknown[];
}

const uri = (length: number) => "https://cdn.example.com/" + text(length - "https://cdn.example.com/".length);

const edges: EdgeCase[] = [
  // config (top level)
  { schema: "ClubConfig", field: "name", pass: [text(1), text(60)], fail: ["", text(61)] },
  { schema: "ClubConfig", field: "currencies", pass: [[currency]], fail: [[]] },
  { schema: "ClubConfig", field: "avatars", pass: [list(48, asset)], fail: [list(49, asset)] },
  { schema: "ClubConfig", field: "icons", pass: [list(96, asset)], fail: [list(97, asset)] },
  { schema: "ClubConfig", field: "legalNote", pass: [text(300)], fail: [text(301)] },
  { schema: "ClubConfig", field: "allowedOrigins", pass: [["https://cassino.example.com"]], fail: [["cassino.example.com"]] },
  {
    schema: "ClubConfig",
    field: "home",
    pass: [["hero", "profile", "next-action", "modules", "recent-rewards", "leaderboard", "faq"], [{ block: "faq", title: text(60), subtitle: text(120) }]],
    fail: [["banner"], [{ block: "banner" }], [{ block: "faq", title: text(61) }], [{ block: "faq", subtitle: text(121) }], [{ title: "Ajuda" }]],
  },
  // theme
  { schema: "ThemeConfig", field: "name", pass: [text(1), text(60)], fail: ["", text(61)] },
  { schema: "ThemeConfig", field: "colors.bg", pass: ["#7C3AED", "#7c3aed"], fail: ["#7C3AE", "#7C3AED0", "7C3AED", "#7C3AEG"] },
  { schema: "ThemeConfig", field: "colors.danger", pass: ["#B91C1C"], fail: ["red"] },
  { schema: "ThemeConfig", field: "logoUrl", pass: [text(200000)], fail: [text(200001)] },
  { schema: "ThemeConfig", field: "logoPngUrl", pass: [text(2000)], fail: [text(2001)] },
  { schema: "ThemeConfig", field: "font", pass: [text(1), text(60)], fail: ["", text(61)] },
  { schema: "ThemeConfig", field: "radius", pass: [0, 40], fail: [-1, 41, 16.5] },
  { schema: "ThemeConfig", field: "backgroundImage", pass: ["https://cdn.example.com/bg.jpg"], fail: ["bg.jpg"] },
  { schema: "ThemeConfig", field: "cardStyle", pass: ["gradient", "glass", "flat"], fail: ["neon"] },
  { schema: "ThemeConfig", field: "buttonStyle", pass: ["flat", "bevel"], fail: ["round"] },
  { schema: "ThemeConfig", field: "background", pass: ["solid", "stars", "image"], fail: ["video"] },
  { schema: "ThemeConfig", field: "badgeSet", pass: ["spades-3d", "shields", "gems"], fail: ["stars"] },
  { schema: "ThemeConfig", field: "illustrationStyle", pass: ["3d", "flat"], fail: ["2d"] },
  { schema: "ThemeConfig", field: "motionLevel", pass: ["full", "light", "none"], fail: ["heavy"] },
  // currencies
  {
    schema: "CurrencyConfig",
    field: "code",
    pass: ["ab", "c" + text(23, "o"), "vip_coins2"],
    fail: ["a", "c" + text(24, "o"), "Coins", "2coins", "vip-coins"],
  },
  { schema: "CurrencyConfig", field: "name", pass: [text(1), text(40)], fail: ["", text(41)] },
  { schema: "CurrencyConfig", field: "decimals", pass: [0, 2], fail: [-1, 3] },
  { schema: "CurrencyConfig", field: "expiresInDays", pass: [1, null], fail: [0, 1.5] },
  // progression
  { schema: "ProgressionCurve", field: "base", pass: [1], fail: [0] },
  { schema: "ProgressionCurve", field: "maxLevel", pass: [2, 500], fail: [1, 501] },
  { schema: "ProgressionCurve", field: "preset", pass: ["suave", "media", "dificil"], fail: ["facil"] },
  { schema: "ProgressionCurve", field: "kind", pass: ["preset"], fail: ["formula"] },
  { schema: "TableCurve", field: "thresholds", pass: [[0], [0, 1000, 1000]], fail: [[], [-1], [0, 1.5]] },
  { schema: "ProgressionConfig", field: "tiers", pass: [[tier]], fail: [[]] },
  { schema: "ProgressionConfig", field: "demotion", pass: ["never", "monthly_review"], fail: ["weekly_review"] },
  { schema: "TierConfig", field: "code", pass: [text(1), text(32)], fail: ["", text(33)] },
  { schema: "TierConfig", field: "name", pass: [text(1), text(40)], fail: ["", text(41)] },
  {
    schema: "TierConfig",
    field: "levels",
    pass: [
      [1, 1],
      [1, null],
      [30, 500],
    ],
    fail: [[0, 9], [1, 0], [null, 9], [1], [1, 9, 10], []],
  },
  { schema: "TierConfig", field: "color", pass: ["#CD7F32"], fail: ["#CD7F3"] },
  { schema: "BenefitConfig", field: "code", pass: [text(1), text(48)], fail: ["", text(49)] },
  { schema: "BenefitConfig", field: "name", pass: [text(1), text(80)], fail: ["", text(81)] },
  { schema: "BenefitConfig", field: "description", pass: [text(240)], fail: [text(241)] },
  { schema: "BenefitConfig", field: "compliance", pass: ["ok", "review"], fail: ["pending"] },
  // checkin
  { schema: "CheckinConfig", field: "days", pass: [7, 14, 15, 30, 31], fail: [8, 0] },
  { schema: "CheckinConfig", field: "resetHour", pass: [0, 23], fail: [-1, 24] },
  { schema: "CheckinConfig", field: "highlightDays", pass: [[1, 7]], fail: [[0]] },
  { schema: "CheckinConfig", field: "period", pass: ["month", "streak"], fail: ["week"] },
  { schema: "CheckinConfig", field: "missedDay", pass: ["restart", "continue", "forgive_one"], fail: ["forgive_all"] },
  { schema: "CheckinConfig", field: "requireEvent", pass: [null, "deposit.confirmed"], fail: [7] },
  { schema: "CheckinConfig", field: "rewards.0.reward", pass: ["x", "coins:10"], fail: [""] },
  { schema: "CheckinConfig", field: "rewards.0.label", pass: [text(40)], fail: [text(41)] },
  { schema: "CheckinConfig", field: "rewards.0.multiplier", pass: [0.5, 2], fail: [0, -1] },
  // wheel
  { schema: "WheelConfig", field: "slices", pass: [list(4, slice), list(16, slice)], fail: [list(3, slice), list(17, slice)] },
  { schema: "WheelConfig", field: "spinsPerDay", pass: [0, 50], fail: [-1, 51] },
  { schema: "WheelConfig", field: "probabilityVersion", pass: [1], fail: [0] },
  { schema: "WheelConfig", field: "titleLeft", pass: [text(12)], fail: [text(13)] },
  { schema: "WheelConfig", field: "titleRight", pass: [text(12)], fail: [text(13)] },
  { schema: "WheelConfig", field: "style", pass: ["classica", "duo", "vip"], fail: ["moderna"] },
  { schema: "WheelSlice", field: "id", pass: ["a", text(32), "giros-10"], fail: ["", text(33), "Giros", "giros_10"] },
  { schema: "WheelSlice", field: "label", pass: [text(1), text(14)], fail: ["", text(15)] },
  { schema: "WheelSlice", field: "sublabel", pass: [text(14)], fail: [text(15)] },
  { schema: "WheelSlice", field: "image", pass: [text(2000)], fail: [text(2001)] },
  { schema: "WheelSlice", field: "reward", pass: [null, "giros-10", "coins:50"], fail: [""] },
  { schema: "WheelSlice", field: "weight", pass: [0, 1000000], fail: [-1, 1000001] },
  { schema: "WheelSlice", field: "tierQty", pass: [{ ouro: 0, prata: 10000000 }], fail: [{ ouro: -1 }, { ouro: 10000001 }] },
  { schema: "WheelSlicePayload", field: "kind", pass: ["free_spins", "bonus", "cash"], fail: ["other"] },
  { schema: "WheelSlicePayload", field: "spins", pass: [1, 10000], fail: [0, 10001] },
  { schema: "WheelSlicePayload", field: "amount_cents", pass: [1], fail: [0] },
  { schema: "WheelSlicePayload", field: "rollover", pass: [0.5, 200], fail: [0, 201] },
  { schema: "WheelSlicePayload", field: "game", pass: [text(80)], fail: [text(81)] },
  { schema: "WheelSlicePayload", field: "game_code", pass: [text(80)], fail: [text(81)] },
  { schema: "WheelSlicePayload", field: "game_image", pass: [uri(2000)], fail: [uri(2001), "fortune-tiger.png"] },
  // referral and the reward spec grammar
  { schema: "ReferralConfig", field: "dailyLimit", pass: [1, 100], fail: [0, 101] },
  { schema: "ReferralConfig", field: "minAmount", pass: [0], fail: [-0.01] },
  { schema: "ReferralConfig", field: "shareUrl", pass: ["", text(500)], fail: [text(501)] },
  { schema: "ReferralConfig", field: "qualifyEvent", pass: ["signup", "deposit.confirmed", "bet.placed"], fail: ["deposit"] },
  {
    schema: "ReferralConfig",
    field: "referrerReward",
    pass: ["coins:200", "xp:1.5", "xp:500", "reward:vip-box", "cashback:2.50", "c" + text(23, "o") + ":1"],
    fail: ["coins", ":200", "reward:Bad_Code", "coins:", "coins:-5", "coins:1.", "Coins:200", "c:1", "c" + text(24, "o") + ":1", "reward:" + text(49)],
  },
  { schema: "ReferralConfig", field: "referredReward", pass: [null, "reward:" + text(48)], fail: ["reward:"] },
  // game filter
  { schema: "GameFilter", field: "categories", pass: [list(20, () => text(40))], fail: [list(21, () => "crash"), [""], [text(41)]] },
  { schema: "GameFilter", field: "providers", pass: [list(100, () => text(60))], fail: [list(101, () => "pgsoft"), [""], [text(61)]] },
  {
    schema: "GameFilter",
    field: "games",
    pass: [list(500, (i) => ({ id: `jogo-${i}` })), [{ id: text(120), name: text(120) }]],
    fail: [list(501, (i) => ({ id: `jogo-${i}` })), [{ id: "" }], [{ id: text(121) }], [{ id: "jogo", name: text(121) }], [{ name: "Fortune Tiger" }]],
  },
  // rules
  { schema: "RuleConfig", field: "id", pass: [text(1), text(64)], fail: ["", text(65)] },
  { schema: "RuleConfig", field: "name", pass: [text(120)], fail: [text(121)] },
  { schema: "RuleConfig", field: "trigger.event", pass: ["deposit.confirmed", "game.round_played"], fail: ["deposit", "Deposit.confirmed", "deposit."] },
  { schema: "RuleConfig", field: "effects", pass: [[effect]], fail: [[]] },
  {
    schema: "RuleConfig",
    field: "conditions",
    pass: [
      [{ field: "amount", op: ">=", value: 20 }],
      [{ field: "meta.game_type", op: "in", value: ["crash", "video-slots"] }],
      [{ field: "meta.live", op: "==", value: true }],
      [{ field: "currency", op: "!=", value: "BRL" }],
      [{ segment: "vip" }, { segment_not: "bloqueado" }, { tier_in: ["ouro"] }, { first_time: true }, { nth: 1 }],
    ],
    fail: [
      [{ nth: 0 }],
      [{ tier_in: [] }],
      [{ first_time: false }],
      [{ field: "", op: "==", value: 1 }],
      [{ field: "amount", op: "=~", value: 1 }],
      [{ field: "amount", op: "in", value: [true] }],
      [{ field: "amount", op: ">" }],
    ],
  },
  {
    schema: "RuleConfig",
    field: "conditions",
    pass: [">", ">=", "<", "<=", "==", "!=", "in", "not_in"].map((op) => [{ field: "amount", op, value: 20 }]),
    fail: ["=", "contains"].map((op) => [{ field: "amount", op, value: 20 }]),
  },
  { schema: "RuleConfig", field: "effects.0.amount", pass: [10, 0.5, "event.amount * 0.1"], fail: ["", true, null] },
  { schema: "RuleConfig", field: "effects.0.type", pass: ["grant_xp"], fail: ["grant_points"] },
  {
    schema: "RuleConfig",
    field: "limits",
    pass: [{ per_participant_per_day: { runs: 1, xp: 0.5, coins: 500 } }, { max_runs_per_participant: 1 }, { cooldown_seconds: 0 }],
    fail: [{ per_participant_per_day: { runs: 0 } }, { max_runs_per_participant: 0 }, { cooldown_seconds: -1 }],
  },
  // rewards
  { schema: "RewardConfig", field: "code", pass: ["a", text(48), "vip-box-2"], fail: ["", text(49), "VIP", "vip_box"] },
  { schema: "RewardConfig", field: "title", pass: [text(1), text(60)], fail: ["", text(61)] },
  { schema: "RewardConfig", field: "description", pass: [text(200)], fail: [text(201)] },
  { schema: "RewardConfig", field: "howToUse", pass: [text(160)], fail: [text(161)] },
  { schema: "RewardConfig", field: "type", pass: ["internal", "client_delivered", "manual", "partner"], fail: ["external"] },
  { schema: "RewardConfig", field: "expiresInDays", pass: [1, null], fail: [0] },
  {
    schema: "RewardConfig",
    field: "cost",
    pass: [null, { currency: "coins", amount: 0.01 }],
    fail: [
      { currency: "coins", amount: 0 },
      { currency: "", amount: 500 },
    ],
  },
  // missions
  { schema: "MissionConfig", field: "id", pass: ["a", text(48)], fail: ["", text(49), "Primeiro"] },
  { schema: "MissionConfig", field: "title", pass: [text(1), text(60)], fail: ["", text(61)] },
  { schema: "MissionConfig", field: "description", pass: [text(200)], fail: [text(201)] },
  { schema: "MissionConfig", field: "event", pass: ["bet.placed"], fail: ["bet"] },
  {
    schema: "MissionConfig",
    field: "goal",
    pass: [{ target: 0.01 }, { kind: "sum", field: "amount", target: 500 }],
    fail: [{ target: 0 }, { kind: "max", target: 1 }, { field: "", target: 1 }, {}],
  },
  { schema: "MissionConfig", field: "reward", pass: ["coins:50"], fail: [""] },
  { schema: "MissionConfig", field: "period", pass: ["once", "daily", "weekly", "monthly"], fail: ["yearly"] },
  { schema: "MissionConfig", field: "claim", pass: ["auto", "manual"], fail: ["instant"] },
  { schema: "MissionConfig", field: "audienceTag", pass: ["vip", "seg:vip_1-a", text(60)], fail: [text(61), "VIP", "vip tag"] },
  { schema: "MissionConfig", field: "startsAt", pass: ["2026-11-21T03:00:00Z"], fail: ["2026-11-21"] },
  { schema: "MissionConfig", field: "order", pass: [0], fail: [-1] },
  { schema: "MissionConfig", field: "conditions", pass: [[{ field: "amount", op: ">", value: 10 }]], fail: [[{ segment: "vip" }]] },
  // tournaments
  { schema: "TournamentConfig", field: "id", pass: ["a", text(48)], fail: ["", text(49), "Semana"] },
  { schema: "TournamentConfig", field: "title", pass: [text(1), text(60)], fail: ["", text(61)] },
  { schema: "TournamentConfig", field: "description", pass: [text(200)], fail: [text(201)] },
  { schema: "TournamentConfig", field: "prizes", pass: [[prize]], fail: [[], [{ ...prize, from: 0 }], [{ ...prize, to: 0 }], [{ ...prize, reward: "" }]] },
  { schema: "TournamentConfig", field: "scoring", pass: ["sum", "count", "max_ratio"], fail: ["avg"] },
  { schema: "TournamentConfig", field: "recurrence", pass: ["none", "weekly"], fail: ["daily"] },
  { schema: "TournamentConfig", field: "field", pass: ["meta.win_amount"], fail: [""] },
  { schema: "TournamentConfig", field: "minScore", pass: [0], fail: [-0.01] },
  { schema: "TournamentConfig", field: "endsAt", pass: ["2026-11-23T03:00:00-03:00"], fail: ["amanhã"] },
  // official tournaments
  { schema: "OfficialTournamentsConfig", field: "tracks", pass: [list(6, track)], fail: [list(7, track)] },
  { schema: "OfficialTournamentsConfig", field: "timezone", pass: ["UTC"], fail: [""] },
  { schema: "OfficialPeriodSettings", field: "split", pass: [[100], list(10, () => 10), [0.5]], fail: [[], list(11, () => 5), [0], [101]] },
  { schema: "OfficialPeriodSettings", field: "poolPercent", pass: [0, 100], fail: [-1, 101] },
  { schema: "OfficialPeriodSettings", field: "seed", pass: [0, 1000000], fail: [-1, 1000001] },
  { schema: "OfficialPeriodSettings", field: "minWager", pass: [0], fail: [-0.01] },
  { schema: "OfficialTrack", field: "id", pass: ["a", text(24)], fail: ["", text(25), "Slots"] },
  { schema: "OfficialTrack", field: "title", pass: [text(1), text(40)], fail: ["", text(41)] },
  { schema: "OfficialTrack", field: "icon", pass: [text(300)], fail: [text(301)] },
  { schema: "OfficialTrack", field: "image", pass: [text(500)], fail: [text(501)] },
  // module cards
  { schema: "ModuleCardConfig", field: "cta", pass: [text(24)], fail: [text(25)] },
  { schema: "ModuleCardConfig", field: "title", pass: [text(40)], fail: [text(41)] },
  { schema: "ModuleCardConfig", field: "subtitle", pass: [text(60)], fail: [text(61)] },
  {
    schema: "ModuleCardConfig",
    field: "module",
    pass: [
      "profile",
      "checkin",
      "codes",
      "rewards",
      "currencies",
      "missions",
      "store",
      "wheel",
      "leaderboard",
      "notifications",
      "cashback",
      "referral",
      "badges",
      "seasons",
      "minigames",
    ],
    fail: ["casino"],
  },
  { schema: "ModuleCardConfig", field: "group", pass: ["hoje", "jogar", "resgate"], fail: ["amanha"] },
  { schema: "ModuleCardConfig", field: "layout", pass: ["grid", "row"], fail: ["list"] },
  {
    schema: "ModuleCardConfig",
    field: "tone",
    pass: ["elixir", "real", "arena", "ouro", "fogo", "gelo", "princesa", "aco", "tesouro", "none"],
    fail: ["azul"],
  },
  // avatars and icons
  { schema: "ImageAsset", field: "id", pass: ["a", text(24), "avatar-1"], fail: ["", text(25), "Avatar"] },
  { schema: "ImageAsset", field: "url", pass: ["https://cdn.example.com/a.png"], fail: ["a.png"] },
  { schema: "ImageAsset", field: "name", pass: [text(40)], fail: [text(41)] },
];

describe.each(edges.map((edge) => [`${edge.schema}.${edge.field}`, edge] as const))("%s", (_, { schema, field, pass, fail }) => {
  it.each(pass.map((value) => [show(value), value]))("accepts %s", (_, value) => {
    const { ok, errors } = check(schema, withField(minimal[schema], field, value));
    expect(errors).toEqual([]);
    expect(ok).toBe(true);
  });

  it.each(fail.map((value) => [show(value), value]))("rejects %s, naming the field", (_, value) => {
    const { ok, errors } = check(schema, withField(minimal[schema], field, value));
    expect(ok).toBe(false);
    expect(pointsAt(errors[0], field)).toBe(true);
  });
});

// ─────────────────────────── required fields ───────────────────────────

const required: { schema: Tested; fields: string[] }[] = [
  { schema: "ClubConfig", fields: ["theme", "currencies", "progression"] },
  { schema: "ThemeConfig", fields: ["name", "colors"] },
  { schema: "CurrencyConfig", fields: ["code", "name"] },
  { schema: "ProgressionConfig", fields: ["curve", "tiers"] },
  { schema: "ProgressionCurve", fields: ["kind", "preset"] },
  { schema: "TableCurve", fields: ["thresholds"] },
  { schema: "TierConfig", fields: ["code", "name", "levels"] },
  { schema: "BenefitConfig", fields: ["code", "name"] },
  { schema: "CheckinConfig", fields: ["rewards"] },
  { schema: "WheelConfig", fields: ["slices"] },
  { schema: "WheelSlice", fields: ["id", "label"] },
  { schema: "WheelSlicePayload", fields: ["kind"] },
  { schema: "RuleConfig", fields: ["id", "trigger", "effects"] },
  { schema: "RewardConfig", fields: ["code", "title"] },
  { schema: "MissionConfig", fields: ["id", "title", "event", "goal", "reward"] },
  { schema: "TournamentConfig", fields: ["id", "title", "event", "startsAt", "endsAt", "prizes"] },
  { schema: "OfficialTrack", fields: ["id", "title", "games"] },
  { schema: "ModuleCardConfig", fields: ["module", "title", "subtitle"] },
  { schema: "FaqItem", fields: ["category", "question", "answer"] },
  { schema: "ImageAsset", fields: ["id", "url"] },
];

describe.each(required.map((row) => [row.schema, row] as const))("%s requires", (_, { schema, fields }) => {
  it.each(fields)("%s", (field) => {
    const value = structuredClone(minimal[schema]) as Record<string, unknown>;
    delete value[field];
    const { ok, errors } = check(schema, value);
    expect(ok).toBe(false);
    expect(errors.some((e) => pointsAt(e, field))).toBe(true);
  });
});

// ───────────────────────── closed and open models ─────────────────────────

describe("unknown fields", () => {
  // Every configuration model is closed (like Stripe): a typo is refused instead of silently ignored.
  const closed: { where: string; schema: Tested; value?: unknown; path: string }[] = [
    { where: "the config", schema: "ClubConfig", path: "" },
    { where: "the theme", schema: "ClubConfig", path: "theme" },
    { where: "theme colours", schema: "ClubConfig", path: "theme.colors" },
    { where: "a currency", schema: "ClubConfig", path: "currencies.0" },
    { where: "a preset curve", schema: "ClubConfig", path: "progression.curve" },
    { where: "a tier", schema: "ClubConfig", path: "progression.tiers.0" },
    { where: "a home block", schema: "ClubConfig", value: { ...minimal.ClubConfig, home: [{ block: "faq" }] }, path: "home.0" },
    { where: "a check-in day", schema: "CheckinConfig", path: "rewards.0" },
    { where: "a wheel slice", schema: "WheelConfig", path: "slices.0" },
    { where: "referral", schema: "ReferralConfig", path: "" },
    { where: "a game filter", schema: "GameFilter", path: "" },
    { where: "a rule", schema: "RuleConfig", path: "" },
    { where: "a rule trigger", schema: "RuleConfig", path: "trigger" },
    { where: "a rule condition", schema: "RuleConfig", value: { ...minimal.RuleConfig, conditions: [{ segment: "vip" }] }, path: "conditions.0" },
    { where: "a rule effect", schema: "RuleConfig", path: "effects.0" },
    { where: "rule limits", schema: "RuleConfig", value: { ...minimal.RuleConfig, limits: {} }, path: "limits" },
    { where: "a reward", schema: "RewardConfig", path: "" },
    { where: "a mission goal", schema: "MissionConfig", path: "goal" },
    { where: "a tournament prize", schema: "TournamentConfig", path: "prizes.0" },
    { where: "official period settings", schema: "OfficialPeriodSettings", path: "" },
    { where: "an official track", schema: "OfficialTrack", path: "" },
    { where: "a module card", schema: "ModuleCardConfig", path: "" },
    { where: "a FAQ item", schema: "FaqItem", path: "" },
    { where: "an avatar", schema: "ImageAsset", path: "" },
  ];

  it.each(closed)("are refused in $where", ({ schema, value, path }) => {
    const withUnknown = structuredClone(value ?? minimal[schema]);
    objectAt(withUnknown, path).colour = "#FFFFFF";
    const { ok, errors } = check(schema, withUnknown);
    expect(ok).toBe(false);
    expect(errors.some((e) => pointsAt(e, path === "" ? "colour" : `${path}.colour`))).toBe(true);
  });

  it("are kept in a wheel slice payload and a reward payload (free-form by design)", () => {
    const payload = { kind: "free_spins", spins: 10, provider_campaign: "natal-2026" };
    expect(check("WheelSlicePayload", payload)).toMatchObject({ ok: true, value: payload });
    const reward = { ...minimal.RewardConfig, payload: { kind: "other", voucher: { partner: "ifood", value: 25 } } };
    expect(check("RewardConfig", reward)).toMatchObject({ ok: true, value: reward });
  });
});

// ──────────────────────────── published example ────────────────────────────

describe("the published ClubConfig example", () => {
  const openapi = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));
  const [example] = openapi.components.schemas.ClubConfig.examples;

  it("is valid and already carries every default", () => {
    const { ok, value, errors } = check("ClubConfig", example);
    expect(errors).toEqual([]);
    expect(ok).toBe(true);
    expect(value).toEqual(example);
  });
});
