import { createRequire } from "node:module";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildStudio } from "../../studio/scripts/build.mjs";
import { verifyWebhook } from "../../sdk-node/src/webhooks.js";
import { createStaffMember } from "../../server/src/usecases/staff/index.js";
import { launchChromium, savedScreenshot } from "../support/chromium.js";
import { ok, type ClubClient } from "../async/support/client.js";
import { startInProcessStack, type InProcessStack } from "../async/support/stack.js";
import { noticesOf, waitForNotices } from "../async/support/endpoints.js";
import { waitFor } from "../jobs/support/wait.js";
import { Receiver } from "../webhooks/support/receiver.js";

/**
 * Clube Studio in Debian's Chromium against a real server with its workers
 * and a real local webhook receiver: an owner runs the club through the
 * console as a person would, a viewer finds no buttons the role can't use,
 * every screen passes axe in both languages and is screenshotted at
 * 1280×800. One server, one browser, sequential steps.
 */
const require = createRequire(import.meta.url);
const SCREENSHOTS = new URL("./screenshots/", import.meta.url);
const PASSWORD = "Plenty-of-words 42 here";
const TIMEOUT = 60_000;

let stack: InProcessStack;
let club: ClubClient;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let receiver: Receiver;
let endpoint: { id: string; secret: string };
let testEventId: string;
/** The succeeded sending the resend step sent again. */
let resentSendingId = "";

beforeAll(async () => {
  await buildStudio();
  stack = await startInProcessStack("sqlite+embedded");
  club = await stack.newClub();
  for (const role of ["owner", "viewer"] as const) {
    await createStaffMember(
      stack.db,
      club.clubId,
      { email: `${role}@sorte.example`, display_name: role === "owner" ? "Olga Dona" : "Vitor Leitor", role, env: null, password: PASSWORD },
      new Date(),
    );
  }
  receiver = await new Receiver("whsec_shown_later").start();
  browser = await launchChromium();
  // axe-core is injected by the test: the console's CSP allows only its own scripts.
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true, locale: "en-US" });
  page = await context.newPage();
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.stop();
  await stack?.close();
});

async function signIn(target: Page, email: string): Promise<void> {
  await target.getByLabel(/Club id|Id do clube/).fill(club.clubId);
  await target.getByLabel("E-mail").fill(email);
  await target.getByLabel(/Password|Senha/).fill(PASSWORD);
  await target.getByRole("button", { name: /^(Sign in|Entrar)$/ }).click();
}

async function goto(path: string, target: Page = page): Promise<void> {
  await target.goto(`${stack.url}/studio${path}`);
  await target.locator("h1").first().waitFor();
}

/** No "Loading…" left on the screen. */
async function settled(target: Page = page): Promise<void> {
  await target.waitForFunction(() => !document.body.innerText.includes("Loading…") && !document.body.innerText.includes("Carregando…"), null, {
    timeout: TIMEOUT,
  });
}

async function screenshot(name: string): Promise<void> {
  const colours = await savedScreenshot(page, SCREENSHOTS, name);
  expect(colours, `${name} screenshot looks blank`).toBeGreaterThan(20);
}

async function expectAccessible(name: string): Promise<void> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: require.resolve("axe-core") });
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document);
    if (result.passes.length === 0) return ["axe checked nothing"];
    return result.violations
      .filter((violation: { impact: string }) => violation.impact === "serious" || violation.impact === "critical")
      .map((violation: { id: string; nodes: { target: string[] }[] }) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
  });
  expect(violations, `axe on ${name}`).toEqual([]);
}

/** The club's published test configuration, as the editor shows it. */
async function publishedConfig(): Promise<any> {
  return (await ok(club.call("GET", "/v1/config"))).config;
}

/** Replaces the editor's whole text as typing would (select all, then insert). */
async function replaceEditorText(text: string): Promise<void> {
  await page.locator(".cm-content").click();
  await page.keyboard.press("Control+a");
  await page.keyboard.insertText(text);
}

