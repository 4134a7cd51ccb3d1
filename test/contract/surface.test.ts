// The participant surface (/v1/me/*) and the management routes as published:
// who may call them (participant token only on /v1/me/*, management routes
// secret key only), and every request bound they introduce, checked on the
// generated validators the server uses: at the bound passes, one past fails,
// and the 422 message (formatAjvError) names the failing field.
import { readFileSync } from "node:fs";
import type { ValidateFunction } from "ajv";
import { describe, expect, it } from "vitest";
import { formatAjvError, operationValidators, type RequestPart } from "../../generated/validators.js";

interface Operation {
  operationId: string;
  tags: string[];
  security?: Record<string, string[]>[];
  responses: Record<string, unknown>;
}

const doc = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as {
  paths: Record<string, Record<string, Operation>>;
};
const operations = Object.entries(doc.paths).flatMap(([path, item]) => Object.values(item).map((operation) => ({ path, ...operation })));
const ops = operationValidators;

/** The participant surface's operations; the SDKs name their methods after them. */
const meOperationIds = [
  "Me_getConfig",
  "Me_getProfile",
  "Me_getProgress",
  "Me_listMissions",
  "Me_claimMission",
  "Me_getCheckin",
  "Me_claimCheckin",
  "Me_getWheel",
  "Me_spinWheel",
  "Me_rotateWheelSeed",
  "Me_listWheelSpins",
  "Me_listStore",
  "Me_redeemStoreItem",
  "Me_listRewards",
  "Me_listNotifications",
  "Me_markNotificationRead",
  "Me_markAllNotificationsRead",
  "Me_getCashback",
  "Me_claimCashback",
  "Me_getReferral",
  "Me_listLeaderboards",
  "Me_getLeaderboard",
  "Me_listBadges",
  "Me_listTournaments",
  "Me_redeemCode",
];

/** The management operations (spec/manage/). */
const managementOperationIds = [
  "ConfigVersions_getDraft",
  "ConfigVersions_saveDraft",
  "ConfigVersions_publish",
  "ConfigVersions_list",
  "CashbackSettings_update",
  "WebhookEndpoints_create",
  "WebhookEndpoints_list",
  "WebhookEndpoints_get",
  "WebhookEndpoints_update",
  "WebhookEndpoints_delete",
  "WebhookEndpoints_rotateSecret",
  "WebhookEndpoints_listSendings",
  "WebhookSendings_resend",
  "AffiliateAccounts_create",
  "AffiliateAccounts_list",
  "AffiliateAccounts_get",
  "AffiliateAccounts_update",
  "EventLog_list",
  "EventLog_sendTest",
  "Tournaments_list",
  "Tournaments_standings",
  "Warnings_list",
  "Backtests_run",
  "Backtests_get",
  "ApiKeys_list",
  "ApiKeys_create",
  "ApiKeys_roll",
  "ApiKeys_revoke",
  "TokenSecret_roll",
  "Codes_create",
  "Codes_list",
  "Codes_get",
  "Codes_disable",
  "Codes_redeemFor",
];

const meAuth = [{ SecretKeyAuth: [], ParticipantHeaderAuth: [] }, { ParticipantTokenAuth: [] }];
/** The management routes: the secret key, or a staff session whose role has the operation's permission. */
const secretKeyOnly = [{ SecretKeyAuth: [] }, { StaffSessionAuth: [] }];
const byId = (operationId: string) => operations.find((operation) => operation.operationId === operationId)!;

describe("who may call the participant surface and the management routes", () => {
  it("the /v1/me routes are exactly the Me operations, tagged Me", () => {
    const surface = operations.filter((operation) => operation.path === "/v1/me" || operation.path.startsWith("/v1/me/"));
    expect(surface.map((operation) => operation.operationId).sort()).toEqual([...meOperationIds].sort());
    for (const operation of surface) expect(operation.tags).toEqual(["Me"]);
  });

  it.each(meOperationIds)("%s accepts a participant token, or the secret key with X-Participant", (operationId) => {
    const operation = byId(operationId);
    expect(operation.security).toEqual(meAuth);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["401", "404"]));
  });

  it("no route outside /v1/me accepts a participant token or X-Participant", () => {
    const elsewhere = operations.filter((operation) => !meOperationIds.includes(operation.operationId));
    for (const operation of elsewhere) {
      const schemes = (operation.security ?? []).flatMap((alternative) => Object.keys(alternative));
      expect(schemes, operation.operationId).not.toContain("ParticipantTokenAuth");
      expect(schemes, operation.operationId).not.toContain("ParticipantHeaderAuth");
    }
  });

  it.each(managementOperationIds)("%s takes the secret key or a staff session and documents 403", (operationId) => {
    const operation = byId(operationId);
    expect(operation, operationId).toBeDefined();
    expect(operation.security).toEqual(secretKeyOnly);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["401", "403"]));
  });
});

