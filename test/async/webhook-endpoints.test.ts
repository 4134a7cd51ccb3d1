import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { verifyWebhook } from "../../sdk-node/src/webhooks.js";
import { sleep } from "../jobs/support/wait.js";
import { expectError } from "../support/api.js";
import { ok, type ClubClient } from "./support/client.js";
import { shiftableClock } from "./support/clock.js";
import { describeEachStack, startInProcessStack, type InProcessStack } from "./support/stack.js";
import { Endpoints, noticesOf, waitForNotices, withoutTests } from "./support/endpoints.js";
import { expectContractNotice, expectContractShape } from "./support/webhooks.js";

/**
 * The webhook endpoints API (`/v1/webhook_endpoints`) through the real server
 * and its real workers: what the club registers decides what its receiver
 * gets, signed with the secret shown at creation or rotation.
 */

const DEFAULT_SUBSCRIPTION = ["reward.*", "referral.qualified", "message.requested"];

/** A first deposit big enough for level 2: participant.created, level.up, reward.granted and reward.delivery_requested. */
const firstDeposit = (participant: string) => ({
  participant,
  type: "deposit.confirmed",
  id: `dep-${participant}`,
  amount: 500,
  currency: "BRL",
  meta: { method: "pix" },
});

describeEachStack("webhook endpoints", (kind) => {
  const clock = shiftableClock();
  const endpoints = new Endpoints(clock);
  let stack: InProcessStack;
  let club: ClubClient;

  beforeAll(async () => {
    stack = await startInProcessStack(kind, { clock });
  });
  afterEach(() => endpoints.stopAll());
  afterAll(() => stack?.close());

  it("creates an endpoint (201, the whsec_ secret only in this answer) and sends it a signed webhook.test at once", async () => {
    club = await stack.newClub();
    // The receiver must listen before the endpoint exists, so it cannot know the secret yet: it
    // holds the port, and the signature is then checked with the secret the answer shows.
    const receiver = await endpoints.receiver("whsec_not_known_yet");
    const url = receiver.url("/hooks/clube");
    const response = await club.call("POST", "/v1/webhook_endpoints", { body: { url, description: "Backend de pagamentos (homologação)" } });
    expect(response.status).toBe(201);
    const created = response.body;
    expect(created).toEqual({
      id: expect.stringMatching(/^we_/),
      url,
      events: [],
      effective_events: DEFAULT_SUBSCRIPTION,
      description: "Backend de pagamentos (homologação)",
      enabled: true,
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]+$/),
    });
    const [test] = await waitForNotices(receiver, "webhook.test", (notices) => notices.length === 1);
    const header = String(test.request.headers["x-clube-signature"]);
    // The seed's algorithm with its 300 s tolerance, as the client's SDK applies it.
    expect(verifyWebhook(test.request.body, header, created.secret, { now: clock.now() })).toEqual(test.envelope);
    expectContractShape(test, club);
    expect(test.request.path).toBe("/hooks/clube");
    expect(test.envelope).toMatchObject({ type: "webhook.test", data: { endpoint_id: created.id, message: expect.any(String) } });

    // Never shown again: not by get, list or update.
    const got = await ok(club.call("GET", `/v1/webhook_endpoints/${created.id}`));
    expect(got).toEqual({ ...created, secret: undefined });
    expect(Object.keys(got)).not.toContain("secret");
    const listed = await ok(club.call("GET", "/v1/webhook_endpoints"));
    expect(listed.data.map((endpoint: Record<string, unknown>) => Object.keys(endpoint).includes("secret"))).toEqual([false]);
    const updated = await ok(club.call("POST", `/v1/webhook_endpoints/${created.id}`, { body: { description: null } }));
    expect(updated).toEqual({ ...created, description: null, secret: undefined });
    expect(Object.keys(updated)).not.toContain("secret");
  });

  it("lists newest first with has_more, gets, updates and deletes; a deleted endpoint answers 404 and receives nothing more", async () => {
    club = await stack.newClub();
    const make = async (n: number) =>
      ok(club.call("POST", "/v1/webhook_endpoints", { body: { url: `https://hooks.cassino.example/${n}`, enabled: false } }), 201);
    const first = await make(1);
    await sleep(5); // distinct creation instants, so "newest first" is observable
    const second = await make(2);
    await sleep(5);
    const third = await make(3);

    const page1 = await ok(club.call("GET", "/v1/webhook_endpoints?limit=2"));
    expect(page1.data.map((endpoint: { id: string }) => endpoint.id)).toEqual([third.id, second.id]);
    expect(page1.has_more).toBe(true);
    const page2 = await ok(club.call("GET", `/v1/webhook_endpoints?limit=2&starting_after=${second.id}`));
    expect(page2).toEqual({ data: [{ ...first, secret: undefined }], has_more: false });

    const renamed = await ok(
      club.call("POST", `/v1/webhook_endpoints/${second.id}`, { body: { events: ["level.up", "reward.*", "level.up"], description: "CRM" } }),
    );
    expect(renamed).toMatchObject({ events: ["level.up", "reward.*"], effective_events: ["level.up", "reward.*"], description: "CRM" });
    expect(await ok(club.call("GET", `/v1/webhook_endpoints/${second.id}`))).toEqual(renamed);

    expect(await ok(club.call("DELETE", `/v1/webhook_endpoints/${second.id}`))).toEqual({ id: second.id, deleted: true });
    expectError(await club.call("GET", `/v1/webhook_endpoints/${second.id}`), 404, "not_found", second.id);
    expectError(await club.call("DELETE", `/v1/webhook_endpoints/${second.id}`), 404, "not_found", second.id);
    expectError(await club.call("POST", `/v1/webhook_endpoints/${second.id}/rotate_secret`), 404, "not_found", second.id);
    const remaining = await ok(club.call("GET", "/v1/webhook_endpoints"));
    expect(remaining.data.map((endpoint: { id: string }) => endpoint.id)).toEqual([third.id, first.id]);

    // A live endpoint, deleted: the next reward is not sent to it.
    const gone = await endpoints.connect(club, ["reward.*"]);
    const kept = await endpoints.connect(club, ["reward.*"]);
    await ok(club.call("DELETE", `/v1/webhook_endpoints/${gone.id}`));
    await ok(club.call("POST", "/v1/events", { body: firstDeposit("jogador_delete") }));
    await waitForNotices(kept.receiver, "reward.delivery_requested at the kept endpoint", (notices) =>
      notices.some((notice) => notice.envelope.type === "reward.delivery_requested"),
    );
    await sleep(1_500); // the same relay pass and dispatcher handled both endpoints; give a straggler time to show
    expect(withoutTests(noticesOf(gone.receiver)).map((notice) => notice.envelope.type)).toEqual([]);
  });

  it("rotates the secret with an overlap: both secrets verify until old_secret_expires_at, then only the new one", async () => {
    club = await stack.newClub();
    const endpoint = await endpoints.connect(club, ["participant.created"]);
    const rotatedAt = clock.now().getTime();
    const rotated = await ok(club.call("POST", `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`));
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9_-]+$/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    const { old_secret_expires_at: expiresAt, ...withSecret } = rotated;
    expect(withSecret).toEqual({ ...(await ok(club.call("GET", `/v1/webhook_endpoints/${endpoint.id}`))), secret: rotated.secret });
    // The default overlap is a day.
    const overlapMs = Date.parse(expiresAt) - rotatedAt;
    expect(overlapMs).toBeGreaterThanOrEqual(86_400_000 - 1_000);
    expect(overlapMs).toBeLessThanOrEqual(86_400_000 + 60_000);

    const sendParticipant = async (externalId: string) => {
      await ok(club.call("POST", "/v1/participants", { body: { external_id: externalId, display_name: "Rita R." } }));
      const notices = await waitForNotices(endpoint.receiver, externalId, (all) =>
        all.some((n) => n.envelope.type === "participant.created" && JSON.stringify(n.envelope.data).includes(externalId)),
      );
      return notices.find((n) => n.envelope.type === "participant.created" && JSON.stringify(n.envelope.data).includes(externalId))!.request;
    };

    // During the overlap: two v1 values, new first; the receiver still holding the old secret accepts it,
    // and the SDK's verifier accepts it with either secret.
    const during = await sendParticipant("jogador_rotacao");
    const duringHeader = String(during.headers["x-clube-signature"]);
    expect(duringHeader).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(during.signatureValid).toBe(true);
    for (const secret of [endpoint.secret, rotated.secret]) {
      expect(verifyWebhook(during.body, duringHeader, secret, { now: clock.now() })).toMatchObject({
        type: "participant.created",
        data: { participant: { external_id: "jogador_rotacao" } },
      });
    }

    // After the overlap: one v1, by the new secret only.
    clock.advance(Date.parse(expiresAt) - clock.now().getTime() + 1_000);
    const after = await sendParticipant("jogador_pos_rotacao");
    const afterHeader = String(after.headers["x-clube-signature"]);
    expect(afterHeader).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(after.signatureValid).toBe(false);
    expect(() => verifyWebhook(after.body, afterHeader, endpoint.secret, { now: clock.now() })).toThrow(expect.objectContaining({ reason: "no_match" }));
    expect(verifyWebhook(after.body, afterHeader, rotated.secret, { now: clock.now() })).toMatchObject({ type: "participant.created" });
  });

  it("rotates with expire_old_after_seconds: 0 (the old secret stops at once) and refuses an overlap over 7 days with 422", async () => {
    club = await stack.newClub();
    const endpoint = await endpoints.connect(club, ["participant.created"]);
    const rotate = (body: unknown) => club.call("POST", `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, { body });
    for (const bad of [604_801, -1, 1.5, "3600"]) {
      expectError(await rotate({ expire_old_after_seconds: bad }), 422, "validation_failed", "body.expire_old_after_seconds");
    }
    expectError(await rotate({ expire_old_after_seconds: 60, extra: true }), 422, "validation_failed", "body");
    const longest = await ok(rotate({ expire_old_after_seconds: 604_800 }));
    expect(Date.parse(longest.old_secret_expires_at) - clock.now().getTime()).toBeGreaterThan(604_800_000 - 60_000);

    const rotated = await ok(rotate({ expire_old_after_seconds: 0 }));
    expect(rotated.old_secret_expires_at).toBeNull();
    await ok(club.call("POST", "/v1/participants", { body: { external_id: "jogador_corte", display_name: "Caio C." } }));
    const notices = await waitForNotices(endpoint.receiver, "participant.created", (all) => all.some((n) => n.envelope.type === "participant.created"));
    const created = notices.find((notice) => notice.envelope.type === "participant.created")!;
    const header = String(created.request.headers["x-clube-signature"]);
    // Only the newest secret signs: neither the first secret nor the one rotated away from a moment ago.
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    for (const old of [endpoint.secret, longest.secret]) {
      expect(() => verifyWebhook(created.request.body, header, old, { now: clock.now() })).toThrow(expect.objectContaining({ reason: "no_match" }));
    }
    expect(verifyWebhook(created.request.body, header, rotated.secret, { now: clock.now() })).toMatchObject({ type: "participant.created" });
  });

  it("refuses a URL that is not http(s) with 422 naming body.url, and a private address in live (allowed in test)", async () => {
    club = await stack.newClub();
    const create = (url: string, key?: string) => club.call("POST", "/v1/webhook_endpoints", { key, body: { url } });
    for (const url of ["ftp://hooks.cassino.example/clube", "hooks.cassino.example/clube", "javascript:alert(1)", "file:///etc/passwd"]) {
      expectError(await create(url), 422, "validation_failed", "body.url");
      expectError(await create(url, club.keys.live), 422, "validation_failed", "body.url");
    }
    // Malformed hosts (they pass the `uri` format) are 422 in both environments, never a 500.
    for (const url of ["http://127.0.0.1%09:8080/", "http://[fe80::1%25eth0]/hooks"]) {
      expectError(await create(url), 422, "validation_failed", "body.url");
      expectError(await create(url, club.keys.live), 422, "validation_failed", "body.url");
    }
    const refusedInLive = [
      "http://127.0.0.1:8080/hooks",
      "http://localhost/hooks",
      "http://10.0.3.7/hooks",
      "http://192.168.1.20/hooks",
      "http://[::1]/hooks",
      "http://[::ffff:127.0.0.1]:8080/x",
      "http://[::ffff:7f00:1]:8080/x",
      "http://[0:0:0:0:0:ffff:127.0.0.1]:8080/x",
      "http://[::ffff:169.254.169.254]/latest",
      "http://[::127.0.0.1]/x",
      "http://100.100.100.200/x",
      "http://100.64.0.1/x",
      "http://2130706433/x",
      "http://203.0.113.10/x",
    ];
    for (const url of refusedInLive) {
      expectError(await create(url, club.keys.live), 422, "validation_failed", "body.url");
      expect((await create(url)).status, `${url} in test`).toBe(201);
    }
    // A public address is accepted in live; changing it to a private one is refused like creating it.
    const live = await ok(create("https://93.184.215.14/webhooks/clube", club.keys.live), 201);
    const moved = await club.call("POST", `/v1/webhook_endpoints/${live.id}`, { key: club.keys.live, body: { url: "http://172.16.4.2/hooks" } });
    expectError(moved, 422, "validation_failed", "body.url");
    // Test and live keep their own endpoints.
    const liveList = await ok(club.call("GET", "/v1/webhook_endpoints", { key: club.keys.live }));
    expect(liveList.data.map((endpoint: { id: string }) => endpoint.id)).toEqual([live.id]);
  });

  it("holds the url to 2000 characters, events to 50 entries and description to 200", async () => {
    club = await stack.newClub();
    const base = "https://hooks.cassino.example/";
    const urlOf = (length: number) => base + "a".repeat(length - base.length);
    const create = (body: Record<string, unknown>) => club.call("POST", "/v1/webhook_endpoints", { body: { enabled: false, ...body } });
    expect((await create({ url: urlOf(2000) })).status).toBe(201);
    expectError(await create({ url: urlOf(2001) }), 422, "validation_failed", "body.url");
    const events = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 === 0 ? "level.up" : "reward.*"));
    expect(await ok(create({ url: base, events: events(50) }), 201)).toMatchObject({ events: ["level.up", "reward.*"] });
    expectError(await create({ url: base, events: events(51) }), 422, "validation_failed", "body.events");
    expect((await create({ url: base, description: "d".repeat(200) })).status).toBe(201);
    expectError(await create({ url: base, description: "d".repeat(201) }), 422, "validation_failed", "body.description");
    expectError(await create({ url: base, events: ["webhook.test"] }), 422, "validation_failed", "body.events");
    expectError(await create({ url: base, secret: "whsec_mine" }), 422, "validation_failed", "secret");
  });

  it("delivers the default subscription (reward.*, referral.qualified, message.requested) when none is marked, and named events only when named", async () => {
    club = await stack.newClub();
    const byDefault = await endpoints.connect(club);
    const named = await endpoints.connect(club, ["participant.created", "level.up"]);
    const rewardsOnly = await endpoints.connect(club, ["reward.granted"]);
    await ok(club.call("POST", "/v1/events", { body: firstDeposit("jogador_assinatura") }));

    // The deposit grants the first-deposit bonus (client_delivered) and the daily deposit mission's coins (internal).
    const expectTypes = async (endpoint: typeof byDefault, expected: string[]) => {
      await waitForNotices(endpoint.receiver, expected.join(", "), (all) => withoutTests(all).length >= expected.length);
      await sleep(1_000); // nothing else may follow
      const notices = withoutTests(noticesOf(endpoint.receiver));
      for (const notice of notices) expectContractNotice(notice, club);
      expect(notices.map((notice) => notice.envelope.type).sort()).toEqual(expected);
    };
    await expectTypes(byDefault, ["reward.delivery_requested", "reward.granted", "reward.granted"]);
    await expectTypes(named, ["level.up", "participant.created"]);
    await expectTypes(rewardsOnly, ["reward.granted", "reward.granted"]);
  });
});
