import { createHash } from "node:crypto";
import type { components } from "../../../../generated/types.js";
import type { ClubConfig } from "../../engine/config.js";
import { parseRewardSpec } from "../../engine/rewards.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { publishedConfigNow } from "../club/index.js";
import { fromMinorUnits } from "../../engine/money.js";
import { levelTable } from "../participants/index.js";
import { hasActiveCodes, pricedReward } from "../rewards/index.js";
import { frozenJson } from "../../cache/json-text.js";
import { knownActiveCodesAt } from "../../cache/registry.js";

/*
 * GET /v1/me/config: the participant's view of the published configuration.
 * Built field by field (never by copying config sections) so that nothing
 * server-only can slip in when the configuration schema grows: a new config
 * field reaches participants only when it is added here on purpose.
 */

type Schemas = components["schemas"];
export type MeConfig = Schemas["MeConfig"];

/** Card modules the engine serves; `seasons` and `minigames` have no engine yet, so their cards are hidden. `codes` shows only while the club has an active promotional code. */
const SERVED_MODULES = new Set<Schemas["ModuleCardModule"]>([
  "profile",
  "checkin",
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
  "codes",
]);

/** What the participant view depends on besides the configuration. */
export interface MeConfigFacts {
  /** The club has a promotional code that is active and not past its end. */
  codesActive: boolean;
}

export interface MeConfigView {
  body: MeConfig;
  /** A strong ETag of `body` (quoted, as sent in the header). */
  etag: string;
  /** The club's `allowedOrigins`, for CORS (never in the body). */
  allowedOrigins: readonly string[];
}

/** Views are pure functions of a published config object and the facts, which the config cache shares: build each once per facts. */
const built = new WeakMap<ClubConfig, Map<string, MeConfigView>>();

export async function getMeConfig(db: Database, scope: Scope, now: Date): Promise<MeConfigView> {
  // From memory without a promise when they are there: asked on every request of the widget.
  const found = publishedConfigNow(db, scope);
  const published = found instanceof Promise ? await found : found;
  const facts: MeConfigFacts = { codesActive: knownActiveCodesAt(db, scope, now) ?? (await hasActiveCodes(db, scope, now)) };
  const key = JSON.stringify(facts);
  let views = built.get(published.config);
  const cached = views?.get(key);
  if (cached && cached.body.config_version === published.version) return cached;
  // Shared by every answer of this version and facts: serialised once (cache/json-text.ts).
  const body = frozenJson(meConfigView(published.config, published.version, facts));
  const view = { body, etag: etagOf(body), allowedOrigins: published.config.allowedOrigins };
  if (!views) built.set(published.config, (views = new Map()));
  views.set(key, view);
  return view;
}

/** Whether an `If-None-Match` header value matches `etag` (a list, `*`, or a weak form of the same tag). */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(",").some((candidate) => {
    const tag = candidate.trim().replace(/^W\//, "");
    return tag === "*" || tag === etag;
  });
}

function etagOf(body: MeConfig): string {
  return `"${createHash("sha256").update(JSON.stringify(body)).digest("base64url").slice(0, 32)}"`;
}

