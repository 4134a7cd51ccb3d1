// The seed documents' field tables, as data: every resource field of the core
// document (000) and the configuration document (001) by the seed's name, its
// JSON type, whether it may be null, its unit and whether it is required; and
// the seed's limits. Written from the seeds, never from our own contract, so a
// rename, a re-typing or a re-scaling of any of them fails the seed contract
// test (seed-fields.test.ts).

/** The seed's JSON types: `number` accepts integers too, unless the unit is `main` (money with decimals). */
export type SeedType = "string" | "number" | "integer" | "boolean" | "object" | "array";

/**
 * - `main`: money in main units, a JSON number that may have decimals (10.5);
 * - `cents`: integer minor units, only where the seed's name says so;
 * - `none`: no money unit.
 */
export type SeedUnit = "main" | "cents" | "none";

export interface SeedField {
  /** Dotted path from the resource; `[]` walks into array items (`currencies[].balance`). */
  path: string;
  type: SeedType;
  nullable?: boolean;
  unit?: SeedUnit;
  /** The seed marks it optional (a present key is the default). */
  optional?: boolean;
}

export interface SeedResource {
  seed: "000" | "001";
  /** The seed's name for the resource. */
  name: string;
  /** The schema of the published document that carries it. */
  schema: string;
  fields: SeedField[];
}

const f = (path: string, type: SeedType, more: Omit<SeedField, "path" | "type"> = {}): SeedField => ({ path, type, unit: "none", ...more });
const money = (path: string, more: Omit<SeedField, "path" | "type" | "unit"> = {}): SeedField => ({ path, type: "number", unit: "main", ...more });
const opt = { optional: true };
const nul = { nullable: true };

const progressLevel = (prefix: string): SeedField[] => [
  f(`${prefix}number`, "integer"), f(`${prefix}name`, "string"), f(`${prefix}badge_url`, "string", nul), f(`${prefix}color`, "string", nul),
];
const progressXp = (prefix: string): SeedField[] => [
  f(`${prefix}current`, "number"), f(`${prefix}required`, "number"), f(`${prefix}total`, "number"), f(`${prefix}progress`, "number"),
];
const currencyBalances: SeedField[] = [
  f("currencies", "array"), f("currencies[].code", "string"), f("currencies[].name", "string"), f("currencies[].icon", "string"), money("currencies[].balance"),
];
const renameSnapshot = (prefix: string): SeedField[] => [
  f(`${prefix}id`, "string"), f(`${prefix}external_id`, "string"), f(`${prefix}xp`, "number"), f(`${prefix}level`, "number"),
  f(`${prefix}balances`, "object"), money(`${prefix}balances{}`),
];

