import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { demoConfig, expectError, manualClock, type RequestOptions, type TestApi, type TestClub } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";
import { ConfigVersion } from "../../server/src/db/entities/index.js";

const T0 = new Date("2026-03-14T18:00:00.000Z");

/** The program of a club that never changed its cashback settings. */
const DEFAULT_CASHBACK = {
  enabled: false,
  mode: "claim",
  hour: 10,
  claim_days: 7,
  min_loss: 0,
  min_pct: 5,
  max_pct: 20,
  tiers: [],
  welcome: { enabled: false, pct: 0, max: 0 },
  text: {},
  currency: "BRL",
};

/** A `PUT /v1/cashback` body (money in integer cents, `_minor`) as `GET /v1/cashback` serves it: the seed's names, main units. */
function served(body: Record<string, any>): Record<string, any> {
  const { min_loss_minor, tiers, welcome, ...rest } = body;
  const out: Record<string, any> = { ...rest };
  if (min_loss_minor !== undefined) out.min_loss = min_loss_minor / 100;
  if (tiers !== undefined) out.tiers = tiers.map(({ min_loss_minor: loss, ...band }: Record<string, any>) => ({ ...band, min_loss: loss / 100 }));
  if (welcome !== undefined) {
    const { max_minor, ...other } = welcome;
    out.welcome = max_minor === undefined ? other : { ...other, max: max_minor / 100 };
  }
  return out;
}

