import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { launchChromium } from "../support/chromium.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { envFor, freePort, startServe, type ClubeServer } from "../e2e/clube-command.js";

/**
 * The widget demo page that `npm start` prints (`/widget/demo`), opened in
 * Chromium as a newcomer would: a host page and the widget in its frame, both
 * from `clube serve`. Nothing it loads may fail (no 404, not even the
 * favicon) and nothing may be written to the console as a warning or error,
 * by the host page or by the widget.
 */
let target: TestDatabase;
let server: ClubeServer;
let browser: Browser;

beforeAll(async () => {
  target = await createTestDatabase("sqlite");
  server = await startServe({ ...envFor(target), PORT: await freePort() });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await target?.drop();
});

function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "warning" || message.type() === "error") problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`));
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
  });
  return problems;
}

it("shows the demo participant with no failed request and no console warning", { timeout: 120_000 }, async () => {
  expect(server.demo, "a fresh database gets the demo club").not.toBeNull();
  const page = await browser.newPage({ viewport: { width: 375, height: 812 } });
  const problems = watch(page);
  await page.goto(`${server.url}/widget/demo`);
  const frame = page.frameLocator("iframe");
  await frame.getByTestId("level").first().waitFor({ timeout: 60_000 });
  // A module and back: more requests, the same silence.
  await frame.getByRole("button", { name: /Loja/ }).first().click();
  await frame.locator("li.card[data-item]").first().waitFor({ timeout: 30_000 });
  await frame.getByRole("button", { name: "Voltar" }).click();
  await frame.getByTestId("level").first().waitFor({ timeout: 30_000 });
  // The favicon request, if any, is made once the page has loaded.
  await page.waitForLoadState("networkidle");
  expect(problems).toEqual([]);
  await page.close();
});
