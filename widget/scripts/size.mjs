// The widget's bundle budget, gzipped: loader ≤ 3 kB, app (html + js + css) ≤ 60 kB.
// Prints the sizes; exits 1 over budget (npm test runs it after the build).
import { readFile } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const gz = async (file) => gzipSync(await readFile(dist + file), { level: 9 }).length;

export async function measureWidget() {
  const loader = await gz("loader.js");
  const app = (await gz("app.html")) + (await gz("app.js")) + (await gz("app.css"));
  return { loader, app };
}

export const BUDGET = { loader: 3 * 1024, app: 60 * 1024 };

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = await measureWidget();
  let over = false;
  for (const part of ["loader", "app"]) {
    const ok = sizes[part] <= BUDGET[part];
    over ||= !ok;
    console.log(`widget ${part}: ${(sizes[part] / 1024).toFixed(2)} kB gzipped (budget ${BUDGET[part] / 1024} kB) ${ok ? "ok" : "OVER BUDGET"}`);
  }
  process.exit(over ? 1 : 0);
}
