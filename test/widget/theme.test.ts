import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { readFile } from "node:fs/promises";
import type { Browser, BrowserContext, Frame, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWidget } from "../../widget/scripts/build.mjs";
import { measureWidget, BUDGET } from "../../widget/scripts/size.mjs";
import { launchChromium, pixelDifference, savedScreenshot } from "../support/chromium.js";
import { demoConfig, startApi, type TestApi } from "../support/api.js";

/**
 * The whole theme of the club configuration, seen in Chromium: two clubs on
 * one real server with the same colours but different theme options (one
 * `stars`/`bevel`/`spades-3d`/`3d`, one `image`/`flat`/`gems`/`flat`) and
 * different module cards (group, layout, tone, illustration, cta). Each is
 * embedded by a host page on another origin, in pt-BR and in English; every
 * option has to show, the screenshots have to differ, axe finds nothing
 * serious, and the host page sees no failed request and no console warning.
 */
const require = createRequire(import.meta.url);
const SCREENSHOTS = new URL("./screenshots/", import.meta.url);
const FRAME_TIMEOUT = 30_000;
const VIEWPORT = { width: 375, height: 812 };

type ClubName = "stars" | "image";
interface Club {
  key: string;
  participant: string;
}

let api: TestApi;
let hostServer: Server;
let hostPort: number;
let browser: Browser;
let context: BrowserContext;
const clubs = {} as Record<ClubName, Club>;

/** A small club logo as a `data:` URL (what `logoUrl` allows besides an image URL). */
const LOGO = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="96" height="32"><rect width="96" height="32" rx="8" fill="#f5b301"/><circle cx="16" cy="16" r="9" fill="#7c3aed"/></svg>')}`;
/** The `image` club's background picture, served by the host's own site. */
const BACKDROP = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="800" viewBox="0 0 400 800">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#0f766e"/><stop offset="1" stop-color="#7c2d12"/></linearGradient></defs>
<rect width="400" height="800" fill="url(#g)"/><circle cx="320" cy="120" r="90" fill="#fbbf24" opacity=".6"/><path d="M0 620 Q200 520 400 640 V800 H0Z" fill="#134e4a"/></svg>`;

/** Theme options each club differs by; the colours stay the demo club's, so every difference comes from these. */
const THEMES: Record<ClubName, Record<string, unknown>> = {
  stars: { background: "stars", buttonStyle: "bevel", badgeSet: "spades-3d", illustrationStyle: "3d", cardStyle: "gradient", logoUrl: LOGO },
  image: { background: "image", buttonStyle: "flat", badgeSet: "gems", illustrationStyle: "flat", cardStyle: "flat" },
};

const CARDS: Record<ClubName, Record<string, unknown>[]> = {
  stars: [
    { module: "checkin", title: "Check-in diário", subtitle: "Volte todo dia e ganhe", group: "hoje", tone: "ouro", illustration: "calendar", cta: "Abrir" },
    { module: "codes", title: "Códigos", subtitle: "Tem um código? Use aqui", group: "hoje", layout: "row", tone: "gelo", illustration: "ticket" },
    { module: "wheel", title: "Roleta grátis", subtitle: "Um giro por dia", group: "jogar", tone: "fogo", illustration: "wheel", cta: "Girar agora" },
    { module: "missions", title: "Missões", subtitle: "Complete e ganhe prêmios", group: "jogar", tone: "elixir", illustration: "target" },
    { module: "store", title: "Loja", subtitle: "Troque suas moedas", group: "resgate", layout: "row", tone: "tesouro", illustration: "bag", cta: "Ver loja" },
  ],
  image: [
    { module: "store", title: "Loja", subtitle: "Troque suas moedas", layout: "row", tone: "real", illustration: "gift", cta: "Trocar" },
    { module: "missions", title: "Missões", subtitle: "Complete e ganhe prêmios", layout: "row", tone: "aco", illustration: "trophy" },
    { module: "checkin", title: "Check-in diário", subtitle: "Volte todo dia e ganhe", layout: "row", tone: "princesa", illustration: "star" },
  ],
};

function hostPage(apiUrl: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="/favicon.svg">
<style>body{margin:0;background:#fff}</style></head><body><div id="clube"></div>
<script src="${apiUrl}/widget/loader.js"></script>
<script>
  const query = new URLSearchParams(location.search);
  window.widget = ClubeWidget.mount(document.getElementById("clube"), {
    baseUrl: ${JSON.stringify(apiUrl)},
    locale: query.get("locale") || "pt-BR",
    getToken: () => fetch("/token?club=" + query.get("club"), { method: "POST" }).then((r) => r.text()),
  });
</script></body></html>`;
}

