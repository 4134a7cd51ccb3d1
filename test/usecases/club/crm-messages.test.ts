import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { OutboxMessage, WebhookEndpoint } from "../../../server/src/db/entities/index.js";
import { newId } from "../../../server/src/db/ids.js";
import type { Scope } from "../../../server/src/db/scope.js";
import { ingestEvent } from "../../../server/src/usecases/events/ingest.js";
import { listNotifications } from "../../../server/src/usecases/participants/notifications.js";
import { upsertParticipant } from "../../../server/src/usecases/participants/participants.js";
import { WebhookDispatcher } from "../../../server/src/webhooks/dispatch.js";
import { describeEachDatabase } from "../../support/databases.js";
import { Receiver } from "../../webhooks/support/receiver.js";
import { eventInput, PUBLIC_URL, recordedWebhooks } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { demoConfig } from "../../support/club-config.js";

const secret = "whsec_crm_messages_test";
const now = new Date("2026-11-02T12:00:00Z");

/** The demo casino with its CRM in `mode`, two templates and rules that send them. */
function crmConfig(mode: "off" | "webhook"): Record<string, unknown> {
  const config = demoConfig();
  config.crm = { mode };
  config.messageTemplates = [
    {
      code: "boas-vindas",
      texts: {
        "pt-BR": { title: "Olá, {{display_name}}!", body: "Você está no {{level_name}} ({{tier}}). {{unknown}}Aproveite." },
        en: { title: "Hi, {{display_name}}!" },
      },
    },
    // No pt-BR text: the club's locale (pt-BR by default) falls back to en.
    { code: "so-ingles", texts: { en: { title: "Level {{level}} for {{external_id}}" } } },
    // Replaces the built-in level-up text.
    { code: "level_up", texts: { "pt-BR": { title: "{{display_name}} chegou ao {{level_name}}", body: "Parabéns!" } } },
  ];
  config.rules = [
    ...(config.rules as unknown[]),
    { id: "crm-welcome", name: "Boas-vindas CRM", trigger: { event: "crm.welcome" }, effects: [{ type: "notify", template: "boas-vindas" }] },
    { id: "crm-english", name: "Só inglês", trigger: { event: "crm.english" }, effects: [{ type: "notify", template: "so-ingles" }] },
    { id: "crm-xp", name: "XP", trigger: { event: "crm.xp" }, effects: [{ type: "grant_xp", amount: 100000 }] },
    { id: "crm-untemplated", name: "Sem modelo", trigger: { event: "crm.raw" }, effects: [{ type: "notify", template: "sem-modelo" }] },
  ];
  return config;
}