/** Runs a validator on a copy (validators fill defaults into what they check). */
function check(validate: ValidateFunction, value: unknown, where: RequestPart): { ok: boolean; value: unknown; message: string } {
  const copy = structuredClone(value);
  const ok = validate(copy) as boolean;
  return { ok, value: copy, message: ok ? "" : formatAjvError(validate.errors![0], where) };
}

const text = (length: number, char = "a"): string => char.repeat(length);
/** An https URL of exactly `length` characters. */
const url = (length: number): string => {
  const prefix = "https://hooks.cassino.example.com/";
  return prefix + text(length - prefix.length);
};
const tier = (fields: Record<string, unknown> = {}) => ({ name: "Prata", min_loss_minor: 50000, pct: 10, ...fields });
const tiers = (count: number) => Array.from({ length: count }, (_, i) => tier({ name: `Faixa ${i + 1}`, min_loss_minor: i * 1000 }));
const endpoint = (fields: Record<string, unknown> = {}) => ({ url: "https://api.cassino.example.com/webhooks/clube", ...fields });
const affiliate = (fields: Record<string, unknown> = {}) => ({ code: "STREAMERJOAO", name: "João Streamer", ...fields });

interface BoundCase {
  /** What is bounded. */
  bound: string;
  validate: ValidateFunction;
  where: RequestPart;
  /** The dotted field a failure's message must start with. */
  field: string;
  passes: unknown[];
  fails: unknown[];
}

/** Every list of the surface and the management routes takes `limit` 1..100. */
const limitCases: BoundCase[] = [
  "Me_listNotifications",
  "Me_getLeaderboard",
  "ConfigVersions_list",
  "WebhookEndpoints_list",
  "WebhookEndpoints_listSendings",
  "AffiliateAccounts_list",
  "EventLog_list",
  "Warnings_list",
  "Me_listTournaments",
  "Tournaments_standings",
].map((operationId) => ({
  bound: `${operationId} limit: 1..100`,
  validate: ops[operationId as keyof typeof ops].query!,
  where: "query",
  field: "query.limit",
  passes: [{ limit: "1" }, { limit: "100" }],
  fails: [{ limit: "0" }, { limit: "101" }, { limit: "ten" }],
}));

/** Management lists page by the id of the previous page's last item. */
const cursorCases: BoundCase[] = ["WebhookEndpoints_list", "WebhookEndpoints_listSendings", "AffiliateAccounts_list", "EventLog_list", "Warnings_list"].map(
  (operationId) => ({
    bound: `${operationId} starting_after: 1..64 characters`,
    validate: ops[operationId as keyof typeof ops].query!,
    where: "query",
    field: "query.starting_after",
    passes: [{ starting_after: text(1) }, { starting_after: text(64) }],
    fails: [{ starting_after: "" }, { starting_after: text(65) }],
  }),
);

/** Path ids: configuration codes follow their pattern, service ids are 1..64 characters. */
const pathCases: BoundCase[] = [
  ...(
    [
      ["Me_claimMission", "mission_id"],
      ["Me_redeemStoreItem", "reward_code"],
      ["Me_getLeaderboard", "campaign_id"],
    ] as const
  ).map(([operationId, name]) => ({
    bound: `${operationId} ${name}: a configuration code, ^[a-z0-9-]{1,48}$`,
    validate: ops[operationId].path,
    where: "path" as const,
    field: `path.${name}`,
    passes: [{ [name]: "deposito-semanal" }, { [name]: text(48) }],
    fails: [{ [name]: "" }, { [name]: text(49) }, { [name]: "Deposito_Semanal" }],
  })),
  ...(
    [
      ["Me_markNotificationRead", "notification_id"],
      ["WebhookEndpoints_get", "id"],
      ["WebhookEndpoints_update", "id"],
      ["WebhookEndpoints_delete", "id"],
      ["WebhookEndpoints_rotateSecret", "id"],
      ["WebhookEndpoints_listSendings", "id"],
      ["WebhookSendings_resend", "id"],
      ["AffiliateAccounts_get", "id"],
      ["AffiliateAccounts_update", "id"],
      ["ApiKeys_roll", "id"],
      ["ApiKeys_revoke", "id"],
    ] as const
  ).map(([operationId, name]) => ({
    bound: `${operationId} ${name}: 1..64 characters`,
    validate: ops[operationId].path,
    where: "path" as const,
    field: `path.${name}`,
    passes: [{ [name]: text(1) }, { [name]: text(64) }],
    fails: [{ [name]: "" }, { [name]: text(65) }],
  })),
];

