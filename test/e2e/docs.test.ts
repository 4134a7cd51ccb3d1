import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { envFor, freePort, startServe, type ClubeServer } from "./clube-command.js";

/**
 * The API reference at /docs, opened in headless Chromium as a developer
 * would open the URL `npm start` prints: Redoc renders the contract from this
 * server alone (no CDN: the reference has to work offline and inside a
 * client's private network), with the guides first, and a developer finds an
 * operation by searching and copies its @clube/node sample.
 */

const VIEWPORT = { width: 1280, height: 900 };
// Redoc parses the whole contract before it draws: seconds on an idle machine, far more on a busy shared one.
const RENDER_TIMEOUT_MS = 120_000;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

interface OpenApiDocument {
  tags: { name: string; "x-traitTag"?: boolean }[];
  "x-tagGroups": { name: string; tags: string[] }[];
  paths: Record<string, Record<string, { operationId?: string; "x-codeSamples"?: { label: string; source: string }[] }>>;
}

describe("API reference page (/docs) in Chromium", () => {
  let target: TestDatabase;
  let server: ClubeServer;
  let browser: Browser;
  let page: Page;
  let contract: OpenApiDocument;
  const requested: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    target = await createTestDatabase("sqlite");
    server = await startServe({ ...envFor(target), PORT: await freePort() });
    contract = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: VIEWPORT });
    page = await context.newPage();
    // What Redoc's copy button puts on the clipboard: it copies the selection of a scratch
    // textarea, so the `copy` event's target holds the text (headless Chromium has no system clipboard).
    await page.addInitScript(() => {
      const copied: string[] = [];
      (window as unknown as { copied: string[] }).copied = copied;
      document.addEventListener("copy", (event) => {
        const target = event.target as HTMLTextAreaElement | null;
        const text = target && typeof target.value === "string" ? target.value.slice(target.selectionStart, target.selectionEnd) : "";
        copied.push(text || String(document.getSelection()));
      });
    });
    page.on("request", (request) => requested.push(request.url()));
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(server.docsUrl);
    await page.getByPlaceholder("Search...").waitFor({ timeout: RENDER_TIMEOUT_MS });
  }, RENDER_TIMEOUT_MS + 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await target?.drop();
  });

  it("lists the guides first, then the tags in the order a user integrates", async () => {
    const groups = contract["x-tagGroups"].map((group) => group.name);
    expect(groups[0]).toBe("Guides");
    expect(groups.indexOf("Integrate")).toBeLessThan(groups.indexOf("Manage"));
    const integrate = contract["x-tagGroups"].find((group) => group.name === "Integrate")!.tags;
    expect(integrate.slice(0, 4)).toEqual(["Participants", "Events", "Deliveries", "Redemptions"]);
    // Every tag is in a group: Redoc leaves out a tag no group names.
    expect(new Set(contract["x-tagGroups"].flatMap((group) => group.tags))).toEqual(new Set(contract.tags.map((tag) => tag.name)));

    const menu = page.locator("ul[role=menu] label");
    const menuText = (await menu.allInnerTexts()).join("\n");
    for (const guide of [
      "Getting started",
      "Webhooks and signatures",
      "Participant tokens and the widget",
      "The club configuration",
      "Testing with test clocks",
    ]) {
      expect(menuText).toContain(guide);
    }
    expect(pageErrors).toEqual([]);
  });

  it("finds the redemption operation by search and copies its @clube/node sample", async () => {
    await page.getByPlaceholder("Search...").fill("redemption");
    const result = page.locator('[data-role="search:results"] li, [role=search] li').filter({ hasText: "Redeem a reward for a participant" }).first();
    await result.waitFor({ timeout: 30_000 });
    await result.click();

    const operation = page.locator('[id="operation/Redemptions_create"]');
    await operation.waitFor({ timeout: 30_000 });
    await operation.getByRole("tab", { name: "@clube/node" }).click();
    const panel = operation.locator("[role=tabpanel]:visible").filter({ hasText: "@clube/node" }).first();
    await panel.getByText("Copy", { exact: true }).click();

    const copied = await page.evaluate(() => (window as unknown as { copied: string[] }).copied.at(-1) ?? "");
    const expected = contract.paths["/v1/redemptions"].post["x-codeSamples"]!.find((sample) => sample.label === "@clube/node")!.source;
    expect(copied.trim()).toBe(expected.trim());
    expect(copied).toContain('import { Clube } from "@clube/node";');
    expect(copied).toContain("clube.redemptions.create(");
  });

  it('finds schemas by search too: "redemption" lists the Redemption schema, which opens with its fields', async () => {
    const search = page.getByPlaceholder("Search...");
    await search.fill("");
    await search.fill("redemption");
    const results = page.locator('[data-role="search:results"] li, [role=search] li');
    // Each schema result is its kind (shown in capitals by CSS) and its name.
    const schema = results.filter({ hasText: /^schema\s*Redemption$/i }).first();
    await schema.waitFor({ timeout: 30_000 });
    // Operations and schemas in one list.
    expect(await results.filter({ hasText: "Redeem a reward for a participant" }).count()).toBeGreaterThan(0);
    expect(await results.filter({ hasText: /^schema\s*RedemptionRequest$/i }).count()).toBe(1);
    await schema.click();
    const section = page.locator('[id$="/Redemption"]').first();
    await section.waitFor({ timeout: 30_000 });
    expect(await section.getAttribute("id")).toMatch(/schema\/Redemption$/);
    // The schema's own fields, as the contract names them.
    for (const field of ["balance_after", "cost"]) await section.getByText(field, { exact: true }).first().waitFor({ timeout: 30_000 });
    expect(pageErrors).toEqual([]);
  });

  it("loads everything from this machine (no CDN)", () => {
    expect(requested).toContain(`${server.url}/openapi.json`);
    const offMachine = requested.filter((url) => !url.startsWith("data:") && !url.startsWith("blob:") && !LOOPBACK_HOSTS.has(new URL(url).hostname));
    expect(offMachine).toEqual([]);
  });

  it("serves /openapi.json compressed and readable from any origin", async () => {
    for (const encoding of ["br", "gzip"]) {
      const response = await fetch(`${server.url}/openapi.json`, { headers: { "Accept-Encoding": encoding, Origin: "https://editor.example" } });
      expect(response.headers.get("content-encoding")).toBe(encoding);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("vary")).toMatch(/Accept-Encoding/i);
      // fetch decodes the body: the document arrives whole.
      expect(((await response.json()) as OpenApiDocument).paths["/v1/redemptions"]).toBeDefined();
    }
  });

  it("saves a screenshot of the reference", async ({ annotate }) => {
    const file = join(await mkdtemp(join(tmpdir(), "clube-docs-")), "docs.png");
    await page.screenshot({ path: file });
    const png = await readFile(file);
    // PNG signature, then the IHDR chunk's width and height.
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) }).toEqual(VIEWPORT);
    await annotate(`screenshot: ${file}`);
  });
});