describeEachDatabase("CRM messages", (kind) => {
  let club: DatabaseClub;
  let quiet: DatabaseClub;
  const receiver = new Receiver(secret);

  beforeAll(async () => {
    [club, quiet] = await Promise.all([openTestClub(kind, { config: crmConfig("webhook") }), openTestClub(kind, { config: crmConfig("off") })]);
    await receiver.start();
    await club.db.em().insert(WebhookEndpoint, {
      id: newId("we"),
      ...club.scope,
      url: receiver.url(),
      events: [],
      description: null,
      enabled: true,
      secret,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    });
    for (const { db, scope } of [club, quiet]) {
      await upsertParticipant(db, scope, { external_id: "ana", display_name: "Ana S.", email: "ana@example.com" }, now);
      await upsertParticipant(db, scope, { external_id: "bia", display_name: "Bia", phone: "+5511999990000" }, now);
      await upsertParticipant(db, scope, { external_id: "caio", display_name: "Caio" }, now);
    }
  });
  afterAll(async () => {
    await receiver.stop();
    await club?.close();
    await quiet?.close();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
  });

  // Each event a second after the last, so "latest" is well defined.
  let clock = now.getTime();
  const send = (target: DatabaseClub, participant: string, type: string) =>
    ingestEvent(target.db, target.scope, eventInput({ participant, type, id: `crm-${clock}` }), { now: new Date((clock += 1000)), publicUrl: PUBLIC_URL });
  const latestTitle = async (target: DatabaseClub, participant: string) =>
    (await listNotifications(target.db, target.scope, participant, { limit: 1 })).data[0];
  const requested = async (scope: Scope, target: DatabaseClub) =>
    (await recordedWebhooks(target.db, scope)).filter((webhook) => webhook.type === "message.requested").map((webhook) => webhook.data);

  it("renders the notify template into the inbox and sends a signed message.requested to the client's endpoint", async () => {
    await send(club, "ana", "crm.welcome");
    expect(await latestTitle(club, "ana")).toMatchObject({ kind: "message", title: "Olá, Ana S.!", body: "Você está no Nível 1 (Bronze). Aproveite." });
    const [data] = await requested(club.scope, club);
    expect(data).toEqual({
      participant: { id: expect.stringMatching(/^par_/), external_id: "ana" },
      channel: "email",
      to: "ana@example.com",
      template: "boas-vindas",
      subject: "Olá, Ana S.!",
      body: "Você está no Nível 1 (Bronze). Aproveite.",
      variables: { display_name: "Ana S.", external_id: "ana", level: 1, level_name: "Nível 1", tier: "Bronze" },
    });

    // Through the dispatcher (the worker's consumer of relayed outbox rows) to a real local endpoint.
    const dispatcher = new WebhookDispatcher({ db: club.db, now: () => new Date(), allowPrivateAddresses: true });
    try {
      const [row] = await club.db
        .em()
        .find(OutboxMessage, { ...club.scope, kind: "webhook" }, { orderBy: { createdAt: "asc" } })
        .then((rows) => rows.filter((candidate) => (candidate.payload as { type: string }).type === "message.requested"));
      await dispatcher.handleOutboxMessage({ id: row.id, ...club.scope, payload: row.payload }, { id: row.id, attempt: 1 });
    } finally {
      await dispatcher.stop();
    }
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request.signatureValid).toBe(true);
    expect(request.headers["x-clube-event"]).toBe("message.requested");
    expect(JSON.parse(request.body)).toMatchObject({
      type: "message.requested",
      club_id: club.scope.clubId,
      data: { channel: "email", to: "ana@example.com", subject: "Olá, Ana S.!" },
    });
  });

  it("uses the phone (sms) without an e-mail and sends nothing to a participant without contact", async () => {
    const before = (await requested(club.scope, club)).length;
    await send(club, "bia", "crm.welcome");
    await send(club, "caio", "crm.welcome");
    const after = (await requested(club.scope, club)).slice(before);
    expect(after).toEqual([
      expect.objectContaining({ channel: "sms", to: "+5511999990000", subject: "Olá, Bia!", participant: expect.objectContaining({ external_id: "bia" }) }),
    ]);
    // Caio still gets the inbox notification.
    expect(await latestTitle(club, "caio")).toMatchObject({ title: "Olá, Caio!" });
  });

  it("falls back pt-BR → en, and writes an undefined template's name as the title", async () => {
    await send(club, "ana", "crm.english");
    expect(await latestTitle(club, "ana")).toMatchObject({ title: "Level 1 for ana", body: null });
    await send(club, "ana", "crm.raw");
    expect(await latestTitle(club, "ana")).toMatchObject({ title: "sem-modelo", body: null });
    expect((await requested(club.scope, club)).at(-1)).toMatchObject({ template: "sem-modelo", subject: "sem-modelo", body: "sem-modelo" });
  });

  it("renders built-in inbox messages from the club's template of the same code", async () => {
    await send(club, "bia", "crm.xp");
    const [latest] = (await listNotifications(club.db, club.scope, "bia", { limit: 5 })).data.filter((notification) => notification.kind === "level_up");
    expect(latest).toMatchObject({ title: expect.stringMatching(/^Bia chegou ao Nível \d+$/), body: "Parabéns!", view: "profile" });
  });

  it("with the CRM off, writes the inbox notification only", async () => {
    await send(quiet, "ana", "crm.welcome");
    expect(await latestTitle(quiet, "ana")).toMatchObject({ title: "Olá, Ana S.!" });
    expect(await requested(quiet.scope, quiet)).toEqual([]);
  });
});
