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
 * would open the URL `npm start` prints: Swagger UI must render every
 * operation of the contract, grouped by tag, from this server alone (no CDN:
 * the reference has to work offline and inside a client's private network).
 */

const VIEWPORT = { width: 1280, height: 900 };
const RENDER_TIMEOUT_MS = 60_000; // Swagger UI parses a ~700 kB document; ~10 s on a busy 2-core machine
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

interface OpenApiDocument {
  tags: { name: string }[];
  paths: Record<string, Record<string, unknown>>;
  webhooks: Record<string, Record<string, unknown>>;
}

/** Operations under `paths` and under `webhooks`: Swagger UI draws one block for each. */
function operationCount(document: OpenApiDocument): number {
  const count = (items: Record<string, Record<string, unknown>>) =>
    Object.values(items).reduce((sum, item) => sum + Object.keys(item).filter((key) => HTTP_METHODS.has(key)).length, 0);
  return count(document.paths) + count(document.webhooks);
}

describe("API reference page (/docs) in Chromium", () => {
  let target: TestDatabase;
  let server: ClubeServer;
  let browser: Browser;
  let page: Page;
  const requested: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    target = await createTestDatabase("sqlite");
    server = await startServe({ ...envFor(target), PORT: await freePort() });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: VIEWPORT });
    page.on("request", (request) => requested.push(request.url()));
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(server.docsUrl);
    await page.locator(".opblock").first().waitFor({ timeout: RENDER_TIMEOUT_MS });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await target?.drop();
  });

  it("renders one block per operation and webhook of the contract, grouped in the contract's tags", async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as OpenApiDocument;
    const tags = await page.locator(".opblock-tag").evaluateAll((headings) => headings.map((heading) => heading.getAttribute("data-tag")));
    expect(tags).toEqual(document.tags.map((tag) => tag.name));
    expect(tags).toEqual(expect.arrayContaining(["Participants", "Events", "Me", "Webhook endpoints"]));
    expect(await page.locator(".opblock").count()).toBe(operationCount(document));

    const sendEvent = page.locator('.opblock-tag-section:has([data-tag="Events"]) .opblock-post .opblock-summary-path[data-path="/v1/events"]');
    expect(await sendEvent.count()).toBe(1);
    expect(pageErrors).toEqual([]);
  });

  it("loads everything from this machine (no CDN)", () => {
    expect(requested).toContain(`${server.url}/openapi.json`);
    const offMachine = requested.filter((url) => !url.startsWith("data:") && !LOOPBACK_HOSTS.has(new URL(url).hostname));
    expect(offMachine).toEqual([]);
  });

  it("saves a screenshot of the Participants operations", async ({ annotate }) => {
    await page.locator('[data-tag="Participants"]').scrollIntoViewIfNeeded();
    const file = join(await mkdtemp(join(tmpdir(), "clube-docs-")), "docs.png");
    await page.screenshot({ path: file });
    const png = await readFile(file);
    // PNG signature, then the IHDR chunk's width and height.
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) }).toEqual(VIEWPORT);
    await annotate(`screenshot: ${file}`);
  });
});
