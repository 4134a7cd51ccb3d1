import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { chromium, type Browser, type Page } from "playwright-core";

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

/**
 * Saves a screenshot of the page's viewport as `<name>-<width>x<height>.png` in
 * `dir` and answers how many distinct colours it holds (sampled), so a test can
 * tell a rendered page from a blank one.
 */
export async function savedScreenshot(page: Page, dir: URL, name: string): Promise<number> {
  const png = await page.screenshot({ fullPage: false });
  await mkdir(dir, { recursive: true });
  const { width, height } = page.viewportSize()!;
  await writeFile(new URL(`${name}-${width}x${height}.png`, dir), png);
  return page.evaluate(async (b64) => {
    const image = new Image();
    image.src = `data:image/png;base64,${b64}`;
    await image.decode();
    const canvas = document.createElement("canvas");
    canvas.width = image.width;
    canvas.height = image.height;
    const ctx = canvas.getContext("2d")!;
    ctx.drawImage(image, 0, 0);
    const data = ctx.getImageData(0, 0, image.width, image.height).data;
    const seen = new Set<number>();
    for (let i = 0; i < data.length; i += 4 * 7) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
    return seen.size;
  }, png.toString("base64"));
}

/**
 * The share (0..1) of pixels that differ between two PNG screenshots of the
 * same size, compared in `page` (any page: it only decodes the images), so a
 * test can tell two renderings apart without a pixel-diff dependency.
 * Pixels count as different when a channel differs by more than 16 (PNG
 * encoding and anti-aliasing noise stays under it).
 */
export async function pixelDifference(page: Page, a: Buffer, b: Buffer): Promise<number> {
  return page.evaluate(
    async ([first, second]) => {
      const pixels = async (b64: string) => {
        const image = new Image();
        image.src = `data:image/png;base64,${b64}`;
        await image.decode();
        const canvas = document.createElement("canvas");
        canvas.width = image.width;
        canvas.height = image.height;
        const ctx = canvas.getContext("2d")!;
        ctx.drawImage(image, 0, 0);
        return ctx.getImageData(0, 0, image.width, image.height);
      };
      const [x, y] = [await pixels(first), await pixels(second)];
      if (x.width !== y.width || x.height !== y.height) return 1;
      let differing = 0;
      for (let i = 0; i < x.data.length; i += 4) {
        if (Math.abs(x.data[i] - y.data[i]) > 16 || Math.abs(x.data[i + 1] - y.data[i + 1]) > 16 || Math.abs(x.data[i + 2] - y.data[i + 2]) > 16) differing++;
      }
      return differing / (x.width * x.height);
    },
    [a.toString("base64"), b.toString("base64")] as const,
  );
}