describe("Clube Studio", () => {
  it("GET / leads to the console, and a signed-out deep link goes to sign-in and back", { timeout: TIMEOUT }, async () => {
    const root = await fetch(`${stack.url}/`, { redirect: "manual" });
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/studio/");
    const deep = await fetch(`${stack.url}/studio/events?type=x`);
    expect(deep.status).toBe(200);
    expect(deep.headers.get("content-security-policy")).toContain("script-src 'self'");

    await page.goto(`${stack.url}/studio/events`);
    await page.waitForURL(/\/studio\/sign-in\?next=/);
    await expectAccessible("sign-in");
    await signIn(page, "owner@sorte.example");
    await page.waitForURL(`${stack.url}/studio/events`);
    await page.getByRole("heading", { level: 1, name: "Events" }).waitFor();
    // The environment is always marked.
    await expect(page.getByRole("note").textContent()).resolves.toContain("Test environment");
  });

  it("registers a webhook endpoint: the secret shown once, a signed webhook.test at the receiver", { timeout: TIMEOUT }, async () => {
    await goto("/webhooks");
    await page.getByLabel("Endpoint URL").fill(receiver.url("/hooks/clube"));
    await page.getByLabel("Description").fill("Backend de pagamentos");
    await page.getByRole("checkbox", { name: "reward.*" }).check();
    await page.getByRole("button", { name: "Add endpoint" }).last().click();
    const secret = (await page.getByTestId("secret").textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]+$/);
    await screenshot("webhooks");
    const [test] = await waitForNotices(receiver, "webhook.test", (notices) => notices.some((n) => n.envelope.type === "webhook.test"));
    const signed = verifyWebhook(test.request.body, test.request.headers["x-clube-signature"] as string, secret);
    expect(signed.type).toBe("webhook.test");
    endpoint = { id: (test.envelope.data as { endpoint_id: string }).endpoint_id, secret };
    // Shown once: the list and the endpoint's page never show it again.
    await page.reload();
    await settled();
    expect(await page.content()).not.toContain(secret);
  });

  it("sends a test event and reads its trace", { timeout: TIMEOUT }, async () => {
    await goto("/events");
    const form = page.getByRole("region", { name: "Send a test event" });
    await form.getByLabel("Participant").fill("ana");
    await form.getByLabel("Type").fill("deposit.confirmed");
    await form.getByLabel("Amount").fill("500");
    await form.getByRole("button", { name: "Send test event" }).click();
    const result = page.getByRole("status").filter({ hasText: "Result of the test event" });
    await result.waitFor();
    // Each rule listening to the type, matched or not, with the first reason.
    await expect(result.locator("li.matched", { hasText: "deposit-xp" }).count()).resolves.toBe(1);
    await expect(result.locator("li.skipped", { hasText: "tenth-deposit" }).textContent()).resolves.toMatch(/not matched/);
    await expect(result.getByRole("cell", { name: "+1,000 XP" }).count()).resolves.toBeGreaterThan(0);
    await screenshot("events");
    // The event's own page, deep-linked from the result.
    testEventId = (await result.getByRole("link").first().textContent())!;
    await result.getByRole("link").first().click();
    await page.getByRole("heading", { level: 2, name: "Why: the trace" }).waitFor();
    await expect(page.locator("li.matched", { hasText: "first-deposit" }).count()).resolves.toBe(1);
    // Its effects, each with the rule it came from (GET /v1/events/{id}).
    await expect(page.getByRole("row").filter({ hasText: "+1,000 XP" }).getByRole("cell", { name: "deposit-xp" }).count()).resolves.toBe(1);
    await screenshot("event");
  });

  it("filters the events by time on the server", { timeout: TIMEOUT }, async () => {
    await goto("/events?participant=ana");
    await settled();
    await expect(page.locator("tbody tr").count()).resolves.toBeGreaterThan(0);
    await page.getByLabel("Received after").fill("2099-01-01T00:00");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByText("Nothing here yet.").waitFor();
    expect(page.url()).toContain("since=2099-01-01T00%3A00");
    await page.getByLabel("Received after").fill("");
    await page.getByLabel("Received before").fill("2099-01-01T00:00");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.locator("tbody tr").first().waitFor();
  });

  it("finds the participant and sees each ledger line with its rule", { timeout: TIMEOUT }, async () => {
    await goto("/participants");
    await page.getByLabel("External id").fill("ana");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/\/studio\/participants\/ana$/);
    await settled();
    // The ledger (GET /v1/participants/{external_id}/ledger): the XP line of the test deposit names its rule and its event.
    const ledger = page.locator("table.ledger");
    const line = ledger.locator("tr", { hasText: testEventId }).filter({ has: page.locator("code.rule", { hasText: "deposit-xp" }) });
    await expect(line.count()).resolves.toBe(1);
    await expect(line.textContent()).resolves.toContain("+1,000");
    // The events, each with the rules its trace matched.
    await expect(page.locator("table.event-lines tr", { hasText: "deposit.confirmed" }).locator("code.rule", { hasText: "deposit-xp" }).count()).resolves.toBe(
      1,
    );
    await expect(page.getByText("Coins").count()).resolves.toBeGreaterThan(0);
    await screenshot("participant");
  });

  it("confirms a pending delivery with a note", { timeout: TIMEOUT }, async () => {
    const pending = (await ok(club.call("GET", "/v1/deliveries?status=pending"))).deliveries;
    expect(pending.length).toBeGreaterThan(0);
    const delivery = pending[0];
    await goto("/deliveries");
    await settled();
    const row = page.locator(`tr[data-delivery="${delivery.id}"]`);
    await row.getByLabel(/Note/).fill("Crédito feito no backoffice");
    await screenshot("deliveries");
    await row.getByRole("button", { name: "Confirm" }).click();
    await row.waitFor({ state: "detached", timeout: TIMEOUT });
    const after = (await ok(club.call("GET", "/v1/deliveries?status=delivered"))).deliveries;
    expect(after.find((d: { id: string }) => d.id === delivery.id)).toMatchObject({ status: "delivered", note: "Crédito feito no backoffice" });
  });

  it("resends a successful sending and the receiver gets it again", { timeout: TIMEOUT }, async () => {
    // The test deposit's reward.delivery_requested reached the receiver.
    await waitForNotices(receiver, "reward notice", (notices) => notices.some((n) => n.envelope.type === "reward.delivery_requested"));
    await goto(`/webhooks/${endpoint.id}`);
    let sendingId = "";
    await waitFor(
      "a succeeded sending",
      async () => {
        await page.getByRole("button", { name: "Refresh" }).click();
        await settled();
        const row = page.locator("tr[data-sending]", { hasText: "reward.delivery_requested" }).filter({ hasText: "succeeded" });
        if ((await row.count()) === 0) return false;
        sendingId = (await row.first().getAttribute("data-sending"))!;
        return true;
      },
      TIMEOUT,
    );
    await screenshot("webhook");
    const before = noticesOf(receiver).filter((n) => n.deliveryId === sendingId).length;
    await page.getByRole("button", { name: `Resend ${sendingId}` }).click();
    await page.getByText("Queued again.").waitFor();
    const again = await waitForNotices(receiver, "the resent notice", (notices) => notices.filter((n) => n.deliveryId === sendingId).length > before);
    const resent = again.filter((n) => n.deliveryId === sendingId).at(-1)!;
    expect(verifyWebhook(resent.request.body, resent.request.headers["x-clube-signature"] as string, endpoint.secret).type).toBe("reward.delivery_requested");
    resentSendingId = sendingId;
  });

  it("sends webhook.test on demand from the endpoint's page and shows a sending's payload", { timeout: TIMEOUT }, async () => {
    await goto(`/webhooks/${endpoint.id}`);
    await settled();
    const before = noticesOf(receiver).filter((n) => n.envelope.type === "webhook.test").length;
    await page.getByRole("button", { name: "Send webhook.test" }).click();
    await page.getByText(/webhook\.test queued \(evt_/).waitFor();
    const tests = await waitForNotices(
      receiver,
      "the webhook.test on demand",
      (notices) => notices.filter((n) => n.envelope.type === "webhook.test").length > before,
    );
    const latest = tests.filter((n) => n.envelope.type === "webhook.test").at(-1)!;
    expect(verifyWebhook(latest.request.body, latest.request.headers["x-clube-signature"] as string, endpoint.secret).type).toBe("webhook.test");

    const row = page.locator("tr[data-sending]", { hasText: "reward.delivery_requested" }).first();
    const sendingId = (await row.getAttribute("data-sending"))!;
    await page.getByRole("button", { name: `Details ${sendingId}` }).click();
    const payload = page.getByTestId("payload");
    await payload.waitFor();
    await expect(payload.textContent()).resolves.toContain('"type": "reward.delivery_requested"');
    await screenshot("webhook-payload");
  });

  it("shows a sending's attempts: number, time, outcome, HTTP status, duration and error, a resend's marked", { timeout: TIMEOUT }, async () => {
    expect(resentSendingId).not.toBe("");
    await goto(`/webhooks/${endpoint.id}`);
    await settled();
    const log = page.getByRole("table", { name: "Attempts" });
    // The resent attempt's row is written as the receiver answers: reopen the details until it is there.
    await waitFor(
      "the resent attempt in the log",
      async () => {
        const button = page.getByRole("button", { name: `Details ${resentSendingId}` });
        if ((await button.getAttribute("aria-pressed")) === "true") await button.click();
        await button.click();
        await settled();
        return (await log.locator("tbody tr").count()) === 2;
      },
      TIMEOUT,
    );
    const rows = await log.locator("tbody tr").evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent!.trim())));
    // Newest first: the resend's attempt, then the first one; both answered 200, no error.
    expect(rows.map((cells) => cells[0])).toEqual(["2 · resend", "1"]);
    for (const [, time, outcome, http, duration, error] of rows) {
      expect(time).toMatch(/\d/);
      expect(outcome).toBe("succeeded");
      expect(http).toBe("200");
      expect(duration).toMatch(/^\d[\d,]* ms$/);
      expect(error).toBe("—");
    }
    const headers = await log.locator("thead th").allTextContents();
    expect(headers).toEqual(["Attempt", "Started", "Outcome", "HTTP", "Duration", "Error"]);
    await expectAccessible("webhook sending detail (en)");
    await log.scrollIntoViewIfNeeded();
    await screenshot("webhook-attempts");
    await page.evaluate(() => localStorage.setItem("clube.studio.locale", "pt-BR"));
    try {
      await goto(`/webhooks/${endpoint.id}`);
      await settled();
      await page.getByRole("button", { name: `Detalhes ${resentSendingId}` }).click();
      const tabela = page.getByRole("table", { name: "Tentativas" });
      await tabela.waitFor();
      expect(await tabela.locator("thead th").allTextContents()).toEqual(["Tentativa", "Início", "Resultado", "HTTP", "Duração", "Erro"]);
      await expect(tabela.locator("tbody tr").first().textContent()).resolves.toContain("reenvio");
      await expectAccessible("webhook sending detail (pt-BR)");
    } finally {
      await page.evaluate(() => localStorage.setItem("clube.studio.locale", "en"));
    }
  });

  it("shows the day's figures on the overview, from the server's aggregates", { timeout: TIMEOUT }, async () => {
    await goto("/");
    await settled();
    expect(Number((await page.getByTestId("ov-events").textContent())!.replace(/\D/g, ""))).toBeGreaterThan(0);
    expect(Number((await page.getByTestId("ov-effects").textContent())!.replace(/\D/g, ""))).toBeGreaterThan(0);
    await expect(page.locator(`li[data-endpoint="${endpoint.id}"]`).textContent()).resolves.toMatch(/\d+%/);
    await page.locator(".chart canvas").first().waitFor({ timeout: TIMEOUT });
  });

  it("edits the cashback settings and sees a tournament's settlement status", { timeout: TIMEOUT }, async () => {
    await goto("/programs");
    await settled();
    const cashback = page.getByRole("region", { name: "Cashback" });
    await cashback.getByLabel("Hour of the daily run (0–23)").fill("7");
    await cashback.getByLabel(/^Minimum daily loss \(/).fill("12,50");
    await cashback.getByRole("button", { name: "Save cashback settings" }).click();
    await cashback.getByText("Saved.").waitFor();
    expect(await ok(club.call("GET", "/v1/cashback"))).toMatchObject({ hour: 7, min_loss: 12.5 });
    const tournaments = (await ok(club.call("GET", "/v1/tournaments"))).data;
    if (tournaments.length > 0 && tournaments[0].editions.length > 0) {
      const [tournament, edition] = [tournaments[0].tournament_id, tournaments[0].editions[0].edition_id];
      await page.getByRole("button", { name: `Standings ${tournament} ${edition}` }).click();
      await page
        .getByText(/scoring|ended, prizes being settled|settled, prizes paid|not started/)
        .first()
        .waitFor();
    }
  });

  it(
    "breaks the draft and sees the error at its path, fixes it, sees the diff, backtests, publishes; the next event follows the new rule",
    { timeout: 120_000 },
    async () => {
      const config = await publishedConfig();
      const index = config.rules.findIndex((rule: { id: string }) => rule.id === "deposit-xp");
      await goto("/config");
      await page.locator(".cm-content").waitFor({ timeout: TIMEOUT });
      await page.getByRole("heading", { name: "No problems found." }).waitFor();

      const broken = structuredClone(config);
      broken.rules[index].trigger.event = 5;
      await replaceEditorText(JSON.stringify(broken, null, 2));
      const problems = page.locator(".problems");
      await problems.getByText(`rules[${index}].trigger.event`, { exact: true }).waitFor({ timeout: TIMEOUT });
      // Marked in the text too, where the path points: the problem's path takes the cursor there.
      await problems.getByRole("button", { name: `rules[${index}].trigger.event` }).click();
      await page.locator(".cm-lintRange-error").first().waitFor({ timeout: TIMEOUT });
      await screenshot("config-error");

      const fixed = structuredClone(config);
      fixed.rules[index].effects[0].amount = "event.amount * 3";
      await replaceEditorText(JSON.stringify(fixed, null, 2));
      await page.getByRole("heading", { name: "No problems found." }).waitFor({ timeout: TIMEOUT });
      const diff = page.getByTestId("diff");
      await expect(diff.locator(".del").textContent()).resolves.toContain('"amount": "event.amount * 2"');
      await expect(diff.locator(".add").textContent()).resolves.toContain('"amount": "event.amount * 3"');

      await page.getByRole("button", { name: "Save draft" }).click();
      await page.getByText(/Draft saved as version \d+/).waitFor();
      await page.getByRole("button", { name: "Run backtest" }).click();
      const backtest = page.getByTestId("backtest");
      await backtest.waitFor({ timeout: TIMEOUT });
      await expect(backtest.getByRole("rowheader", { name: "rule:deposit-xp" }).count()).resolves.toBe(1);
      await screenshot("config");

      await page.getByRole("button", { name: "Publish", exact: true }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Publish" }).click();
      await page.getByText(/Version \d+ published\./).waitFor();
      const next = await ok(club.call("POST", "/v1/events", { body: { participant: "bia", type: "deposit.confirmed", id: "dep-bia-1", amount: 100 } }));
      expect(next.effects).toContainEqual({ type: "xp_granted", amount: 300, rule_id: "deposit-xp" });

      // Rolling back to the first version: saved again as a new draft and published; events follow the old rule.
      const first = (await ok(club.call("GET", "/v1/config/versions"))).data.at(-1).version;
      const row = page.locator(`tr[data-version="${first}"]`);
      await row.getByRole("button", { name: "Roll back to this version" }).click();
      await row.getByRole("dialog").getByRole("button", { name: "Roll back to this version" }).click();
      await page
        .locator('section[aria-labelledby="versions"]')
        .getByText(/Version \d+ published\./)
        .waitFor();
      const rolledBack = await ok(club.call("POST", "/v1/events", { body: { participant: "caio", type: "deposit.confirmed", id: "dep-caio-1", amount: 100 } }));
      expect(rolledBack.effects).toContainEqual({ type: "xp_granted", amount: 200, rule_id: "deposit-xp" });
    },
  );

  it("passes axe on every screen in both languages and screenshots each", { timeout: 240_000 }, async () => {
    const screens: [string, string][] = [
      ["overview", "/"],
      ["events", "/events"],
      ["event", `/events/${testEventId}`],
      ["participants", "/participants"],
      ["participant", "/participants/ana"],
      ["deliveries", "/deliveries"],
      ["webhooks", "/webhooks"],
      ["webhook", `/webhooks/${endpoint.id}`],
      ["config", "/config"],
      ["programs", "/programs"],
      ["access", "/access"],
      ["clock", "/clock"],
    ];
    for (const locale of ["en", "pt-BR"]) {
      await page.evaluate((value) => localStorage.setItem("clube.studio.locale", value), locale);
      for (const [name, path] of screens) {
        await goto(path);
        await settled();
        expect(await page.evaluate(() => document.documentElement.lang)).toBe(locale);
        await expectAccessible(`${name} (${locale})`);
        await screenshot(`${name}-${locale}`);
      }
    }
    await page.evaluate(() => localStorage.setItem("clube.studio.locale", "en"));
  });

  it("is usable at 768 px: no page-wide horizontal scroll, the navigation reachable", { timeout: 120_000 }, async () => {
    const narrow = await context.newPage();
    await narrow.setViewportSize({ width: 768, height: 1024 });
    try {
      for (const path of [
        "/",
        "/events",
        "/participants/ana",
        "/deliveries",
        "/webhooks",
        `/webhooks/${endpoint.id}`,
        "/config",
        "/programs",
        "/access",
        "/clock",
      ]) {
        await goto(path, narrow);
        await settled(narrow);
        const width = await narrow.evaluate(() => document.documentElement.scrollWidth);
        expect(width, `${path} at 768 px`).toBeLessThanOrEqual(768);
      }
      await narrow.getByRole("navigation").getByRole("link", { name: "Events" }).click();
      await narrow.getByRole("heading", { level: 1, name: "Events" }).waitFor();
      const colours = await savedScreenshot(narrow, SCREENSHOTS, "events-768");
      expect(colours).toBeGreaterThan(20);
    } finally {
      await narrow.close();
    }
  });

  it("a viewer sees no publish or key buttons, and the API refuses the same calls with 403", { timeout: TIMEOUT }, async () => {
    const viewerContext = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: "en-US" });
    const viewer = await viewerContext.newPage();
    try {
      await viewer.goto(`${stack.url}/studio/config`);
      await viewer.waitForURL(/sign-in/);
      await signIn(viewer, "viewer@sorte.example");
      await viewer.waitForURL(`${stack.url}/studio/config`);
      await viewer.locator(".cm-content").waitFor({ timeout: TIMEOUT });
      await settled(viewer);
      expect(await viewer.getByRole("button", { name: /Publish|Save draft|Roll back/ }).count()).toBe(0);
      await goto("/access", viewer);
      await settled(viewer);
      expect(await viewer.getByRole("button", { name: /Create key|Roll|Revoke/ }).count()).toBe(0);
      await goto("/webhooks", viewer);
      await settled(viewer);
      expect(await viewer.getByRole("button", { name: "Add endpoint" }).count()).toBe(0);
      await goto(`/webhooks/${endpoint.id}`, viewer);
      await settled(viewer);
      expect(await viewer.getByRole("button", { name: /Send webhook\.test|Resend|Rotate|Delete/ }).count()).toBe(0);
      await goto("/programs", viewer);
      await settled(viewer);
      expect(await viewer.getByRole("button", { name: /Save cashback settings|Disable/ }).count()).toBe(0);
      const statuses = await viewer.evaluate(async (endpointId) => {
        const session = await (await fetch("/v1/staff/sessions/current", { headers: { "Clube-Env": "test" } })).json();
        const headers = { "Content-Type": "application/json", "X-CSRF-Token": session.csrf_token, "Clube-Env": "test" };
        const publish = await fetch("/v1/config/publish", { method: "POST", headers, body: "{}" });
        const key = await fetch("/v1/keys", { method: "POST", headers });
        const test = await fetch(`/v1/webhook_endpoints/${endpointId}/test`, { method: "POST", headers });
        const cashback = await fetch("/v1/cashback", { method: "PUT", headers, body: JSON.stringify({ hour: 3 }) });
        return [publish.status, (await publish.json()).error.code, key.status, (await key.json()).error.code, test.status, cashback.status];
      }, endpoint.id);
      expect(statuses).toEqual([403, "forbidden", 403, "forbidden", 403, 403]);
    } finally {
      await viewerContext.close();
    }
  });

  it("an expired session returns to sign-in and then back to the page", { timeout: TIMEOUT }, async () => {
    await goto("/deliveries");
    await settled();
    // Signing out elsewhere ends the session; the next call answers 401.
    await page.evaluate(async () => {
      const session = await (await fetch("/v1/staff/sessions/current")).json();
      await fetch("/v1/staff/sessions/current", { method: "DELETE", headers: { "X-CSRF-Token": session.csrf_token } });
    });
    await page.getByRole("button", { name: "Refresh" }).click();
    await page.waitForURL(/\/studio\/sign-in\?next=%2Fstudio%2Fdeliveries/);
    await signIn(page, "owner@sorte.example");
    await page.waitForURL(`${stack.url}/studio/deliveries`);
  });
});
