import { afterAll, beforeAll, expect, it } from "vitest";
import { OutboxMessage, StaffWarning } from "../../server/src/db/entities/index.js";
import { describeEachDatabase } from "../support/databases.js";
import { demoConfig, expectError, manualClock, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";

/*
 * `manual` and `partner` rewards: granted as pending deliveries that staff
 * find in GET /v1/deliveries (by kind and status) and close with the same
 * confirm/fail routes as the client's system; the participant's inbox gets the
 * club's template, the outcome webhook is sent, and the client's system is
 * never asked to credit them.
 */
describeEachDatabase("staff fulfilment of manual and partner rewards", (kind) => {
  const clock = manualClock(new Date("2026-11-20T12:00:00Z"));
  let api: TestApi;

  const prize = async (participant: string, type: "custom.vip_prize" | "custom.show_ticket") => {
    const sent = await api.request("POST", "/v1/events", { body: { participant, type } });
    expect(sent.status).toBe(200);
    const effect = sent.body.effects.find((candidate: { type: string }) => candidate.type === "reward_granted");
    expect(effect.delivery_id).toMatch(/^dlv_/);
    return effect.delivery_id as string;
  };
  const webhooks = async (deliveryId: string) => {
    const rows = await api.db.em().find(OutboxMessage, { kind: "webhook" }, { orderBy: { createdAt: "asc" } });
    return rows
      .map((row) => row.payload as { type: string; data: Record<string, any> })
      .filter((hook) => hook.data.delivery?.id === deliveryId || hook.data.delivery_id === deliveryId);
  };
  const inbox = async (participant: string) =>
    (await api.request("GET", "/v1/me/notifications", { participant })).body.data as { kind: string; title: string; body: string | null }[];

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
    const config = await demoConfig();
    config.rewards.push(
      { code: "camisa-vip", title: "Camisa oficial VIP", type: "manual" },
      { code: "ingresso-show", title: "Ingresso para o show", type: "partner", payload: { partner: "Ticketeria" } },
    );
    config.rules.push(
      { id: "vip-prize", name: "Prêmio VIP", trigger: { event: "custom.vip_prize" }, effects: [{ type: "grant_reward", reward: "camisa-vip" }] },
      { id: "show-ticket", name: "Ingresso", trigger: { event: "custom.show_ticket" }, effects: [{ type: "grant_reward", reward: "ingresso-show" }] },
    );
    config.messageTemplates = [
      { code: "reward_delivered", texts: { "pt-BR": { title: "Seu prêmio chegou: {{reward_title}}", body: "Aproveite!" } } },
      { code: "reward_delivery_failed", texts: { "pt-BR": { title: "Prêmio não entregue: {{reward_title}}" } } },
    ];
    expect((await api.request("PUT", "/v1/config/draft", { body: config })).status).toBe(200);
    expect((await api.request("POST", "/v1/config/publish", { body: {} })).status).toBe(200);
  });
  afterAll(() => api?.close());

  it("lists the staff queue by kind and status, and the client's system is not asked to credit it", async () => {
    const shirt = await prize("ana", "custom.vip_prize");
    const ticket = await prize("ana", "custom.show_ticket");
    const manual = await api.request("GET", "/v1/deliveries?kind=manual&status=pending");
    expect(manual.body.deliveries.map((delivery: { id: string }) => delivery.id)).toEqual([shirt]);
    expect(manual.body.deliveries[0]).toMatchObject({ kind: "manual", status: "pending", reward_code: "camisa-vip", note: null });
    const partner = await api.request("GET", "/v1/deliveries?kind=partner");
    expect(partner.body.deliveries.map((delivery: { id: string }) => delivery.id)).toEqual([ticket]);
    expect((await api.request("GET", "/v1/deliveries?kind=client_delivered")).body.deliveries.map((delivery: { id: string }) => delivery.id)).not.toContain(
      shirt,
    );
    expectError(await api.request("GET", "/v1/deliveries?kind=internal"), 422, "validation_failed", "query.kind");
    expect((await webhooks(shirt)).map((hook) => hook.type)).toEqual(["reward.granted"]);
    const rewards = (await api.request("GET", "/v1/me/rewards", { participant: "ana" })).body;
    expect(JSON.stringify(rewards)).toContain("camisa-vip");
  });

  it("fulfils with a staff note: delivered, webhook sent, participant told by the template; repeating is harmless, failing it is 409", async () => {
    const shirt = await prize("bia", "custom.vip_prize");
    clock.set(new Date("2026-11-20T13:00:00Z"));
    const fulfilled = await api.request("POST", `/v1/deliveries/${shirt}/confirm`, { body: { note: "Enviada pelos Correios, rastreio BR123" } });
    expect(fulfilled.status).toBe(200);
    expect(fulfilled.body).toMatchObject({
      id: shirt,
      kind: "manual",
      status: "delivered",
      note: "Enviada pelos Correios, rastreio BR123",
      confirmed_at: "2026-11-20T13:00:00.000Z",
    });

    const again = await api.request("POST", `/v1/deliveries/${shirt}/confirm`, { body: { note: "outra nota" } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(fulfilled.body);
    expectError(await api.request("POST", `/v1/deliveries/${shirt}/fail`, { body: { reason: "engano" } }), 409, "already_closed");

    const hooks = await webhooks(shirt);
    expect(hooks.map((hook) => hook.type)).toEqual(["reward.granted", "reward.delivered"]);
    expect(hooks[1].data.delivery).toEqual(fulfilled.body);
    const notices = (await inbox("bia")).filter((notice) => notice.kind === "reward_delivered");
    expect(notices).toEqual([expect.objectContaining({ title: "Seu prêmio chegou: Camisa oficial VIP", body: "Aproveite!" })]);
    expect(JSON.stringify(await inbox("bia"))).not.toContain("Correios");
  });

  it("rejects with the reason: failed, webhook sent, participant told, no staff warning; confirming it is 409", async () => {
    const ticket = await prize("caio", "custom.show_ticket");
    const rejected = await api.request("POST", `/v1/deliveries/${ticket}/fail`, { body: { reason: "Show cancelado pelo parceiro" } });
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ kind: "partner", status: "failed", fail_reason: "Show cancelado pelo parceiro", note: null });
    expectError(await api.request("POST", `/v1/deliveries/${ticket}/confirm`, { body: {} }), 409, "already_closed");
    expectError(await api.request("POST", `/v1/deliveries/${ticket}/fail`, { body: { reason: "de novo" } }), 409, "already_closed");

    expect((await webhooks(ticket)).map((hook) => hook.type)).toEqual(["reward.granted", "reward.delivery_failed"]);
    const notices = (await inbox("caio")).filter((notice) => notice.kind === "reward_delivery_failed");
    expect(notices.map((notice) => notice.title)).toEqual(["Prêmio não entregue: Ingresso para o show"]);
    expect(await api.db.em().count(StaffWarning, { subjectId: ticket })).toBe(0);
  });

  it("refuses a bad note naming the field and changes nothing", async () => {
    const shirt = await prize("davi", "custom.vip_prize");
    expectError(await api.request("POST", `/v1/deliveries/${shirt}/confirm`, { body: { note: "x".repeat(501) } }), 422, "validation_failed", "body.note");
    expectError(await api.request("POST", `/v1/deliveries/${shirt}/confirm`, { body: { note: "" } }), 422, "validation_failed", "body.note");
    expect((await api.request("GET", "/v1/deliveries?kind=manual&status=pending")).body.deliveries.map((delivery: { id: string }) => delivery.id)).toContain(
      shirt,
    );
  });

  it("a fulfil and a reject racing for the same delivery: exactly one wins", async () => {
    const shirt = await prize("eva", "custom.vip_prize");
    const [confirm, fail] = await Promise.all([
      api.request("POST", `/v1/deliveries/${shirt}/confirm`, { body: { note: "entregue" } }),
      api.request("POST", `/v1/deliveries/${shirt}/fail`, { body: { reason: "sem estoque" } }),
    ]);
    expect([confirm.status, fail.status].sort()).toEqual([200, 409]);
    expect((await webhooks(shirt)).filter((hook) => hook.type !== "reward.granted")).toHaveLength(1);
  });
});
