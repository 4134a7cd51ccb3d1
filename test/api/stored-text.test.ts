import { afterAll, beforeAll, expect, it } from "vitest";
import { allEntities } from "../../server/src/db/entities/index.js";
import { expectError, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

/**
 * Every text the service stores or echoes follows the contract's text rule
 * (spec/common.tsp `SafeString`, applied to every string and map key by the
 * validator generator): NUL and lone surrogates are refused with 422 naming the
 * field, and nothing is written. The cases are the fields that once reached the
 * database and answered 500.
 */
describeEachDatabase("stored text refuses NUL and lone surrogates", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await openTestClub(kind, { api: true });
  });
  afterAll(() => api?.close());

  const counts = async () => {
    const em = api.db.em().fork();
    const entries = await Promise.all(
      allEntities.map(async (entity) => [String((entity as any).meta?.className ?? (entity as any).name), await em.count(entity as any, {})] as const),
    );
    return Object.fromEntries(entries);
  };

  interface Case {
    method?: string;
    path: string;
    participant?: string;
    /** The request body with `bad` in the field under test. */
    body: (bad: string) => unknown;
    field: string;
  }
  const cases: Case[] = [
    { path: "/v1/participants", body: (bad) => ({ external_id: "text-ana", display_name: `Ana${bad}` }), field: "body.display_name" },
    { path: "/v1/participants", body: (bad) => ({ external_id: "text-ana", phone: `+55${bad}` }), field: "body.phone" },
    { path: "/v1/participants", body: (bad) => ({ external_id: "text-ana", tags: ["vip", `t${bad}`] }), field: "body.tags[1]" },
    { path: "/v1/events", body: (bad) => ({ participant: "text-ana", type: "deposit.confirmed", amount: 10, meta: { [`k${bad}`]: 1 } }), field: "body.meta" },
    {
      path: "/v1/events",
      body: (bad) => ({ participant: "text-ana", type: "deposit.confirmed", amount: 10, meta: { a: { [`k${bad}`]: 1 } } }),
      field: "body.meta",
    },
    { path: "/v1/deliveries/dlv_text/confirm", body: (bad) => ({ external_ref: `ref${bad}` }), field: "body.external_ref" },
    { path: "/v1/deliveries/dlv_text/confirm", body: (bad) => ({ details: { game: `g${bad}` } }), field: "body.details.game" },
    { path: "/v1/deliveries/dlv_text/confirm", body: (bad) => ({ details: { game_code: `g${bad}` } }), field: "body.details.game_code" },
    { path: "/v1/deliveries/dlv_text/confirm", body: (bad) => ({ details: { play_url: `https://example.com/${bad}` } }), field: "body.details.play_url" },
    { path: "/v1/deliveries/dlv_text/fail", body: (bad) => ({ reason: `no${bad}` }), field: "body.reason" },
    { path: "/v1/codes", body: (bad) => ({ code: "TEXTCODE1", reward: "free_spins_10", audience_tag: `vip${bad}` }), field: "body.audience_tag" },
    { path: "/v1/webhook_endpoints", body: (bad) => ({ url: "https://example.com/hook", description: `d${bad}` }), field: "body.description" },
    { path: "/v1/me/codes/redeem", participant: "text-ana", body: (bad) => ({ code: `CODE${bad}` }), field: "body.code" },
    { path: "/v1/referrals", body: (bad) => ({ referred_external_id: "text-bia", code: `ANA${bad}1` }), field: "body.code" },
    { path: "/v1/affiliates/attributions", body: (bad) => ({ participant_external_id: "text-bia", code: `AFF${bad}1` }), field: "body.code" },
    { path: "/v1/affiliates", body: (bad) => ({ code: `AFF${bad}1`, name: "Parceiro" }), field: "body.code" },
    { path: "/v1/affiliates", body: (bad) => ({ code: "AFFTEXT1", name: `Parceiro${bad}` }), field: "body.name" },
  ];
  const badValues: [string, string][] = [
    ["NUL", "\u0000"],
    ["a lone high surrogate", "\uD800"],
    ["a lone low surrogate", "x\uDC00"],
  ];

  it("answers 422 naming the field for each stored text with NUL or a lone surrogate, and writes nothing", async () => {
    const before = await counts();
    for (const c of cases) {
      for (const [, bad] of badValues) {
        const response = await api.request(c.method ?? "POST", c.path, { body: c.body(bad), participant: c.participant });
        expectError(response, 422, "validation_failed", c.field);
        expect(response.body.error.message).toContain("must match pattern");
      }
    }
    expect(await counts()).toEqual(before);
  });

  it("refuses them in path and query parameters too", async () => {
    expectError(await api.request("GET", "/v1/participants/ana%00"), 422, "validation_failed", "path.");
    // A lone surrogate has no UTF-8 form: its bytes fail to decode and stay percent-encoded text.
    expect((await api.request("GET", "/v1/participants/ana%ED%A0%80x")).status).toBe(404);
    expectError(await api.request("GET", "/v1/games?provider=a%00"), 422, "validation_failed", "query.");
  });

  it("accepts the same fields with emoji, RTL and combining characters", async () => {
    const response = await api.request("POST", "/v1/participants", {
      body: { external_id: "text-ana", display_name: "Ana 🎰 \u202Eabc e\u0301", phone: "+55 11", tags: ["vip"] },
    });
    expect(response.status).toBeLessThan(300);
  });
});