describeEachDatabase("API configuration", (kind) => {
  const clock = manualClock(T0);
  let api: TestApi;
  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
  });
  afterAll(() => api?.close());
  beforeEach(() => clock.set(T0));

  /** Requests with the test key of `club` (a club of its own keeps each flow independent). */
  const as =
    (club: TestClub) =>
    (method: string, path: string, options: RequestOptions = {}) =>
      api.request(method, path, { key: club.keys.test, ...options });
  /** The demo configuration renamed, as a client would save it. */
  const configNamed = async (name: string) => ({ ...(await demoConfig()), name });
  const statuses = async (call: ReturnType<typeof as>) =>
    (await call("GET", "/v1/config/versions")).body.data.map((v: { version: number; status: string }) => [v.version, v.status]);

  describe("GET /v1/config", () => {
    it("answers the published configuration with every default filled, cacheable for 60 seconds", async () => {
      const response = await api.request("GET", "/v1/config");
      expect(response.status).toBe(200);
      expect(response.headers.get("Cache-Control")).toBe("private, max-age=60");
      expect(response.body).toEqual({ club_id: api.clubId, env: "test", config: expect.any(Object) });
      const { config } = response.body;
      expect(config).toMatchObject(await demoConfig());
      // defaults of fields the demo configuration leaves out
      expect(config.theme.colors).toMatchObject({ success: "#22C55E", warning: "#F59E0B", danger: "#EF4444" });
      expect(config.theme.buttonStyle).toBe("flat");
      expect(config.currencies.map((c: { decimals: number; expiresInDays: number | null }) => [c.decimals, c.expiresInDays])).toEqual([
        [0, null],
        [0, 90],
      ]);
      expect(config.rules.length).toBeGreaterThan(0);
      expect(config.rules.every((rule: { enabled: boolean }) => rule.enabled === true)).toBe(true);
      expect(config.checkin).toMatchObject({ timezone: "America/Sao_Paulo", resetHour: 0, requireEvent: null });
    });

    it("answers the live environment's configuration to the live key", async () => {
      const response = await api.request("GET", "/v1/config", { key: api.keys.live });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ club_id: api.clubId, env: "live", config: { name: "Clube Sorte Grande" } });
    });
  });

  describe("drafts and publishing", () => {
    it("saves a draft, filled with defaults, without changing the published configuration", async () => {
      const call = as(await api.createOtherClub());
      expectError(await call("GET", "/v1/config/draft"), 404, "not_found");

      const saved = await call("PUT", "/v1/config/draft", { body: await configNamed("Clube Verão") });
      expect(saved.status).toBe(200);
      expect(saved.body).toEqual({ version: 2, config: expect.objectContaining({ name: "Clube Verão" }), updated_at: T0.toISOString() });
      expect(saved.body.config.theme.colors.success).toBe("#22C55E");

      const draft = await call("GET", "/v1/config/draft");
      expect(draft.status).toBe(200);
      expect(draft.body).toEqual(saved.body);
      expect((await call("GET", "/v1/config")).body.config.name).toBe("Clube Sorte Grande");
    });

    it("keeps every saved draft as its own version", async () => {
      const call = as(await api.createOtherClub());
      expect((await call("PUT", "/v1/config/draft", { body: await configNamed("Rascunho A") })).body.version).toBe(2);
      expect((await call("PUT", "/v1/config/draft", { body: await configNamed("Rascunho B") })).body.version).toBe(3);
      expect(await statuses(call)).toEqual([
        [3, "draft"],
        [2, "draft"],
        [1, "published"],
      ]);
      expect((await call("GET", "/v1/config/draft")).body).toMatchObject({ version: 3, config: { name: "Rascunho B" } });
    });

    it("publishes the latest draft: it is in force at once and the older versions are superseded", async () => {
      const call = as(await api.createOtherClub());
      await call("PUT", "/v1/config/draft", { body: await configNamed("Rascunho A") });
      await call("PUT", "/v1/config/draft", { body: await configNamed("Clube Inverno") });
      clock.set(new Date("2026-03-15T09:30:00.000Z"));
      const published = await call("POST", "/v1/config/publish");
      expect(published.status).toBe(200);
      expect(published.body).toEqual({ version: 3, published_at: "2026-03-15T09:30:00.000Z", config: expect.objectContaining({ name: "Clube Inverno" }) });

      expect((await call("GET", "/v1/config")).body.config).toEqual(published.body.config);
      expect(await statuses(call)).toEqual([
        [3, "published"],
        [2, "superseded"],
        [1, "superseded"],
      ]);
      const versions = (await call("GET", "/v1/config/versions")).body.data;
      expect(versions[0]).toEqual({ version: 3, status: "published", created_at: T0.toISOString(), published_at: "2026-03-15T09:30:00.000Z" });
      expect(versions[1].published_at).toBeNull();
      expectError(await call("GET", "/v1/config/draft"), 404, "not_found");
      expectError(await call("POST", "/v1/config/publish"), 404, "not_found");
    });

    it("publishes the draft version named, leaving a newer draft in place", async () => {
      const call = as(await api.createOtherClub());
      await call("PUT", "/v1/config/draft", { body: await configNamed("Revisado") });
      await call("PUT", "/v1/config/draft", { body: await configNamed("Ainda em edição") });
      const published = await call("POST", "/v1/config/publish", { body: { version: 2 } });
      expect(published.status).toBe(200);
      expect(published.body).toMatchObject({ version: 2, config: { name: "Revisado" } });
      expect((await call("GET", "/v1/config")).body.config.name).toBe("Revisado");
      expect(await statuses(call)).toEqual([
        [3, "draft"],
        [2, "published"],
        [1, "superseded"],
      ]);
    });

    it("refuses to publish a version that is not a draft (409 version_not_draft) or does not exist (404)", async () => {
      const call = as(await api.createOtherClub());
      expectError(await call("POST", "/v1/config/publish", { body: { version: 1 } }), 409, "version_not_draft");
      await call("PUT", "/v1/config/draft", { body: await configNamed("Nova") });
      expect((await call("POST", "/v1/config/publish")).status).toBe(200);
      expectError(await call("POST", "/v1/config/publish", { body: { version: 1 } }), 409, "version_not_draft");
      expectError(await call("POST", "/v1/config/publish", { body: { version: 99 } }), 404, "not_found");
      expectError(await call("POST", "/v1/config/publish", { body: { version: 0 } }), 422, "validation_failed", "body.version");
      expect((await call("GET", "/v1/config")).body.config.name).toBe("Nova");
    });

    it.each([
      {
        problem: "schema: a colour that is not #RRGGBB",
        change: (c: Record<string, any>) => (c.theme.colors.primary = "roxo"),
        field: "body.theme.colors.primary",
      },
      { problem: "schema: a required field left out", change: (c: Record<string, any>) => delete c.currencies, field: "body.currencies" },
      { problem: "schema: an unknown field", change: (c: Record<string, any>) => (c.themeColour = "#7C3AED"), field: "body.themeColour" },
      {
        problem: "cross-field: overlapping tier levels",
        change: (c: Record<string, any>) => (c.progression.tiers[1].levels = [9, 24]),
        field: "body.progression.tiers[1].levels overlaps body.progression.tiers[0].levels",
      },
      {
        problem: "cross-field: a mission's unknown reward",
        change: (c: Record<string, any>) => (c.missions[0].reward = "giros-500"),
        field: "body.missions[0].reward",
      },
    ])("refuses a draft with $problem: 422 naming the field, nothing saved", async ({ change, field }) => {
      const call = as(await api.createOtherClub());
      const config = await demoConfig();
      change(config);
      expectError(await call("PUT", "/v1/config/draft", { body: config }), 422, "validation_failed", field);
      expect(await statuses(call)).toEqual([[1, "published"]]);
      expectError(await call("GET", "/v1/config/draft"), 404, "not_found");
    });

    it("refuses a rule expression that does not compile: 422 naming the rule, the field and the expression's error", async () => {
      const call = as(await api.createOtherClub());
      const config = await demoConfig();
      config.rules[0].effects[1].amount = "event.amount * * 5";
      const response = await call("PUT", "/v1/config/draft", { body: config });
      expectError(response, 422, "validation_failed", "body.rules[0].effects[1].amount");
      expect(response.body.error.message).toContain(`rule '${config.rules[0].id}'`);
      expect(response.body.error.message).toContain("event.amount * * 5");
      config.rules[0].effects[1].amount = "event.amount * bonus";
      expectError(await call("PUT", "/v1/config/draft", { body: config }), 422, "validation_failed", "body.rules[0].effects[1].amount");
      config.rules[0].effects[1].amount = "event.amount * 5";
      expect((await call("PUT", "/v1/config/draft", { body: config })).status).toBe(200);
    });

    it("checks a draft again at publish: a stored draft whose expression does not compile is refused and nothing changes", async () => {
      const club = await api.createOtherClub();
      const call = as(club);
      await call("PUT", "/v1/config/draft", { body: await configNamed("Antiga") });
      // A draft saved before expressions were checked, written as it was stored then.
      const stored: Record<string, any> = { ...(await demoConfig()), name: "Antiga" };
      stored.rules[0].effects[1].amount = "event.amount * * 5";
      await api.db.em().nativeUpdate(ConfigVersion, { clubId: club.clubId, env: "test", version: 2 }, { config: stored });
      const response = await call("POST", "/v1/config/publish");
      expectError(response, 422, "validation_failed", "config.rules[0].effects[1].amount");
      expect(response.body.error.message).toContain(`rule '${stored.rules[0].id}'`);
      expect(await statuses(call)).toEqual([
        [2, "draft"],
        [1, "published"],
      ]);
    });

    it("keeps test and live apart", async () => {
      const club = await api.createOtherClub();
      const test = as(club);
      const live = (method: string, path: string, options: RequestOptions = {}) => api.request(method, path, { key: club.keys.live, ...options });
      await test("PUT", "/v1/config/draft", { body: await configNamed("Só no teste") });
      expectError(await live("GET", "/v1/config/draft"), 404, "not_found");
      expect((await test("POST", "/v1/config/publish")).status).toBe(200);
      expect((await test("GET", "/v1/config")).body.config.name).toBe("Só no teste");
      expect((await live("GET", "/v1/config")).body.config.name).toBe("Clube Sorte Grande");
      expect(await statuses(live)).toEqual([[1, "published"]]);
    });

    it("pages the history newest first with limit and starting_after", async () => {
      const call = as(await api.createOtherClub());
      for (const name of ["v2", "v3", "v4"]) {
        await call("PUT", "/v1/config/draft", { body: await configNamed(name) });
        await call("POST", "/v1/config/publish");
      }
      const first = await call("GET", "/v1/config/versions?limit=2");
      expect(first.status).toBe(200);
      expect(first.body.data.map((v: { version: number }) => v.version)).toEqual([4, 3]);
      expect(first.body.has_more).toBe(true);
      const second = await call("GET", "/v1/config/versions?limit=2&starting_after=3");
      expect(second.body.data.map((v: { version: number }) => v.version)).toEqual([2, 1]);
      expect(second.body.has_more).toBe(false);
    });

    it.each([
      ["limit=1", 200],
      ["limit=100", 200],
      ["limit=0", 422],
      ["limit=101", 422],
      ["starting_after=0", 422],
    ])("versions?%s → %i", async (query, status) => {
      const response = await api.request("GET", `/v1/config/versions?${query}`);
      if (status === 200) expect(response.status).toBe(200);
      else expectError(response, 422, "validation_failed", `query.${query.split("=")[0]}`);
    });
  });

  describe("cashback program", () => {
    it("answers the defaults of a club that never set it, cacheable for 60 seconds", async () => {
      const response = await api.request("GET", "/v1/cashback");
      expect(response.status).toBe(200);
      expect(response.headers.get("Cache-Control")).toBe("private, max-age=60");
      expect(response.body).toEqual(DEFAULT_CASHBACK);
    });

    it("applies an update at once: sent fields replace, welcome fields merge", async () => {
      const call = as(await api.createOtherClub());
      const bands = [
        { name: "Bronze", min_loss_minor: 5000, pct: 5 },
        { name: "Prata", min_loss_minor: 50000, pct: 10 },
      ];
      const updated = await call("PUT", "/v1/cashback", {
        body: { enabled: true, tiers: bands, welcome: { enabled: true, pct: 20, max_minor: 10000 }, text: { title: "Cashback diário" } },
      });
      expect(updated.status).toBe(200);
      const expected = {
        ...DEFAULT_CASHBACK,
        enabled: true,
        tiers: served({ tiers: bands }).tiers,
        welcome: { enabled: true, pct: 20, max: 100 },
        text: { title: "Cashback diário" },
      };
      expect(expected.tiers).toEqual([
        { name: "Bronze", min_loss: 50, pct: 5 },
        { name: "Prata", min_loss: 500, pct: 10 },
      ]);
      expect(updated.body).toEqual(expected);
      expect((await call("GET", "/v1/cashback")).body).toEqual(expected);

      const second = await call("PUT", "/v1/cashback", { body: { mode: "auto", welcome: { enabled: false }, tiers: [] } });
      expect(second.body).toEqual({ ...expected, mode: "auto", welcome: { enabled: false, pct: 20, max: 100 }, tiers: [] });
    });

    it("keeps test and live apart", async () => {
      const club = await api.createOtherClub();
      expect((await api.request("PUT", "/v1/cashback", { key: club.keys.test, body: { enabled: true } })).status).toBe(200);
      expect((await api.request("GET", "/v1/cashback", { key: club.keys.live })).body).toEqual(DEFAULT_CASHBACK);
    });

    const band = (min_loss_minor: number) => ({ name: `Faixa ${min_loss_minor}`, min_loss_minor, pct: 5 });
    const bands = (n: number) => Array.from({ length: n }, (_, i) => band((i + 1) * 1000));
    it.each(
      [
        { body: { hour: 0 }, refused: null },
        { body: { hour: 23 }, refused: null },
        { body: { hour: 24 }, refused: "body.hour" },
        { body: { hour: -1 }, refused: "body.hour" },
        { body: { claim_days: 1 }, refused: null },
        { body: { claim_days: 30 }, refused: null },
        { body: { claim_days: 0 }, refused: "body.claim_days" },
        { body: { claim_days: 31 }, refused: "body.claim_days" },
        { body: { min_pct: 0, max_pct: 100 }, refused: null },
        { body: { max_pct: 100.5 }, refused: "body.max_pct" },
        { body: { min_pct: -1 }, refused: "body.min_pct" },
        { body: { min_loss_minor: -1 }, refused: "body.min_loss_minor" },
        { body: { tiers: bands(10) }, refused: null },
        { body: { tiers: bands(11) }, refused: "body.tiers" },
        { body: { welcome: { pct: 101 } }, refused: "body.welcome.pct" },
        { body: { mode: "weekly" }, refused: "body.mode" },
        { body: { min_pct: 30, max_pct: 20 }, refused: "body.min_pct" },
        { body: { tiers: [band(5000), band(5000)] }, refused: "body.tiers[1].min_loss_minor" },
      ].map((row) => ({ ...row, outcome: row.refused ? `422 naming ${row.refused}` : "200" })),
    )("PUT /v1/cashback $body → $outcome", async ({ body, refused }) => {
      const call = as(await api.createOtherClub());
      const response = await call("PUT", "/v1/cashback", { body });
      if (refused === null) {
        expect(response.status).toBe(200);
        expect(response.body).toMatchObject(served(body));
      } else {
        expectError(response, 422, "validation_failed", refused);
        expect((await call("GET", "/v1/cashback")).body).toEqual(DEFAULT_CASHBACK);
      }
    });
  });

  describe("GET /v1/key", () => {
    it.each(["test", "live"] as const)("describes the %s key", async (env) => {
      const response = await api.request("GET", "/v1/key", { key: api.keys[env] });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        club_id: api.clubId,
        club_name: "Cassino Sorte Grande",
        env,
        mode: "secret",
        key_prefix: api.keys[env].slice(0, 12),
        created_at: T0.toISOString(),
      });
    });
  });
});