/** The core document (000_8ca0b67693688ea8.txt), "Resources and their fields". */
export const CORE_RESOURCES: SeedResource[] = [
  {
    seed: "000", name: "ParticipantProfile", schema: "ParticipantProfile", fields: [
      f("id", "string"), f("external_id", "string"), f("display_name", "string", nul), f("avatar_url", "string", nul),
      f("xp", "number"), f("level", "number"), f("max_level", "number"), f("level_start_xp", "number"), f("next_level_xp", "number", nul),
      f("remaining_xp", "number"), f("percent", "number"),
      f("tier", "object"), f("tier.code", "string"), f("tier.name", "string"), f("tier.color", "string", nul), f("tier.badge", "string", nul), f("tier.vip", "boolean"),
      f("next_tier", "object", nul), f("next_tier.code", "string"), f("next_tier.name", "string"), f("next_tier.starts_at_level", "number"),
      f("benefits", "array"), f("benefits[]", "string"),
      ...currencyBalances,
      f("flags", "object"),
    ],
  },
  {
    seed: "000", name: "ParticipantUpsert", schema: "ParticipantUpsert", fields: [
      f("external_id", "string"), f("display_name", "string", { ...nul, ...opt }), f("avatar_url", "string", { ...nul, ...opt }),
      f("email", "string", { ...nul, ...opt }), f("phone", "string", { ...nul, ...opt }), f("tags", "array", opt), f("tags[]", "string"),
    ],
  },
  {
    seed: "000", name: "ParticipantProgress", schema: "ParticipantProgress", fields: [
      f("participant", "object"), f("participant.external_id", "string"), f("participant.display_name", "string", nul), f("participant.avatar_url", "string", nul),
      f("level", "object"), ...progressLevel("level."),
      f("xp", "object"), ...progressXp("xp."),
      f("next_level", "object", nul), f("next_level.number", "integer"), f("next_level.name", "string"), f("next_level.badge_url", "string", nul),
      f("levels", "array"), f("levels[].number", "integer"), f("levels[].name", "string"), f("levels[].xp_required", "number", nul),
      f("levels[].badge_url", "string", nul), f("levels[].color", "string", nul),
      ...currencyBalances,
      f("updated_at", "string"),
    ],
  },
  {
    seed: "000", name: "Token response", schema: "TokenResponse", fields: [
      f("token", "string"), f("expires_at", "string"), f("participant_id", "string"), f("level", "object"), ...progressLevel("level."), f("xp", "object"), ...progressXp("xp."),
    ],
  },
  {
    seed: "000", name: "ParticipantRename", schema: "ParticipantRename", fields: [
      f("new_external_id", "string"), f("merge", "boolean", opt), f("dry_run", "boolean", opt),
    ],
  },
  {
    seed: "000", name: "ParticipantRenameReport", schema: "ParticipantRenameReport", fields: [
      f("env", "string"), f("from", "string"), f("to", "string"), f("dry_run", "boolean"),
      f("before", "object"), ...renameSnapshot("before."),
      f("merged", "object", nul), ...renameSnapshot("merged."), f("merged.duplicates_dropped", "object"), f("merged.duplicates_dropped{}", "number"),
      f("after", "object"), ...renameSnapshot("after."),
      f("rewritten", "object"), f("rewritten{}", "number"), f("moved", "object"), f("moved{}", "number"),
    ],
  },
  {
    seed: "000", name: "Event input", schema: "EventInput", fields: [
      f("participant", "string"), f("type", "string"), f("id", "string", opt), money("amount", opt), f("currency", "string", opt),
      f("occurred_at", "string", opt), f("meta", "object", opt),
    ],
  },
  { seed: "000", name: "Effect xp_granted", schema: "XpGrantedEffect", fields: [f("type", "string"), f("amount", "number"), f("rule_id", "string")] },
  { seed: "000", name: "Effect xp_debited", schema: "XpDebitedEffect", fields: [f("type", "string"), f("amount", "number"), f("rule_id", "string")] },
  { seed: "000", name: "Effect currency_granted", schema: "CurrencyGrantedEffect", fields: [f("type", "string"), f("currency", "string"), money("amount"), f("rule_id", "string")] },
  { seed: "000", name: "Effect currency_debited", schema: "CurrencyDebitedEffect", fields: [f("type", "string"), f("currency", "string"), money("amount"), f("rule_id", "string")] },
  { seed: "000", name: "Effect level_up", schema: "LevelUpEffect", fields: [f("type", "string"), f("from", "number"), f("to", "number")] },
  { seed: "000", name: "Effect tier_changed", schema: "TierChangedEffect", fields: [f("type", "string"), f("from", "string"), f("to", "string")] },
  { seed: "000", name: "Effect mission_progressed", schema: "MissionProgressedEffect", fields: [f("type", "string"), f("mission_id", "string"), f("progress", "number"), f("target", "number")] },
  { seed: "000", name: "Effect mission_completed", schema: "MissionCompletedEffect", fields: [f("type", "string"), f("mission_id", "string"), f("period", "string")] },
  {
    seed: "000", name: "Effect reward_granted", schema: "RewardGrantedEffect", fields: [
      f("type", "string"), f("reward_code", "string"), f("rule_id", "string"), f("reward_id", "string", opt), f("delivery_id", "string", opt),
    ],
  },
  { seed: "000", name: "Effect badge_granted", schema: "BadgeGrantedEffect", fields: [f("type", "string"), f("badge_code", "string"), f("rule_id", "string")] },
  { seed: "000", name: "Effect leaderboard_points", schema: "LeaderboardPointsEffect", fields: [f("type", "string"), f("campaign_id", "string"), f("points", "number"), f("rule_id", "string")] },
  { seed: "000", name: "Effect tagged", schema: "TaggedEffect", fields: [f("type", "string"), f("tag", "string"), f("rule_id", "string")] },
  { seed: "000", name: "Event result", schema: "EventResult", fields: [f("event_id", "string"), f("duplicate", "boolean"), f("effects", "array")] },
  { seed: "000", name: "EventsQueued", schema: "EventsQueued", fields: [f("queued", "boolean"), f("event_ids", "array"), f("event_ids[]", "string")] },
  {
    seed: "000", name: "Delivery", schema: "Delivery", fields: [
      f("id", "string"), f("participant_id", "string"), f("participant_reward_id", "string"), f("reward_code", "string"), f("status", "string"),
      f("external_ref", "string", nul), f("fail_reason", "string", nul), f("created_at", "string"), f("confirmed_at", "string", nul),
    ],
  },
  { seed: "000", name: "GET /v1/deliveries", schema: "DeliveryList", fields: [f("deliveries", "array")] },
  {
    seed: "000", name: "Redemption", schema: "Redemption", fields: [
      f("id", "string"), f("reward_code", "string"), f("title", "string"), f("cost", "object"), f("cost.currency", "string"), money("cost.amount"),
      money("balance_after"), f("delivery_status", "string"), f("duplicate", "boolean"), f("effects", "array"), f("effects[]", "object"),
    ],
  },
  { seed: "000", name: "Referral registration input", schema: "ReferralRegistration", fields: [f("referred_external_id", "string"), f("code", "string")] },
  { seed: "000", name: "Referral registration result", schema: "ReferralRegistrationResult", fields: [f("id", "string"), f("status", "string")] },
  {
    seed: "000", name: "ReferralState", schema: "ReferralState", fields: [
      f("enabled", "boolean"), f("code", "string"), f("link", "string", nul), f("referrerReward", "string", nul), f("referredReward", "string", nul),
      f("qualifyEvent", "string"), money("minAmount"), f("stats", "object"), f("stats.invited", "number"), f("stats.qualified", "number"),
      f("stats.earned", "string", nul), { path: "availableCents", type: "integer", unit: "cents" }, f("friends", "array"), f("friends[].name", "string"),
      f("friends[].status", "string"), f("friends[].since", "string"),
    ],
  },
  {
    seed: "000", name: "Affiliate attribution input", schema: "AffiliateAttributionRequest", fields: [
      f("participant_external_id", "string"), f("code", "string"), f("signup_at", "string", opt),
    ],
  },
  { seed: "000", name: "Affiliate attribution result", schema: "AffiliateAttribution", fields: [f("id", "string"), f("affiliate_link", "string"), f("backfilled", "number")] },
  {
    seed: "000", name: "Health", schema: "Health", fields: [
      f("status", "string"), f("version", "string"), f("env", "string"), f("checks", "object"), f("checks.db", "string"), f("checks.kv", "string"), f("latency_ms", "number"),
    ],
  },
  {
    seed: "000", name: "CheckinState", schema: "CheckinState", fields: [
      f("todayKey", "string"), f("currentDayIndex", "number"), f("todayIndex", "number"), f("nextDayAt", "string"), f("period", "string"),
      f("daysInPeriod", "number"), f("streak", "number"), f("claimedToday", "boolean"), f("canClaim", "boolean"), f("days", "array"), f("days[]", "string"),
      f("forgivenessUsed", "number"),
    ],
  },
  {
    seed: "000", name: "Notification", schema: "Notification", fields: [
      f("id", "string"), f("kind", "string"), f("title", "string"), f("body", "string", nul), f("view", "string", nul), f("createdAt", "string"), f("readAt", "string", nul),
    ],
  },
  {
    seed: "000", name: "CashbackState", schema: "CashbackState", fields: [
      f("enabled", "boolean"), f("mode", "string"), money("available"), f("availableDays", "array"), f("availableDays[].dayKey", "string"),
      money("availableDays[].amount"), f("availableDays[].pct", "number"), money("availableDays[].loss"),
      f("today", "object"), money("today.amount"), money("today.loss"), f("today.pct", "number"), f("today.band", "string", nul),
      f("pctRange", "object"), f("pctRange.min", "number"), f("pctRange.max", "number"), f("nextDayAt", "string"), f("autoHour", "number"),
      f("claimDays", "number"), money("monthReceived"),
    ],
  },
  {
    seed: "000", name: "Cashback program", schema: "CashbackProgram", fields: [
      f("enabled", "boolean"), f("mode", "string"), f("hour", "integer"), f("claim_days", "integer"), money("min_loss"), f("min_pct", "number"),
      f("max_pct", "number"), f("tiers", "array"), f("tiers[].name", "string"), money("tiers[].min_loss"), f("tiers[].pct", "number"),
      f("welcome", "object"), f("welcome.enabled", "boolean"), f("welcome.pct", "number"), money("welcome.max"), f("text", "object"),
    ],
  },
  {
    seed: "000", name: "WheelState", schema: "WheelState", fields: [
      f("style", "string"), f("titleLeft", "string"), f("titleRight", "string"), f("slices", "array"), f("slices[]", "object"), f("spinsLeft", "number"),
      f("nextSpinAt", "string", nul),
    ],
  },
  {
    seed: "000", name: "WheelSpinResult", schema: "WheelSpinResult", fields: [
      f("spinId", "string"), f("index", "number"), f("sliceId", "string"), f("label", "string"), f("reward", "string", nul),
      f("rewardId", "string", { ...nul, ...opt }), f("prize", "object", opt), f("spinsLeft", "number"), f("nextSpinAt", "string", nul),
      f("probabilityVersion", "integer"), f("duplicate", "boolean"), f("effects", "array"), f("effects[]", "object"),
    ],
  },
  { seed: "000", name: "GamesSynced", schema: "GamesSynced", fields: [f("upserted", "integer"), f("deactivated", "integer")] },
  { seed: "000", name: "Error body", schema: "ErrorBody", fields: [f("error", "object"), f("error.code", "string"), f("error.message", "string")] },
  {
    seed: "000", name: "reward.delivery_requested data", schema: "RewardDeliveryRequestedWebhookData", fields: [
      f("participant", "object"), f("participant.id", "string"), f("participant.external_id", "string"),
      f("reward", "object"), f("reward.id", "string"), f("reward.code", "string"), f("reward.title", "string"), f("reward.type", "string"), f("reward.payload", "object"),
      f("source", "string"), f("delivery", "object"), f("delivery.id", "string"), f("delivery.confirm_url", "string"), f("delivery.fail_url", "string"),
    ],
  },
  { seed: "000", name: "level.up data", schema: "LevelUpWebhookData", fields: [f("participant", "object"), f("level", "number"), f("from", "number")] },
];