beforeAll(async () => {
  await buildWidget();
  api = await startApi("sqlite");
  const other = await api.createOtherClub();
  clubs.stars = { key: api.keys.test, participant: "theme_ana" };
  clubs.image = { key: other.keys.test, participant: "theme_bia" };

  // The host's site: its page, its token endpoint, its pictures; anything else is a 404, as on a real site.
  hostServer = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://host");
    if (req.method === "POST" && url.pathname === "/token") {
      const club = clubs[url.searchParams.get("club") as ClubName];
      const issued = await api.request("POST", `/v1/participants/${club.participant}/token`, { key: club.key, body: { ttl_seconds: 600 } });
      res.writeHead(issued.status, { "Content-Type": "text/plain" }).end(issued.body.token ?? "");
    } else if (url.pathname === "/") {
      res.writeHead(200, { "Content-Type": "text/html" }).end(hostPage(api.url));
    } else if (url.pathname === "/backdrop.svg" || url.pathname === "/favicon.svg") {
      res.writeHead(200, { "Content-Type": "image/svg+xml" }).end(BACKDROP);
    } else {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
    }
  });
  await new Promise<void>((resolve) => hostServer.listen(0, "127.0.0.1", resolve));
  hostPort = (hostServer.address() as AddressInfo).port;
  const origin = `http://localhost:${hostPort}`;

  for (const name of ["stars", "image"] as const) {
    const { key, participant } = clubs[name];
    const config = await demoConfig();
    config.allowedOrigins = [origin];
    config.theme = { ...config.theme, ...THEMES[name], ...(name === "image" ? { backgroundImage: `${origin}/backdrop.svg` } : {}) };
    config.moduleCards = CARDS[name];
    const draft = await api.request("PUT", "/v1/config/draft", { key, body: config });
    expect(draft.status, JSON.stringify(draft.body)).toBeLessThan(300);
    expect((await api.request("POST", "/v1/config/publish", { key, body: {} })).status).toBe(200);
    expect((await api.request("POST", "/v1/participants", { key, body: { external_id: participant, display_name: "Ana" } })).status).toBeLessThan(300);
    // A first deposit: XP, coins and the `primeiro-deposito` badge.
    const sent = await api.request("POST", "/v1/events", { key, body: { participant, type: "deposit.confirmed", id: `${name}-dep-1`, amount: "150.00" } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  }

  // The `codes` card shows only while the club has an active promotional code.
  expect((await api.request("POST", "/v1/codes", { body: { code: "TEMA10", reward: "coins:10" } })).status).toBeLessThan(300);

  browser = await launchChromium();
  // axe-core is injected by the test, so the app's CSP is bypassed for it.
  context = await browser.newContext({ viewport: VIEWPORT, bypassCSP: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (hostServer ? hostServer.close(() => resolve()) : resolve()));
  await api?.close();
});

interface Opened {
  page: Page;
  frame: Frame;
  /** Console messages of every frame that are warnings or errors, and requests that failed or answered ≥ 400. */
  problems: string[];
}

async function openClub(club: ClubName, locale: string): Promise<Opened> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "warning" || message.type() === "error") problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
  });
  await page.goto(`http://localhost:${hostPort}/?club=${club}&locale=${locale}`);
  const frame = await waitForFrame(page);
  await frame.getByTestId("level").first().waitFor({ timeout: FRAME_TIMEOUT });
  // Every picture on screen has arrived (logo, background), so the screenshot and the request log are complete.
  await frame.waitForFunction(() => [...document.images].every((image) => image.complete), undefined, { timeout: FRAME_TIMEOUT });
  return { page, frame, problems };
}

function waitForFrame(page: Page): Promise<Frame> {
  return new Promise<Frame>((resolve, reject) => {
    const deadline = Date.now() + FRAME_TIMEOUT;
    const look = () => {
      const found = page.frames().find((candidate) => candidate.url().includes("/widget/app.html"));
      if (found) resolve(found);
      else if (Date.now() > deadline) reject(new Error("no widget frame"));
      else setTimeout(look, 50);
    };
    look();
  });
}

