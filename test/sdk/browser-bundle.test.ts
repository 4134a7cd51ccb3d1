// The browser SDK must bundle for browsers (no Node built-ins) within its
// size budget; sdk-browser/scripts/size.mjs fails on either.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { expect, it } from "vitest";

const script = fileURLToPath(new URL("../../sdk-browser/scripts/size.mjs", import.meta.url));

it("bundles for the browser platform within 10 kB gzipped", async () => {
  const { stdout } = await promisify(execFile)(process.execPath, [script]);
  const gzipped = /gzipped:\s+[\d.]+ kB \((\d+) B\)/.exec(stdout);
  expect(gzipped, stdout).not.toBeNull();
  expect(Number(gzipped![1])).toBeLessThanOrEqual(10 * 1024);
});