/** The configuration document (001_bd40a1aebab9fb8f.txt): every section's field names and types. */
export const CONFIG_RESOURCES: SeedResource[] = [
  {
    seed: "001", name: "config (top level)", schema: "ClubConfig", fields: [
      f("name", "string", opt), f("templateCode", "string", opt), f("theme", "object"), f("currencies", "array"), f("progression", "object"),
      f("checkin", "object", opt), f("wheel", "object", opt), f("referral", "object", opt), f("games", "object", opt), f("rules", "array", opt),
      f("rewards", "array", opt), f("missions", "array", opt), f("tournaments", "array", opt), f("officialTournaments", "object", opt),
      f("home", "array", opt), f("moduleCards", "array", opt), f("faq", "array", opt), f("avatars", "array", opt), f("icons", "array", opt),
      f("allowedOrigins", "array", opt), f("legalNote", "string", opt),
    ],
  },
  {
    seed: "001", name: "theme", schema: "ThemeConfig", fields: [
      f("name", "string"), f("colors", "object"), f("colors.bg", "string"), f("colors.surface", "string"), f("colors.primary", "string"),
      f("colors.secondary", "string"), f("colors.text", "string"), f("colors.muted", "string"), f("colors.success", "string", opt),
      f("colors.warning", "string", opt), f("colors.danger", "string", opt), f("logoUrl", "string", opt), f("logoPngUrl", "string", opt),
      f("font", "string", opt), f("radius", "integer", opt), f("glow", "boolean", opt), f("cardStyle", "string", opt), f("buttonStyle", "string", opt),
      f("background", "string", opt), f("backgroundImage", "string", opt), f("badgeSet", "string", opt), f("illustrationStyle", "string", opt),
      f("motionLevel", "string", opt),
    ],
  },
  {
    seed: "001", name: "currencies[]", schema: "CurrencyConfig", fields: [
      f("code", "string"), f("name", "string"), f("icon", "string", opt), f("decimals", "integer", opt), f("expiresInDays", "integer", { ...nul, ...opt }),
    ],
  },
  {
    seed: "001", name: "checkin", schema: "CheckinConfig", fields: [
      f("enabled", "boolean", opt), f("days", "number", opt), f("rewards", "array"), f("rewards[].reward", "string"), f("rewards[].label", "string", opt),
      f("rewards[].illustration", "string", opt), f("rewards[].multiplier", "number", opt), f("highlightDays", "array", opt), f("period", "string", opt),
      f("missedDay", "string", opt), f("timezone", "string", opt), f("resetHour", "integer", opt), f("requireEvent", "string", { ...nul, ...opt }),
    ],
  },
  {
    seed: "001", name: "wheel", schema: "WheelConfig", fields: [
      f("enabled", "boolean", opt), f("style", "string", opt), f("titleLeft", "string", opt), f("titleRight", "string", opt), f("slices", "array"),
      f("spinsPerDay", "integer", opt), f("probabilityVersion", "integer", opt),
    ],
  },
  {
    seed: "001", name: "referral", schema: "ReferralConfig", fields: [
      f("enabled", "boolean", opt), f("referrerReward", "string", opt), f("referredReward", "string", { ...nul, ...opt }), f("qualifyEvent", "string", opt),
      money("minAmount", opt), f("dailyLimit", "integer", opt), f("shareUrl", "string", opt),
    ],
  },
  {
    seed: "001", name: "rewards[]", schema: "RewardConfig", fields: [
      f("code", "string"), f("title", "string"), f("description", "string", opt), f("illustration", "string", opt), f("type", "string", opt),
      f("payload", "object", opt), f("expiresInDays", "integer", { ...nul, ...opt }), f("howToUse", "string", opt), f("cost", "object", { ...nul, ...opt }),
      f("cost.currency", "string"), money("cost.amount"),
    ],
  },
  {
    seed: "001", name: "missions[]", schema: "MissionConfig", fields: [
      f("id", "string"), f("title", "string"), f("description", "string", opt), f("illustration", "string", opt), f("event", "string"),
      f("conditions", "array", opt), f("games", "object", opt), f("goal", "object"), f("period", "string", opt), f("reward", "string"),
      f("claim", "string", opt), f("enabled", "boolean", opt), f("audienceTag", "string", opt), f("startsAt", "string", opt), f("endsAt", "string", opt),
      f("order", "integer", opt),
    ],
  },
  {
    seed: "001", name: "tournaments[]", schema: "TournamentConfig", fields: [
      f("id", "string"), f("title", "string"), f("description", "string", opt), f("illustration", "string", opt), f("event", "string"),
      f("conditions", "array", opt), f("games", "object", opt), f("scoring", "string", opt), f("field", "string", opt), f("startsAt", "string"),
      f("endsAt", "string"), f("recurrence", "string", opt), f("prizes", "array"), f("prizes[].from", "integer"), f("prizes[].to", "integer"),
      f("prizes[].reward", "string"), f("minScore", "number", opt), f("enabled", "boolean", opt),
    ],
  },
  {
    seed: "001", name: "moduleCards[]", schema: "ModuleCardConfig", fields: [
      f("module", "string"), f("enabled", "boolean", opt), f("title", "string"), f("subtitle", "string"), f("illustration", "string", opt),
      f("cta", "string", opt), f("group", "string", opt), f("layout", "string", opt), f("tone", "string", opt),
    ],
  },
  { seed: "001", name: "faq[]", schema: "FaqItem", fields: [f("category", "string"), f("question", "string"), f("answer", "string")] },
];

