import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/**
 * Headless Chromium for tests that look at a page as a person would. It is
 * Debian's `chromium` package (.ci/run installs it), driven by playwright-core
 * through `executablePath`: playwright never downloads a browser of its own.
 */

/** The real binary starts faster than the /usr/bin/chromium shell wrapper, which also prints a warning. */
const EXECUTABLES = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"];

/**
 * No sandbox (tests run as root in containers), no GPU, and nothing that
 * phones home on its own (QUIC, background networking, component updates,
 * sync), so any request a page makes is one the page itself asked for.
 */
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function chromiumExecutable(): string {
  const found = EXECUTABLES.find((path) => existsSync(path));
  if (!found) throw new Error(`Chromium is not installed (looked for ${EXECUTABLES.join(", ")}): apt-get install -y chromium`);
  return found;
}

/** Launches headless Chromium; close it with `browser.close()` in `afterAll`. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumExecutable(), args: FLAGS });
}