/** Pure: the participant view of `config` (exported for tests). */
export function meConfigView(config: ClubConfig, version: number, facts: MeConfigFacts = { codesActive: false }): MeConfig {
  const { theme } = config;
  const rewardTitle = (code: string) => config.rewards.find((reward) => reward.code === code)?.title ?? code;
  return {
    club_name: config.name,
    config_version: version,
    theme: {
      name: theme.name,
      colors: {
        bg: theme.colors.bg,
        surface: theme.colors.surface,
        primary: theme.colors.primary,
        secondary: theme.colors.secondary,
        text: theme.colors.text,
        muted: theme.colors.muted,
        success: theme.colors.success ?? "#22C55E",
        warning: theme.colors.warning ?? "#F59E0B",
        danger: theme.colors.danger ?? "#EF4444",
      },
      logoUrl: theme.logoUrl ?? null,
      font: theme.font ?? null,
      radius: theme.radius ?? 16,
      glow: theme.glow ?? false,
      cardStyle: theme.cardStyle ?? "flat",
      buttonStyle: theme.buttonStyle ?? "flat",
      background: theme.background ?? "solid",
      backgroundImage: theme.backgroundImage ?? null,
      badgeSet: theme.badgeSet ?? "shields",
      illustrationStyle: theme.illustrationStyle ?? "flat",
      motionLevel: theme.motionLevel ?? "full",
    },
    currencies: config.currencies.map(({ code, name, icon, decimals }) => ({ code, name, icon, decimals })),
    home: (config.home ?? []).flatMap((item) => {
      const block = typeof item === "string" ? { block: item } : item;
      if ("enabled" in block && block.enabled === false) return [];
      return [{ block: block.block, title: ("title" in block && block.title) || null, subtitle: ("subtitle" in block && block.subtitle) || null }];
    }),
    moduleCards: (config.moduleCards ?? [])
      .filter((card) => card.enabled !== false && SERVED_MODULES.has(card.module) && moduleOn(config, card.module, facts))
      .map((card) => ({
        module: card.module,
        title: card.title,
        subtitle: card.subtitle,
        illustration: card.illustration ?? "gift",
        cta: card.cta ?? "Saiba mais",
        group: card.group ?? null,
        layout: card.layout ?? null,
        tone: card.tone ?? null,
      })),
    faq: (config.faq ?? []).map(({ category, question, answer }) => ({ category, question, answer })),
    avatars: (config.avatars ?? []).map(image),
    icons: (config.icons ?? []).map(image),
    levels: levelTable(config).map(({ number, name, badge_url, color }) => ({ number, name, badge_url, color })),
    tiers: config.progression.tiers.map((tier) => ({
      code: tier.code,
      name: tier.name,
      min_level: tier.levels[0] ?? 1,
      max_level: tier.levels[1] ?? null,
      color: tier.color ?? null,
      badge: tier.badge ?? null,
      vip: tier.vip,
      benefits: tier.benefits.flatMap((code) => {
        const benefit = config.progression.benefits.find((candidate) => candidate.code === code);
        // A benefit under compliance review (or refused) must not be promised to participants.
        if (!benefit || benefit.compliance !== "ok") return [];
        return [{ code, name: benefit.name, description: benefit.description ?? null, icon: benefit.icon ?? null }];
      }),
    })),
    checkin: checkinView(config, rewardTitle),
    wheel: wheelView(config),
    store: config.rewards.flatMap((reward) => {
      if (reward.cost === null) return [];
      try {
        const priced = pricedReward(config, reward.code);
        return [
          {
            code: reward.code,
            title: reward.title,
            description: reward.description ?? null,
            illustration: reward.illustration,
            cost: { currency: priced.currency.code, amount: fromMinorUnits(priced.cost, priced.currency.decimals) },
          },
        ];
      } catch {
        return []; // under one minor unit: not on sale (as GET /v1/me/store)
      }
    }),
    rewards: config.rewards.map((reward) => ({
      code: reward.code,
      title: reward.title,
      description: reward.description ?? null,
      illustration: reward.illustration,
      howToUse: reward.howToUse ?? null,
    })),
    missions: config.missions
      .filter((mission) => mission.enabled)
      .map((mission) => ({ id: mission.id, title: mission.title, description: mission.description ?? null, illustration: mission.illustration })),
    legalNote: config.legalNote ?? null,
  };
}

function moduleOn(config: ClubConfig, module: Schemas["ModuleCardModule"], facts: MeConfigFacts): boolean {
  if (module === "codes") return facts.codesActive;
  if (module === "checkin") return config.checkin?.enabled !== false && config.checkin !== undefined;
  if (module === "wheel") return config.wheel?.enabled !== false && config.wheel !== undefined;
  return true;
}

function image(asset: Schemas["ImageAsset"]): Schemas["SurfaceImage"] {
  return { id: asset.id, url: asset.url, name: asset.name ?? null };
}

function checkinView(config: ClubConfig, rewardTitle: (code: string) => string): Schemas["SurfaceCheckin"] | null {
  const checkin = config.checkin;
  if (!checkin || checkin.enabled === false) return null;
  const days = checkin.days ?? 30;
  const highlights = new Set(checkin.highlightDays ?? []);
  const calendar = [];
  for (let day = 1; day <= days; day++) {
    const slot = checkin.rewards.length > 0 ? checkin.rewards[(day - 1) % checkin.rewards.length] : undefined;
    calendar.push({
      day,
      label: slot?.label ?? (slot ? rewardLabel(config, slot.reward, rewardTitle) : ""),
      illustration: slot?.illustration ?? null,
      highlight: highlights.has(day),
    });
  }
  return { days, period: checkin.period ?? "month", missedDay: checkin.missedDay ?? "restart", calendar };
}

/** A reward reference as a participant reads it: a reward's title, or "50 Moedas" / "100 XP". */
function rewardLabel(config: ClubConfig, spec: string, rewardTitle: (code: string) => string): string {
  const parsed = parseRewardSpec(spec);
  if (parsed?.kind === "xp") return `${parsed.amount} XP`;
  if (parsed?.kind === "currency") {
    return `${parsed.amount} ${config.currencies.find((currency) => currency.code === parsed.currency)?.name ?? parsed.currency}`;
  }
  return rewardTitle(parsed?.kind === "reward" ? parsed.code : spec);
}

function wheelView(config: ClubConfig): Schemas["SurfaceWheel"] | null {
  const wheel = config.wheel;
  if (!wheel || wheel.enabled === false) return null;
  return {
    style: wheel.style ?? "classica",
    titleLeft: wheel.titleLeft ?? "ROLETA",
    titleRight: wheel.titleRight ?? "GRATUITA",
    spinsPerDay: wheel.spinsPerDay ?? 1,
    slices: wheel.slices.map((slice) => ({ id: slice.id, label: slice.label, sublabel: slice.sublabel ?? null, image: slice.image ?? null })),
  };
}