const cases: BoundCase[] = [
  ...limitCases,
  ...cursorCases,
  ...pathCases,
  ...(["Me_spinWheel", "Me_redeemStoreItem"] as const).map((operationId) => ({
    bound: `${operationId} Idempotency-Key: 8..120 characters`,
    validate: ops[operationId].headers,
    where: "headers" as const,
    field: "headers.idempotency-key",
    passes: [{ "idempotency-key": text(8) }, { "idempotency-key": text(120) }, {}],
    fails: [{ "idempotency-key": text(7) }, { "idempotency-key": text(121) }],
  })),
  {
    bound: "notifications unread: a boolean",
    validate: ops.Me_listNotifications.query,
    where: "query",
    field: "query.unread",
    passes: [{ unread: "true" }, { unread: "false" }, {}],
    fails: [{ unread: "maybe" }],
  },
  {
    bound: "the surface's queries take no unknown parameter",
    validate: ops.Me_getProfile.query,
    where: "query",
    field: "query.expand",
    passes: [{}],
    fails: [{ expand: "tier" }],
  },
  {
    bound: "config versions starting_after: a version number >= 1",
    validate: ops.ConfigVersions_list.query,
    where: "query",
    field: "query.starting_after",
    passes: [{ starting_after: "1" }, { starting_after: "8" }],
    fails: [{ starting_after: "0" }, { starting_after: "v8" }],
  },
  {
    bound: "publish version: an integer >= 1, or absent",
    validate: ops.ConfigVersions_publish.body,
    where: "body",
    field: "body.version",
    passes: [{}, { version: 1 }],
    fails: [{ version: 0 }, { version: 1.5 }],
  },
  {
    bound: "publish body: closed",
    validate: ops.ConfigVersions_publish.body,
    where: "body",
    field: "body.draft",
    passes: [{ version: 8 }],
    fails: [{ draft: 8 }],
  },
  {
    bound: "cashback hour: 0..23",
    validate: ops.CashbackSettings_update.body,
    where: "body",
    field: "body.hour",
    passes: [{ hour: 0 }, { hour: 23 }],
    fails: [{ hour: -1 }, { hour: 24 }, { hour: 9.5 }],
  },
  {
    bound: "cashback claim_days: 1..30",
    validate: ops.CashbackSettings_update.body,
    where: "body",
    field: "body.claim_days",
    passes: [{ claim_days: 1 }, { claim_days: 30 }],
    fails: [{ claim_days: 0 }, { claim_days: 31 }],
  },
  {
    bound: "cashback min_loss_minor: >= 0 cents",
    validate: ops.CashbackSettings_update.body,
    where: "body",
    field: "body.min_loss_minor",
    passes: [{ min_loss_minor: 0 }, { min_loss_minor: 5000 }],
    fails: [{ min_loss_minor: -1 }, { min_loss_minor: 10.5 }],
  },
  ...(["min_pct", "max_pct"] as const).map((name) => ({
    bound: `cashback ${name}: 0..100`,
    validate: ops.CashbackSettings_update.body,
    where: "body" as const,
    field: `body.${name}`,
    passes: [{ [name]: 0 }, { [name]: 100 }, { [name]: 7.5 }],
    fails: [{ [name]: -0.5 }, { [name]: 100.5 }],
  })),
  {
    bound: "cashback tiers: at most 10",
    validate: ops.CashbackSettings_update.body,
    where: "body",
    field: "body.tiers",
    passes: [{ tiers: [] }, { tiers: tiers(10) }],
    fails: [{ tiers: tiers(11) }],
  },
  {
    bound: "cashback tier name: 1..40 characters",
    validate: ops.CashbackSettings_update.body,
    where: "body",
    field: "body.tiers[0].name",
    passes: [{ tiers: [tier({ name: text(1) })] }, { tiers: [tier({ name: text(40) })] }],
    fails: [{ tiers: [tier({ name: "" })] }, { tiers: [tier({ name: text(41) })] }],
  },
  {
    bound: "cashback tier pct: 0..100",
    validate: ops.CashbackSettings_update.body,
    where: "body",
    field: "body.tiers[0].pct",
    passes: [{ tiers: [tier({ pct: 0 })] }, { tiers: [tier({ pct: 100 })] }],
    fails: [{ tiers: [tier({ pct: -1 })] }, { tiers: [tier({ pct: 101 })] }],
  },
  {
    bound: "cashback tier min_loss_minor: >= 0 cents",
    validate: ops.CashbackSettings_update.body,
    where: "body",
    field: "body.tiers[0].min_loss_minor",
    passes: [{ tiers: [tier({ min_loss_minor: 0 })] }],
    fails: [{ tiers: [tier({ min_loss_minor: -1 })] }],
  },
  {
    bound: "cashback welcome pct: 0..100",
    validate: ops.CashbackSettings_update.body,
    where: "body",
    field: "body.welcome.pct",
    passes: [{ welcome: { pct: 0 } }, { welcome: { pct: 100 } }],
    fails: [{ welcome: { pct: -1 } }, { welcome: { pct: 101 } }],
  },
  {
    bound: "cashback welcome max_minor: >= 0 cents",
    validate: ops.CashbackSettings_update.body,
    where: "body",
    field: "body.welcome.max_minor",
    passes: [{ welcome: { max_minor: 0 } }],
    fails: [{ welcome: { max_minor: -1 } }],
  },
  {
    bound: "cashback text: strings and switches only",
    validate: ops.CashbackSettings_update.body,
    where: "body",
    field: "body.text.limit",
    passes: [{}, { text: { title: "Cashback diário", show_history: true } }],
    fails: [{ text: { limit: 10 } }],
  },
  {
    bound: "cashback update: closed",
    validate: ops.CashbackSettings_update.body,
    where: "body",
    field: "body.percent",
    passes: [{ mode: "claim" }],
    fails: [{ percent: 5 }],
  },
  {
    bound: "cashback mode: auto or claim",
    validate: ops.CashbackSettings_update.body,
    where: "body",
    field: "body.mode",
    passes: [{ mode: "auto" }, { mode: "claim" }],
    fails: [{ mode: "manual" }],
  },
  {
    bound: "webhook url: http or https, at most 2000 characters",
    validate: ops.WebhookEndpoints_create.body,
    where: "body",
    field: "body.url",
    passes: [endpoint({ url: url(2000) }), endpoint({ url: "http://localhost:4000/hooks" })],
    fails: [
      endpoint({ url: url(2001) }),
      endpoint({ url: "ftp://hooks.cassino.example.com/" }),
      endpoint({ url: "hooks.cassino.example.com/clube" }),
      endpoint({ url: "https://hooks.cassino example.com/" }),
    ],
  },
  {
    bound: "webhook url on update: the same rule",
    validate: ops.WebhookEndpoints_update.body,
    where: "body",
    field: "body.url",
    passes: [{ url: url(2000) }],
    fails: [{ url: url(2001) }, { url: "wss://hooks.cassino.example.com/" }],
  },
  {
    bound: "webhook events: at most 50",
    validate: ops.WebhookEndpoints_create.body,
    where: "body",
    field: "body.events",
    passes: [endpoint({ events: [] }), endpoint({ events: Array.from({ length: 50 }, () => "level.up") })],
    fails: [endpoint({ events: Array.from({ length: 51 }, () => "level.up") })],
  },
  {
    bound: "webhook events: seed event names or reward.*",
    validate: ops.WebhookEndpoints_create.body,
    where: "body",
    field: "body.events[0]",
    passes: [endpoint({ events: ["reward.*", "referral.qualified", "message.requested", "level.up"] })],
    fails: [endpoint({ events: ["deposit.confirmed"] }), endpoint({ events: ["webhook.test"] }), endpoint({ events: ["*"] })],
  },
  {
    bound: "webhook events on update: at most 50",
    validate: ops.WebhookEndpoints_update.body,
    where: "body",
    field: "body.events",
    passes: [{ events: Array.from({ length: 50 }, () => "tier.changed") }],
    fails: [{ events: Array.from({ length: 51 }, () => "tier.changed") }],
  },
  {
    bound: "webhook description: at most 200 characters",
    validate: ops.WebhookEndpoints_create.body,
    where: "body",
    field: "body.description",
    passes: [endpoint({ description: text(200) })],
    fails: [endpoint({ description: text(201) })],
  },
  {
    bound: "webhook description on update: at most 200 characters, or null",
    validate: ops.WebhookEndpoints_update.body,
    where: "body",
    field: "body.description",
    passes: [{ description: null }, { description: text(200) }],
    fails: [{ description: text(201) }],
  },
  {
    bound: "webhook endpoint: closed",
    validate: ops.WebhookEndpoints_create.body,
    where: "body",
    field: "body.secret",
    passes: [endpoint({ enabled: false })],
    fails: [endpoint({ secret: "whsec_mine" })],
  },
  {
    bound: "sendings status: pending, succeeded or failed",
    validate: ops.WebhookEndpoints_listSendings.query,
    where: "query",
    field: "query.status",
    passes: [{ status: "pending" }, { status: "succeeded" }, { status: "failed" }],
    fails: [{ status: "retrying" }],
  },
  {
    bound: "affiliate code: 4..16 characters",
    validate: ops.AffiliateAccounts_create.body,
    where: "body",
    field: "body.code",
    passes: [affiliate({ code: "JOAO" }), affiliate({ code: text(16, "J") })],
    fails: [affiliate({ code: "JOA" }), affiliate({ code: text(17, "J") })],
  },
  {
    bound: "affiliate name: 1..80 characters",
    validate: ops.AffiliateAccounts_create.body,
    where: "body",
    field: "body.name",
    passes: [affiliate({ name: text(1) }), affiliate({ name: text(80) })],
    fails: [affiliate({ name: "" }), affiliate({ name: text(81) })],
  },
  {
    bound: "affiliate status: active or paused",
    validate: ops.AffiliateAccounts_create.body,
    where: "body",
    field: "body.status",
    passes: [affiliate({ status: "active" }), affiliate({ status: "paused" })],
    fails: [affiliate({ status: "closed" })],
  },
  {
    bound: "affiliate update: name 1..80 characters; the code never changes",
    validate: ops.AffiliateAccounts_update.body,
    where: "body",
    field: "body.name",
    passes: [{}, { name: text(80) }, { status: "paused" }],
    fails: [{ name: "" }, { name: text(81) }],
  },
  {
    bound: "affiliate update: closed",
    validate: ops.AffiliateAccounts_update.body,
    where: "body",
    field: "body.code",
    passes: [{ name: "João" }],
    fails: [{ code: "OUTRO" }],
  },
  {
    bound: "affiliates list status: active or paused",
    validate: ops.AffiliateAccounts_list.query,
    where: "query",
    field: "query.status",
    passes: [{ status: "paused" }],
    fails: [{ status: "deleted" }],
  },
  {
    bound: "event log participant: 1..128 characters",
    validate: ops.EventLog_list.query,
    where: "query",
    field: "query.participant",
    passes: [{ participant: text(1) }, { participant: text(128) }],
    fails: [{ participant: "" }, { participant: text(129) }],
  },
  {
    bound: "event log type: an event name",
    validate: ops.EventLog_list.query,
    where: "query",
    field: "query.type",
    passes: [{ type: "deposit.confirmed" }],
    fails: [{ type: "Deposit.confirmed" }, { type: "deposit" }],
  },
  {
    bound: "warnings kind: one of the three kinds",
    validate: ops.Warnings_list.query,
    where: "query",
    field: "query.kind",
    passes: [{ kind: "delivery_unconfirmed" }, { kind: "delivery_failed" }, { kind: "webhook_failed" }],
    fails: [{ kind: "delivery_late" }],
  },
];