async function expectAccessible(frame: Frame, what: string): Promise<void> {
  if (!(await frame.evaluate(() => "axe" in window))) await frame.addScriptTag({ path: require.resolve("axe-core") });
  const violations = await frame.evaluate(async () => {
    const result = await (window as any).axe.run(document);
    if (result.passes.length === 0) return ["axe checked nothing"];
    return result.violations
      .filter((violation: { impact: string }) => violation.impact === "serious" || violation.impact === "critical")
      .map((violation: { id: string; nodes: { target: string[] }[] }) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`);
  });
  expect(violations, `axe on ${what}`).toEqual([]);
}

async function openModule(opened: Opened, module: string, ready: string): Promise<void> {
  await opened.page.evaluate((name) => (window as any).widget.open(name), module);
  await opened.frame.locator(ready).first().waitFor({ timeout: FRAME_TIMEOUT });
}

/** What the computed style of the first match says. */
function styleOf(frame: Frame, selector: string, property: string): Promise<string> {
  return frame
    .locator(selector)
    .first()
    .evaluate((element, name) => getComputedStyle(element).getPropertyValue(name), property);
}

describe("the club theme in the widget", { timeout: 120_000 }, () => {
  const shots: Partial<Record<ClubName, string>> = {};

  it("draws the stars/bevel/spades-3d/3d club: star field, bevel buttons, 3D art, grouped cards with tones and rows", async () => {
    const opened = await openClub("stars", "pt-BR");
    const { frame } = opened;
    const root = await frame.evaluate(() => ({ ...document.documentElement.dataset }));
    expect(root).toMatchObject({ background: "stars", buttonStyle: "bevel", badgeSet: "spades-3d", illustrationStyle: "3d" });
    expect(await styleOf(frame, "body", "background-image")).toContain("radial-gradient");
    // Bevel: a lit gradient face and a raised edge.
    expect(await styleOf(frame, ".card.module .btn.primary", "background-image")).toContain("linear-gradient");
    expect(await styleOf(frame, ".card.module .btn.primary", "box-shadow")).not.toBe("none");
    // The logo from `logoUrl`.
    expect(await frame.locator("header img.logo").evaluate((image) => (image as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    // Badges and illustrations in their sets and styles.
    expect(await frame.locator("svg.badge-spades-3d.art-3d").count()).toBeGreaterThan(0);
    expect(await frame.locator(".card.module svg.ill.art-3d").count()).toBe(5);
    // Groups in the day's order, each headed in the participant's language; cards keep their cta.
    expect(await frame.locator("[data-group]").evaluateAll((sections) => sections.map((s) => s.getAttribute("data-group")))).toEqual([
      "hoje",
      "jogar",
      "resgate",
    ]);
    expect(await frame.locator(".group-title").allInnerTexts()).toEqual(["HOJE", "JOGAR", "RESGATAR"]);
    expect(await frame.locator('[data-module="wheel"] .btn').innerText()).toBe("Girar agora");
    expect(await frame.locator('[data-module="missions"] .btn').innerText()).toBe("Saiba mais");
    // A `row` card spans its group's width and lays out side by side; a `grid` card is a tile.
    const width = (selector: string) => frame.locator(selector).evaluate((element) => element.getBoundingClientRect().width);
    expect(await width('[data-module="codes"]')).toBeCloseTo(await width('[data-group="hoje"] ul'), 0);
    expect(await styleOf(frame, '[data-module="codes"]', "flex-direction")).toBe("row");
    expect(await width('[data-module="wheel"]')).toBeLessThan((await width('[data-group="jogar"] ul')) * 0.6);
    // Tones colour the card's edge (ouro, fogo).
    expect(await styleOf(frame, '[data-module="checkin"]', "border-top-color")).toBe("rgb(245, 179, 1)");
    expect(await styleOf(frame, '[data-module="wheel"]', "border-top-color")).toBe("rgb(239, 68, 68)");

    shots.stars = await screenshot(opened, "theme-stars-home");
    await expectAccessible(frame, "stars home (pt-BR)");
    await openModule(opened, "badges", "[data-badge] svg.badge-spades-3d");
    await expectAccessible(frame, "stars badges (pt-BR)");
    await openModule(opened, "store", "li.card[data-item] svg.ill.art-3d");
    await screenshot(opened, "theme-stars-store");
    await expectAccessible(frame, "stars store (pt-BR)");
    expect(opened.problems).toEqual([]);
    await opened.page.close();
  });

  it("draws the image/flat/gems/flat club: its picture behind, flat buttons, flat art, cards as rows", async () => {
    const opened = await openClub("image", "pt-BR");
    const { frame } = opened;
    const root = await frame.evaluate(() => ({ ...document.documentElement.dataset }));
    expect(root).toMatchObject({ background: "image", buttonStyle: "flat", badgeSet: "gems", illustrationStyle: "flat" });
    expect(await styleOf(frame, "body", "background-image")).toContain(`http://localhost:${hostPort}/backdrop.svg`);
    expect(await styleOf(frame, ".card.module .btn.primary", "background-image")).toBe("none");
    expect(await styleOf(frame, ".card.module .btn.primary", "box-shadow")).toBe("none");
    expect(await frame.locator("header img.logo").count()).toBe(0);
    expect(await frame.locator("svg.badge-gems.art-flat").count()).toBeGreaterThan(0);
    expect(await frame.locator(".card.module svg.ill.art-flat").count()).toBe(3);
    expect(await frame.locator("svg.art-3d").count()).toBe(0);
    // No group: one list without headings, every card a row, in the configured order.
    expect(await frame.locator(".group-title").count()).toBe(0);
    expect(await frame.locator(".card.module").evaluateAll((cards) => cards.map((card) => card.getAttribute("data-module")))).toEqual([
      "store",
      "missions",
      "checkin",
    ]);
    expect(await frame.locator(".card.module.layout-row").count()).toBe(3);
    expect(await styleOf(frame, '[data-module="store"]', "border-top-color")).toBe("rgb(37, 99, 235)");

    shots.image = await screenshot(opened, "theme-image-home");
    await expectAccessible(frame, "image home (pt-BR)");
    await openModule(opened, "badges", "[data-badge] svg.badge-gems");
    await expectAccessible(frame, "image badges (pt-BR)");
    await openModule(opened, "store", "li.card[data-item] svg.ill.art-flat");
    await screenshot(opened, "theme-image-store");
    await expectAccessible(frame, "image store (pt-BR)");
    expect(opened.problems).toEqual([]);
    await opened.page.close();
  });

  it("gives the two clubs visibly different screenshots", async ({ annotate }) => {
    expect(shots.stars && shots.image, "both home screenshots were taken").toBeTruthy();
    const page = await context.newPage();
    try {
      const differing = await pixelDifference(page, await readFile(shots.stars!), await readFile(shots.image!));
      // Same colours, same participant data: the share of pixels that differ comes from the theme options alone.
      expect(differing).toBeGreaterThan(0.25);
      await annotate(`${(differing * 100).toFixed(1)} % of the home screen's pixels differ`);
    } finally {
      await page.close();
    }
  });

  it("is accessible in English too, with the groups named in English, and still quiet on the host page", async () => {
    for (const club of ["stars", "image"] as const) {
      const opened = await openClub(club, "en");
      expect(await opened.frame.getByTestId("level").first().textContent()).toContain("Level");
      if (club === "stars") expect(await opened.frame.locator(".group-title").allInnerTexts()).toEqual(["TODAY", "PLAY", "REDEEM"]);
      await expectAccessible(opened.frame, `${club} home (en)`);
      await openModule(opened, "profile", "[data-testid=profile] svg.badge");
      await expectAccessible(opened.frame, `${club} profile (en)`);
      await screenshot(opened, `theme-${club}-profile-en`);
      expect(opened.problems).toEqual([]);
      await opened.page.close();
    }
  });

  it("has browsers keep each participant's club view apart (one URL for every club: the cache keys it by the token too)", async () => {
    const view = await api.request("GET", "/v1/me/config", { participant: clubs.stars.participant });
    expect(view.status).toBe(200);
    expect(view.headers.get("cache-control")).toContain("private");
    expect(view.headers.get("vary")).toMatch(/\bAuthorization\b/i);
  });

  it("stays within the widget's size budget with the bundled artwork", async () => {
    const sizes = await measureWidget();
    expect(sizes.app).toBeLessThanOrEqual(BUDGET.app);
    expect(sizes.loader).toBeLessThanOrEqual(BUDGET.loader);
  });
});

/** Saves the page's screenshot under test/widget/screenshots, checks it is not blank, and answers its path. */
async function screenshot(opened: Opened, name: string): Promise<string> {
  const colours = await savedScreenshot(opened.page, SCREENSHOTS, name);
  expect(colours, `${name} screenshot looks blank`).toBeGreaterThan(20);
  return new URL(`${name}-${VIEWPORT.width}x${VIEWPORT.height}.png`, SCREENSHOTS).pathname;
}