/** One row of a seed's Limits table (or a bound of a field table), as the published document must state it. */
export interface SeedLimit {
  limit: string;
  /** Where the bound sits: a schema name and property path, or an operation's parameter. */
  at: { schema: string; path: string } | { operation: string; parameter: string };
  /** JSON Schema keywords and their values (`minItems`, `maxLength`, `maximum`, `default`…). */
  bounds: Record<string, number | string>;
}

/** The core document's Limits table, with the field bounds it restates. */
export const SEED_LIMITS: SeedLimit[] = [
  { limit: "external_ids per progress request: 1..200", at: { schema: "ParticipantProgressBatchRequest", path: "external_ids" }, bounds: { minItems: 1, maxItems: 200 } },
  { limit: "events per batch: 1..500", at: { schema: "EventBatch", path: "events" }, bounds: { minItems: 1, maxItems: 500 } },
  { limit: "token ttl_seconds: 60..86400, default 900", at: { schema: "TokenRequest", path: "ttl_seconds" }, bounds: { minimum: 60, maximum: 86400, default: 900 } },
  { limit: "participant external_id: 1..128 characters", at: { schema: "ExternalId", path: "" }, bounds: { minLength: 1, maxLength: 128 } },
  { limit: "event id: 1..128 characters", at: { schema: "EventInput", path: "id" }, bounds: { minLength: 1, maxLength: 128 } },
  { limit: "Idempotency-Key (events): 1..128 characters", at: { operation: "Events_send", parameter: "Idempotency-Key" }, bounds: { minLength: 1, maxLength: 128 } },
  { limit: "Idempotency-Key (redemptions): 8..120 characters", at: { operation: "Redemptions_create", parameter: "Idempotency-Key" }, bounds: { minLength: 8, maxLength: 120 } },
  { limit: "event type: 3..64 characters", at: { schema: "EventInput", path: "type" }, bounds: { minLength: 3, maxLength: 64 } },
  { limit: "referral code: 4..16 characters", at: { schema: "ReferralRegistration", path: "code" }, bounds: { minLength: 4, maxLength: 16 } },
  { limit: "affiliate code: 4..16 characters", at: { schema: "AffiliateAttributionRequest", path: "code" }, bounds: { minLength: 4, maxLength: 16 } },
  { limit: "confirm external_ref: max 200 characters", at: { schema: "DeliveryConfirm", path: "external_ref" }, bounds: { maxLength: 200 } },
  { limit: "confirm details.spins: >0 and <=10000", at: { schema: "DeliveryConfirmDetails", path: "spins" }, bounds: { minimum: 1, maximum: 10000 } },
  { limit: "fail reason: 1..500 characters", at: { schema: "DeliveryFail", path: "reason" }, bounds: { minLength: 1, maxLength: 500 } },
  { limit: "deliveries list: up to 200 items", at: { operation: "Deliveries_list", parameter: "limit" }, bounds: { maximum: 200, default: 200 } },
  { limit: "tags per participant: at most 20", at: { schema: "ParticipantUpsert", path: "tags" }, bounds: { maxItems: 20 } },
  { limit: "each tag: max 32 characters", at: { schema: "ParticipantUpsert", path: "tags[]" }, bounds: { maxLength: 32 } },
  { limit: "display_name: max 80 characters", at: { schema: "ParticipantUpsert", path: "display_name" }, bounds: { maxLength: 80 } },
  { limit: "phone: max 32 characters", at: { schema: "ParticipantUpsert", path: "phone" }, bounds: { maxLength: 32 } },
  { limit: "rename new_external_id: 1..128 characters", at: { schema: "ParticipantRename", path: "new_external_id" }, bounds: { minLength: 1, maxLength: 128 } },
  { limit: "wheel probabilityVersion: integer, minimum 1", at: { schema: "WheelSpinResult", path: "probabilityVersion" }, bounds: { minimum: 1 } },
];
