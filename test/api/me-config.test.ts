import { afterAll, beforeAll, expect, it } from "vitest";
import { describeEachDatabase } from "../support/databases.js";
import { demoConfig, expectError, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";

/**
 * GET /v1/me/config: the participant's view of the published configuration.
 * It must carry what the widget draws, never server-only data, and be
 * cacheable (ETag / If-None-Match → 304).
 */
describeEachDatabase("GET /v1/me/config", (kind) => {
  let api: TestApi;
  let token: string;

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true });
    const created = await api.request("POST", "/v1/participants", { body: { external_id: "cfg_ana", display_name: "Ana" } });
    expect(created.status).toBeLessThan(300);
    const issued = await api.request("POST", "/v1/participants/cfg_ana/token", { body: {} });
    expect(issued.status).toBe(200);
    token = issued.body.token;
  });
  afterAll(() => api?.close());

  it("answers what the widget draws, with cache headers and CORS for an allowed origin", async () => {
    const response = await api.request("GET", "/v1/me/config", { token, headers: { Origin: "http://localhost:5173" } });
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("private, max-age=60");
    expect(response.headers.get("etag")).toMatch(/^"[\w-]+"$/);
    expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    const view = response.body;
    expect(view.club_name).toBe("Clube Sorte Grande");
    expect(view.theme).toMatchObject({ name: "Noite Dourada", colors: { primary: "#7C3AED", success: "#22C55E" }, cardStyle: "gradient", radius: 14 });
    expect(view.currencies).toEqual([
      { code: "coins", name: "Moedas", icon: "coin", decimals: 0 },
      { code: "gems", name: "Gemas", icon: "gem", decimals: 0 },
    ]);
    expect(view.home.map((block: { block: string }) => block.block)).toEqual(["hero", "profile", "next-action", "modules", "recent-rewards"]);
    expect(view.moduleCards.map((card: { module: string }) => card.module)).toEqual(["checkin", "wheel", "missions", "store"]);
    expect(view.faq).toHaveLength(2);
    expect(view.levels).toHaveLength(60);
    expect(view.levels[0]).toMatchObject({ number: 1, name: expect.any(String) });
    expect(view.tiers.map((tier: { code: string }) => tier.code)).toEqual(["bronze", "prata", "ouro", "diamante"]);
    // gerente-vip is under compliance review: never promised to participants.
    expect(view.tiers[3].benefits.map((benefit: { code: string }) => benefit.code)).toEqual(["cashback-15", "saque-rapido"]);
    expect(view.checkin.calendar).toHaveLength(7);
    expect(view.checkin.calendar[0]).toMatchObject({ day: 1, label: "50 moedas" });
    expect(view.wheel.slices[0]).toEqual({ id: "coins-50", label: "50 moedas", sublabel: null, image: null });
    expect(view.store).toContainEqual(expect.objectContaining({ code: "store-bonus-10", cost: { currency: "coins", amount: 1000 } }));
    expect(view.missions.map((mission: { id: string }) => mission.id)).toContain("apostar-500");
    expect(view.legalNote).toBe("Jogue com responsabilidade. Proibido para menores de 18 anos.");
  });

  it("never leaks server-only parts of the configuration", async () => {
    const response = await api.request("GET", "/v1/me/config", { token });
    const text = JSON.stringify(response.body);
    for (const secret of [
      '"weight"',
      '"rules"',
      "allowedOrigins",
      "allowed_origins",
      '"payload"',
      "webhook",
      "Gerente de conta VIP",
      '"conditions"',
      '"trigger"',
    ]) {
      expect(text, secret).not.toContain(secret);
    }
  });

  it("answers 304 to If-None-Match with the current ETag, and a new ETag once a new configuration is published", async () => {
    const first = await api.request("GET", "/v1/me/config", { token });
    const etag = first.headers.get("etag")!;
    const again = await api.request("GET", "/v1/me/config", { token, headers: { "If-None-Match": etag } });
    expect(again.status).toBe(304);
    expect(again.body).toBeUndefined();
    expect(again.headers.get("etag")).toBe(etag);
    expect((await api.request("GET", "/v1/me/config", { token, headers: { "If-None-Match": '"other"' } })).status).toBe(200);

    const config = await demoConfig();
    config.legalNote = "Só para maiores de 18 anos.";
    expect((await api.request("PUT", "/v1/config/draft", { body: config })).status).toBeLessThan(300);
    expect((await api.request("POST", "/v1/config/publish", { body: {} })).status).toBe(200);
    const changed = await api.request("GET", "/v1/me/config", { token, headers: { "If-None-Match": etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect(changed.body.legalNote).toBe("Só para maiores de 18 anos.");
  });

  it("checks the embedding page's origin against allowedOrigins without revealing the list", async () => {
    const allowed = await api.request("GET", "/v1/me/config?embedder=http%3A%2F%2Flocalhost%3A5173", { token });
    expect(allowed.status).toBe(200);
    const refused = await api.request("GET", "/v1/me/config?embedder=https%3A%2F%2Fevil.example", { token });
    expectError(refused, 403, "origin_not_allowed", "https://evil.example");
    expect(refused.body.error.message).not.toContain("localhost");
    // The server's own pages (its demo page) may always embed it.
    expect((await api.request("GET", `/v1/me/config?embedder=${encodeURIComponent(api.url)}`, { token })).status).toBe(200);
  });

  it("refuses a call without credentials", async () => {
    expect((await api.request("GET", "/v1/me/config", { key: null })).status).toBe(401);
  });
});
