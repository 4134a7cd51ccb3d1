import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import type { Browser, BrowserContext, Frame, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWidget } from "../../widget/scripts/build.mjs";
import { launchChromium, savedScreenshot } from "../support/chromium.js";
import { demoConfig, manualClock, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";

/**
 * The participant widget in Debian's Chromium against a real server: a host
 * page on another origin mounts it with loader.js, and the participant uses
 * it as a person would. One browser for the whole file.
 *
 * Origins: the API listens on 127.0.0.1:A; the host pages on port H are
 * reached as `localhost:H` (listed in allowedOrigins) and as `127.0.0.1:H`
 * (not listed), so one host server gives an allowed and a refused page.
 */
const require = createRequire(import.meta.url);
const SCREENSHOTS = new URL("./screenshots/", import.meta.url);
const PARTICIPANT = "widget_ana";
const FRAME_TIMEOUT = 30_000;

let api: TestApi;
let hostServer: Server;
let hostPort: number;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const clock = manualClock(new Date());

/** The host page: mounts the widget, fetches tokens from "its server" (this test process), records what the widget tells it. */
function hostPage(apiUrl: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>body{margin:0;background:#fff}</style></head><body><div id="clube"></div>
<script src="${apiUrl}/widget/loader.js"></script>
<script>
  window.tokenCalls = 0; window.messages = [];
  window.widget = ClubeWidget.mount(document.getElementById("clube"), {
    baseUrl: ${JSON.stringify(apiUrl)},
    locale: new URLSearchParams(location.search).get("locale") || "pt-BR",
    scheme: new URLSearchParams(location.search).get("scheme") || "theme",
    getToken: () => { window.tokenCalls++; return fetch("/token", { method: "POST" }).then((r) => r.text()); },
    onEvent: (message) => window.messages.push(message),
  });
</script></body></html>`;
}

beforeAll(async () => {
  await buildWidget();
  api = await openTestClub("sqlite", { api: true, clock });
  hostServer = createServer(async (req, res) => {
    if (req.method === "POST" && req.url === "/token") {
      // What a client's server does: a short-lived participant token with its secret key.
      const issued = await api.request("POST", `/v1/participants/${PARTICIPANT}/token`, { body: { ttl_seconds: 60 } });
      res.writeHead(issued.status, { "Content-Type": "text/plain" }).end(issued.body.token ?? "");
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html" }).end(hostPage(api.url));
  });
  await new Promise<void>((resolve) => hostServer.listen(0, "127.0.0.1", resolve));
  hostPort = (hostServer.address() as AddressInfo).port;

  // The club allows the localhost host page only.
  const config = await demoConfig();
  config.allowedOrigins = [`http://localhost:${hostPort}`];
  expect((await api.request("PUT", "/v1/config/draft", { body: config })).status).toBeLessThan(300);
  expect((await api.request("POST", "/v1/config/publish", { body: {} })).status).toBe(200);

  // Enough to show: XP and coins from a deposit, a completed manual mission (apostar-500).
  expect((await api.request("POST", "/v1/participants", { body: { external_id: PARTICIPANT, display_name: "Ana" } })).status).toBeLessThan(300);
  const events = [
    { id: "w-signup", type: "user.signed_up" },
    { id: "w-dep-1", type: "deposit.confirmed", amount: "15000.00" },
    { id: "w-bet-1", type: "bet.placed", amount: "500.00" },
  ];
  for (const event of events) {
    const sent = await api.request("POST", "/v1/events", { body: { participant: PARTICIPANT, ...event } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  }

  browser = await launchChromium();
  // The app's CSP allows only its own scripts: axe-core is injected by the test, so CSP is bypassed for it.
  context = await browser.newContext({ viewport: { width: 375, height: 812 }, bypassCSP: true });
  page = await context.newPage();
  await page.goto(`http://localhost:${hostPort}/`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (hostServer ? hostServer.close(() => resolve()) : resolve()));
  await api?.close();
});

function widgetFrame(target: Page = page): Frame {
  const frame = target.frames().find((candidate) => candidate.url().includes("/widget/app.html"));
  if (!frame) throw new Error("the widget iframe is not there");
  return frame;
}

/** The widget frame of a page that was just opened (polls until the loader has made it). */
function waitForFrame(target: Page): Promise<Frame> {
  return new Promise<Frame>((resolve, reject) => {
    const deadline = Date.now() + FRAME_TIMEOUT;
    const look = () => {
      const found = target.frames().find((candidate) => candidate.url().includes("/widget/app.html"));
      if (found) resolve(found);
      else if (Date.now() > deadline) reject(new Error("no widget frame"));
      else setTimeout(look, 50);
    };
    look();
  });
}

async function open(module: string): Promise<Frame> {
  await page.evaluate((name) => (window as any).widget.open(name), module);
  return widgetFrame();
}

async function progress() {
  const response = await api.request("GET", "/v1/me/progress", { participant: PARTICIPANT });
  return response.body;
}

async function balance(code: string): Promise<number> {
  return (await progress()).currencies.find((currency: { code: string }) => currency.code === code).balance;
}

/** Screenshot of the page, written under test/widget/screenshots, checked for real content (many distinct colours). */
async function screenshot(name: string): Promise<void> {
  const colours = await savedScreenshot(page, SCREENSHOTS, name);
  expect(colours, `${name} screenshot looks blank`).toBeGreaterThan(20);
}

/** axe-core in the widget frame: no serious or critical violation. */
async function expectAccessible(module: string): Promise<void> {
  const frame = widgetFrame();
  if (!(await frame.evaluate(() => "axe" in window))) await frame.addScriptTag({ path: require.resolve("axe-core") });
  const violations = await frame.evaluate(async () => {
    const result = await (window as any).axe.run(document);
    if (result.passes.length === 0) return ["axe checked nothing"];
    return result.violations
      .filter((violation: { impact: string }) => violation.impact === "serious" || violation.impact === "critical")
      .map((violation: { id: string; nodes: { target: string[] }[] }) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
  });
  expect(violations, `axe on ${module}`).toEqual([]);
}

// Generous per-test time: the full suite runs many files at once on two cores.
describe("participant widget in Chromium", { timeout: 120_000 }, () => {
  it("mounts from an allowed host origin and shows the participant's level and XP", async () => {
    const frame = widgetFrame();
    const expected = await progress();
    await frame.getByTestId("level").first().waitFor({ timeout: FRAME_TIMEOUT });
    expect(await frame.getByTestId("level").first().textContent()).toContain(`Nível ${expected.level.number}`);
    expect(await frame.getByTestId("xp").first().textContent()).toContain(new Intl.NumberFormat("pt-BR").format(expected.xp.total));
    await screenshot("home");
    await expectAccessible("home");
    await open("profile");
    await frame.getByRole("heading", { name: "Saldos" }).waitFor({ timeout: FRAME_TIMEOUT });
    await screenshot("profile");
    await expectAccessible("profile");
  });

  it("checks in", async () => {
    const frame = await open("checkin");
    await frame.getByRole("button", { name: "Fazer check-in" }).click();
    await frame.getByTestId("checked-in").getByText("Check-in feito hoje").waitFor({ timeout: FRAME_TIMEOUT });
    const state = await api.request("GET", "/v1/me/checkin", { participant: PARTICIPANT });
    expect(state.body.claimedToday).toBe(true);
    await expectAccessible("checkin");
    // One day is singular in Portuguese, and a screen reader hears each day's state in Portuguese too.
    expect(state.body.streak).toBe(1);
    await frame.getByText("Sequência: 1 dia", { exact: true }).waitFor({ timeout: FRAME_TIMEOUT });
    const spoken = await frame.locator(".calendar .sr-only").allInnerTexts();
    expect(spoken.length).toBeGreaterThan(0);
    for (const text of spoken) expect(["resgatado", "disponível hoje", "bloqueado", "perdido"]).toContain(text);
  });

  it("sizes the frame to its content both ways: a short module after a long one leaves no empty panel", async () => {
    const frameHeight = () =>
      page
        .locator("iframe")
        .first()
        .evaluate((iframe) => iframe.getBoundingClientRect().height);
    const contentHeight = (frame: Frame) => frame.evaluate(() => document.body.getBoundingClientRect().height);
    const settled = async (frame: Frame) => {
      // The loader follows the widget's resize messages: wait until the frame matches the content.
      const deadline = Date.now() + FRAME_TIMEOUT;
      for (;;) {
        const [outer, inner] = [await frameHeight(), await contentHeight(frame)];
        if (Math.abs(outer - Math.max(200, inner)) <= 4 || Date.now() > deadline) return { outer, inner };
        await page.waitForTimeout(100);
      }
    };
    const store = await open("store");
    await store.locator("li.card[data-item]").nth(2).waitFor({ timeout: FRAME_TIMEOUT });
    const long = await settled(store);
    const referral = await open("referral");
    await referral.locator("strong.code").waitFor({ timeout: FRAME_TIMEOUT });
    const short = await settled(referral);
    expect(short.inner).toBeLessThan(long.inner);
    expect(short.outer).toBeLessThan(long.outer);
    expect(short.outer - Math.max(200, short.inner)).toBeLessThanOrEqual(4);
  });

  it("claims a completed mission", async () => {
    const frame = await open("missions");
    const mission = frame.locator('[data-mission="apostar-500"]');
    await mission.getByRole("button", { name: "Resgatar" }).waitFor({ timeout: FRAME_TIMEOUT });
    await screenshot("missions");
    await expectAccessible("missions");
    await mission.getByRole("button", { name: "Resgatar" }).click();
    await mission.getByText("Resgatado").waitFor({ timeout: FRAME_TIMEOUT });
    const missions = await api.request("GET", "/v1/me/missions", { participant: PARTICIPANT });
    expect(missions.body.data.find((m: { id: string }) => m.id === "apostar-500").claimed).toBe(true);
  });

  it("spins the wheel and lands on the slice the server chose", async () => {
    const frame = await open("wheel");
    await frame.getByRole("button", { name: "Girar" }).waitFor({ timeout: FRAME_TIMEOUT });
    await screenshot("wheel");
    await expectAccessible("wheel");
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/v1/me/wheel/spin") && r.request().method() === "POST", { timeout: FRAME_TIMEOUT }),
      frame.getByRole("button", { name: "Girar" }).click(),
    ]);
    const spin = await response.json();
    // Every label reads upright on the resting wheel: its own turn is within a quarter turn of level.
    const turns = await frame.locator("text.slice-label").evaluateAll((labels) =>
      labels.map((label) => {
        const { a, b } = (label as SVGTextElement).transform.baseVal.consolidate()!.matrix;
        return (Math.atan2(b, a) * 180) / Math.PI;
      }),
    );
    expect(turns.length).toBeGreaterThan(2);
    for (const turn of turns) expect(Math.abs(turn)).toBeLessThanOrEqual(90);
    const wheel = frame.getByTestId("wheel");
    await frame.waitForFunction((id) => document.querySelector("[data-testid=wheel]")?.getAttribute("data-landed") === id, spin.sliceId, {
      timeout: FRAME_TIMEOUT,
    });
    expect(await frame.getByTestId("wheel-result").textContent()).toContain(spin.label);
    // The drawing stopped with that slice under the pointer (top centre): its middle angle plus the rotation is a whole turn.
    const landedAngle = await wheel.evaluate((svg, id) => {
      const slices = [...svg.querySelectorAll("[data-slice]")].map((g) => g.getAttribute("data-slice"));
      const rotation = Number(/rotate\(([-\d.]+)deg\)/.exec((svg as SVGElement).style.transform)![1]);
      const middle = ((slices.indexOf(id) + 0.5) * 360) / slices.length;
      return (((middle + rotation) % 360) + 360) % 360;
    }, spin.sliceId);
    expect(Math.min(landedAngle, 360 - landedAngle)).toBeLessThan(0.5);

    // "Verify this spin": sealed while the server seed is in use; rotating reveals it and the browser recomputes the spin.
    const verify = frame.getByTestId("verify-spin");
    await verify.getByRole("button", { name: "Verificar este giro" }).click();
    await verify.getByRole("button", { name: "Revelar trocando a semente" }).click();
    await frame.waitForFunction(() => document.querySelector("[data-testid=verify-spin]")?.getAttribute("data-status") === "verified", undefined, {
      timeout: FRAME_TIMEOUT,
    });
    expect(await verify.textContent()).toContain("Giro verificado");
  });

  it("redeems a store item after confirming, and the balance drops", async () => {
    const before = await balance("coins");
    const frame = await open("store");
    const item = frame.locator('[data-item="store-bonus-10"]');
    await item.getByRole("button", { name: "Trocar" }).waitFor({ timeout: FRAME_TIMEOUT });
    await screenshot("store");
    await expectAccessible("store");
    await item.getByRole("button", { name: "Trocar" }).click();
    const dialog = frame.getByRole("alertdialog");
    await dialog.waitFor({ timeout: FRAME_TIMEOUT });
    await expectAccessible("store confirm");
    await dialog.getByRole("button", { name: "Confirmar" }).click();
    await frame.getByText("é seu").waitFor({ timeout: FRAME_TIMEOUT });
    expect(await balance("coins")).toBe(before - 1000);
    const shown = new Intl.NumberFormat("pt-BR").format(before - 1000);
    await frame.getByTestId("balance-coins").getByText(`${shown} Moedas`).waitFor({ timeout: FRAME_TIMEOUT });
    const messages = await page.evaluate(() => (window as any).messages);
    expect(messages).toContainEqual(expect.objectContaining({ type: "event", name: "store.redeemed" }));
  });

  it("redeems a promo code, says what it granted, and explains a used or unknown code", async () => {
    const created = await api.request("POST", "/v1/codes", { body: { code: "BEMVINDO50", reward: "coins:50", per_participant_limit: 1 } });
    expect(created.status, JSON.stringify(created.body)).toBeLessThan(300);
    const before = await balance("coins");
    const frame = await open("codes");
    const field = frame.getByLabel("Código promocional");
    await field.waitFor({ timeout: FRAME_TIMEOUT });
    await expectAccessible("codes");
    const redeem = (typed: string) => field.fill(typed).then(() => frame.getByRole("button", { name: "Resgatar código" }).click());

    await redeem("bemvindo50"); // any case
    const shown = new Intl.NumberFormat("pt-BR").format(50);
    await frame.getByRole("status").getByText(`Código resgatado! Você ganhou: ${shown} Moedas`).waitFor({ timeout: FRAME_TIMEOUT });
    expect(await balance("coins")).toBe(before + 50);
    expect(await page.evaluate(() => (window as any).messages)).toContainEqual(expect.objectContaining({ type: "event", name: "code.redeemed" }));

    await redeem("BEMVINDO50");
    await frame.getByRole("alert").getByText("Você já usou este código.").waitFor({ timeout: FRAME_TIMEOUT });
    await redeem("NAOEXISTE");
    await frame.getByRole("alert").getByText("Código desconhecido. Confira e tente de novo.").waitFor({ timeout: FRAME_TIMEOUT });
    await expectAccessible("codes (refused)");
    expect(await balance("coins")).toBe(before + 50);
  });

  it("asks the host for a new token when the token expires, and the next action works", async () => {
    const callsBefore = await page.evaluate(() => (window as any).tokenCalls);
    clock.set(new Date(clock.now().getTime() + 5 * 60_000)); // the 60-second token has expired
    const frame = await open("rewards");
    await frame.locator("li.card").first().waitFor({ timeout: FRAME_TIMEOUT });
    expect(await page.evaluate(() => (window as any).tokenCalls)).toBeGreaterThan(callsBefore);
    await expectAccessible("rewards");
    // A reward's state is in the participant's language, not the API's enum value.
    const states = await frame.locator("li.card p.muted").allInnerTexts();
    for (const text of states) expect(text).not.toMatch(/granted|pending_delivery|delivered|delivery_failed|expired/);
  });

  it("passes axe on every other module", async () => {
    for (const module of ["currencies", "leaderboard", "notifications", "cashback", "referral", "badges", "faq"]) {
      const frame = await open(module);
      await frame.waitForFunction(() => !document.querySelector('[role="status"][class="muted"]'), undefined, { timeout: FRAME_TIMEOUT });
      if (module === "leaderboard") await frame.locator("[data-tournament]").first().waitFor({ timeout: FRAME_TIMEOUT }); // the demo club's tournaments
      await expectAccessible(module);
    }
  });

  it("takes the desktop screenshots", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await open("home");
    await widgetFrame().getByTestId("level").first().waitFor({ timeout: FRAME_TIMEOUT });
    await screenshot("home");
    for (const [module, ready] of [
      ["profile", "Saldos"],
      ["missions", "Aposte R$ 500 na semana"],
      ["wheel", "Girar"],
      ["store", "Seu saldo"],
    ] as const) {
      const frame = await open(module);
      await frame.getByText(ready).first().waitFor({ timeout: FRAME_TIMEOUT });
      await screenshot(module);
    }
  });

  it("speaks English, draws a light scheme and respects reduced motion when asked, still accessible", async () => {
    const english = await context.newPage();
    await english.setViewportSize({ width: 320, height: 700 });
    await english.emulateMedia({ reducedMotion: "reduce", colorScheme: "light" });
    await english.goto(`http://localhost:${hostPort}/?locale=en&scheme=light`);
    const frame = await waitForFrame(english);
    await frame.getByTestId("level").first().waitFor({ timeout: FRAME_TIMEOUT });
    expect(await frame.getByTestId("level").first().textContent()).toContain("Level");
    expect(await frame.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(248, 250, 252)");
    const previous = page;
    page = english;
    try {
      await expectAccessible("home (en, light)");
      // With reduced motion the wheel never animates (it would jump straight to the server's slice).
      const wheel = await open("wheel");
      await wheel.getByRole("button", { name: "Spin" }).waitFor({ timeout: FRAME_TIMEOUT });
      expect(await wheel.getByTestId("wheel").evaluate((svg) => (svg as SVGElement).style.transition)).toMatch(/^none/);
    } finally {
      page = previous;
      await english.close();
    }
  });

  it("shows a clear error, not a blank frame, on a host origin outside allowedOrigins", async () => {
    const refused = await context.newPage();
    await refused.goto(`http://127.0.0.1:${hostPort}/`);
    const frame = await waitForFrame(refused);
    const alert = frame.getByTestId("origin-refused");
    await alert.waitFor({ timeout: FRAME_TIMEOUT });
    expect(await alert.textContent()).toContain("não tem permissão");
    expect(await alert.textContent()).toContain(`http://127.0.0.1:${hostPort}`);
    const messages = await refused.evaluate(() => (window as any).messages);
    expect(messages).toContainEqual(expect.objectContaining({ type: "error", code: "origin_not_allowed" }));
    await refused.close();
  });
});
