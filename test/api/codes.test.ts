import { afterAll, beforeAll, expect, it } from "vitest";
import { OutboxMessage } from "../../server/src/db/entities/index.js";
import { describeEachDatabase } from "../support/databases.js";
import { demoConfig, expectError, manualClock, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { subscribeToEverything } from "../support/endpoints.js";

/*
 * Promotional codes over HTTP: the server creates, lists, reads and disables
 * them; participants redeem them (or the server does for them); the reward is
 * granted through the engine; `code.redeemed` is queued; a single-use code
 * redeemed concurrently succeeds once; the `codes` card shows while a code is active.
 */
describeEachDatabase("promotion codes", (kind) => {
  const clock = manualClock(new Date("2026-11-23T12:00:00Z"));
  let api: TestApi;

  const coins = async (participant: string) => {
    const me = await api.request("GET", "/v1/me", { participant });
    expect(me.status).toBe(200);
    return me.body.currencies.find((currency: { code: string }) => currency.code === "coins").balance as number;
  };
  const create = (body: Record<string, unknown>) => api.request("POST", "/v1/codes", { body });
  const redeem = (participant: string, code: string) => api.request("POST", "/v1/me/codes/redeem", { participant, body: { code } });

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
    // The tests read the webhooks from the outbox: something has to take them.
    await subscribeToEverything(api.db, { clubId: api.clubId, env: "test" });
    const config = await demoConfig();
    config.moduleCards.push({ module: "codes", title: "Códigos", subtitle: "Resgate seu código", group: "resgate" });
    expect((await api.request("PUT", "/v1/config/draft", { body: config })).status).toBe(200);
    expect((await api.request("POST", "/v1/config/publish", { body: {} })).status).toBe(200);
    for (let i = 0; i < 20; i++) {
      expect((await api.request("POST", "/v1/participants", { body: { external_id: `p${i}` } })).status).toBeLessThan(300);
    }
    expect((await api.request("POST", "/v1/participants", { body: { external_id: "vip", tags: ["vip"] } })).status).toBeLessThan(300);
  });
  afterAll(() => api?.close());

  it("shows the codes card only while an active code exists", async () => {
    const cards = async () =>
      (await api.request("GET", "/v1/me/config", { participant: "p0" })).body.moduleCards.map((card: { module: string }) => card.module);
    expect(await cards()).not.toContain("codes");
    expect((await create({ code: "cardcheck", reward: "xp:1" })).status).toBe(201);
    expect(await cards()).toContain("codes");
    expect((await api.request("POST", "/v1/codes/CARDCHECK/disable")).body.status).toBe("disabled");
    expect(await cards()).not.toContain("codes");
  });

  it("manages codes and validates them", async () => {
    const created = await create({ code: "Boas-Vindas", reward: "coins:50", max_redemptions: 100, per_participant_limit: 2 });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      code: "BOAS-VINDAS",
      reward: "coins:50",
      max_redemptions: 100,
      per_participant_limit: 2,
      status: "active",
      redemptions: 0,
      audience_tag: null,
    });
    expectError(await create({ code: "boas-vindas", reward: "xp:5" }), 409, "code_taken");
    expectError(await create({ code: "NOPE1", reward: "no-such-reward" }), 422, "validation_failed", "body.reward");
    expectError(await create({ code: "NOPE2", reward: "rubies:5" }), 422, "validation_failed", "body.reward");
    expectError(
      await create({ code: "NOPE3", reward: "xp:5", starts_at: "2026-11-24T00:00:00Z", ends_at: "2026-11-23T00:00:00Z" }),
      422,
      "validation_failed",
      "body.ends_at",
    );
    expectError(await create({ code: "x", reward: "xp:5" }), 422, "validation_failed", "body.code");
    expect((await api.request("GET", "/v1/codes/boas-vindas")).body.id).toBe(created.body.id);
    expectError(await api.request("GET", "/v1/codes/MISSING"), 404, "not_found");
    const page = await api.request("GET", "/v1/codes?limit=1");
    expect(page.body.data).toHaveLength(1);
    expect(page.body.has_more).toBe(true);
    const next = await api.request("GET", `/v1/codes?limit=100&starting_after=${page.body.data[0].id}`);
    expect(next.body.data.map((code: { id: string }) => code.id)).not.toContain(page.body.data[0].id);
  });

  it("grants the reward through the engine, per-participant limit, and queues code.redeemed", async () => {
    expect((await create({ code: "MOEDAS", reward: "coins:50", per_participant_limit: 2 })).status).toBe(201);
    const before = await coins("p1");
    const first = await redeem("p1", "moedas");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ code: "MOEDAS", reward: "coins:50" });
    expect(first.body.effects).toEqual(expect.arrayContaining([expect.objectContaining({ type: "currency_granted" })]));
    expect(await coins("p1")).toBe(before + 50);
    // The server redeems for the participant the same way.
    expect((await api.request("POST", "/v1/participants/p1/codes/redeem", { body: { code: "MOEDAS" } })).status).toBe(200);
    expect(await coins("p1")).toBe(before + 100);
    expectError(await redeem("p1", "MOEDAS"), 409, "code_limit_reached");
    expect(await coins("p1")).toBe(before + 100);
    expect((await api.request("GET", "/v1/codes/MOEDAS")).body.redemptions).toBe(2);

    const outbox = await api.db.em().find(OutboxMessage, { clubId: api.clubId });
    const notices = outbox
      .map((row) => row.payload as any)
      .filter((payload) => JSON.stringify(payload).includes("code.redeemed") && JSON.stringify(payload).includes("MOEDAS"));
    expect(notices).toHaveLength(2);
    expect(JSON.stringify(notices[0])).toContain('"external_id":"p1"');

    expect((await create({ code: "BONUS", reward: "bonus-20" })).status).toBe(201);
    const bonus = await redeem("p2", "BONUS");
    expect(bonus.status).toBe(200);
    const rewards = await api.request("GET", "/v1/me/rewards", { participant: "p2" });
    expect(JSON.stringify(rewards.body)).toContain("bonus-20");
    expectError(await redeem("p2", "UNKNOWN"), 404, "not_found");
  });

  it("refuses codes outside their window, disabled, or for another audience", async () => {
    expect((await create({ code: "LATER", reward: "xp:5", starts_at: "2026-11-24T00:00:00Z", ends_at: "2026-11-25T00:00:00Z" })).status).toBe(201);
    expectError(await redeem("p3", "LATER"), 409, "code_not_redeemable");
    clock.set(new Date("2026-11-24T06:00:00Z"));
    expect((await redeem("p3", "LATER")).status).toBe(200);
    clock.set(new Date("2026-11-25T00:00:00Z"));
    expectError(await redeem("p4", "LATER"), 409, "code_not_redeemable");
    clock.set(new Date("2026-11-23T12:00:00Z"));

    expect((await create({ code: "SOVIP", reward: "xp:5", audience_tag: "vip" })).status).toBe(201);
    expectError(await redeem("p3", "SOVIP"), 409, "code_not_redeemable");
    expect((await redeem("vip", "SOVIP")).status).toBe(200);

    expect((await create({ code: "OFF", reward: "xp:5" })).status).toBe(201);
    expect((await api.request("POST", "/v1/codes/OFF/disable")).body).toMatchObject({ status: "disabled" });
    expectError(await redeem("p3", "OFF"), 409, "code_not_redeemable");
  });

  it("a single-use code redeemed by 20 concurrent requests succeeds exactly once", async () => {
    expect((await create({ code: "UNICO", reward: "coins:100", max_redemptions: 1 })).status).toBe(201);
    const balances = await Promise.all(Array.from({ length: 20 }, (_, i) => coins(`p${i}`)));
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => redeem(`p${i}`, "UNICO")));
    const won = answers.filter((answer) => answer.status === 200);
    expect(won).toHaveLength(1);
    for (const answer of answers) if (answer.status !== 200) expectError(answer, 409, "code_exhausted");
    const after = await Promise.all(Array.from({ length: 20 }, (_, i) => coins(`p${i}`)));
    expect(after.reduce((sum, value) => sum + value, 0) - balances.reduce((sum, value) => sum + value, 0)).toBe(100);
    expect((await api.request("GET", "/v1/codes/UNICO")).body.redemptions).toBe(1);
  });
});