describe.each(cases)("$bound", ({ validate, where, field, passes, fails }) => {
  it.each(passes)("passes %j", (value) => {
    const result = check(validate, value, where);
    expect(result.ok, result.message).toBe(true);
  });

  it.each(fails)("fails %j, naming the field", (value) => {
    const result = check(validate, value, where);
    expect(result.ok).toBe(false);
    expect(result.message.startsWith(`${field} `), result.message).toBe(true);
  });
});

describe("defaults filled by the validators", () => {
  it("list limit defaults to 20", () => {
    expect(check(ops.Me_listNotifications.query, {}, "query").value).toEqual({ limit: 20 });
    expect(check(ops.WebhookEndpoints_list.query, {}, "query").value).toEqual({ limit: 20 });
  });

  it("a webhook endpoint gets the default subscription (no events) and is enabled", () => {
    expect(check(ops.WebhookEndpoints_create.body, endpoint(), "body").value).toEqual({
      ...endpoint(),
      events: [],
      enabled: true,
    });
  });

  it("an affiliate starts active", () => {
    expect(check(ops.AffiliateAccounts_create.body, affiliate(), "body").value).toEqual({ ...affiliate(), status: "active" });
  });

  it("query strings are coerced to their types", () => {
    expect(check(ops.Me_listNotifications.query, { unread: "true", limit: "50" }, "query").value).toEqual({ unread: true, limit: 50 });
    expect(check(ops.ConfigVersions_list.query, { starting_after: "7" }, "query").value).toEqual({ limit: 20, starting_after: 7 });
  });
});
