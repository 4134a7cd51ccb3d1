// Clube Studio's budget, gzipped: the initial load (index.html, main.js,
// main.css and the chunks main.js imports statically) ≤ 150 kB. Lazily loaded
// chunks (editor, charts) are printed but not counted. Exits 1 over budget.
import { readFile, readdir } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";

const dist = fileURLToPath(new URL("../dist/", import.meta.url));
const gz = async (file) => gzipSync(await readFile(dist + file), { level: 9 }).length;

/** The files a first visit loads: the entry and, transitively, its static `import … from "./chunks/…"`. */
async function initialFiles() {
  const seen = new Set(["index.html", "main.js"]);
  const queue = ["main.js"];
  while (queue.length) {
    const file = queue.shift();
    const code = await readFile(dist + file, "utf8");
    for (const match of code.matchAll(/(?:import|from)\s*["']\.\/((?:chunks\/)?[\w.-]+\.js)["']/g)) {
      const dir = file.includes("/") ? file.slice(0, file.lastIndexOf("/") + 1) : "";
      const target = match[1].startsWith("chunks/") ? match[1] : dir + match[1];
      if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  try {
    await readFile(dist + "main.css");
    seen.add("main.css");
  } catch {}
  return [...seen];
}

export const BUDGET = 150 * 1024;

export async function measureStudio() {
  const initial = await initialFiles();
  let total = 0;
  for (const file of initial) total += await gz(file);
  const lazy = {};
  for (const file of await readdir(dist + "chunks").catch(() => [])) {
    if (!initial.includes(`chunks/${file}`)) lazy[file] = await gz(`chunks/${file}`);
  }
  return { initial: total, files: initial, lazy };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { initial, files, lazy } = await measureStudio();
  const ok = initial <= BUDGET;
  console.log(`studio initial load (${files.join(", ")}): ${(initial / 1024).toFixed(2)} kB gzipped (budget ${BUDGET / 1024} kB) ${ok ? "ok" : "OVER BUDGET"}`);
  for (const [file, size] of Object.entries(lazy)) console.log(`  lazy ${file}: ${(size / 1024).toFixed(2)} kB gzipped`);
  process.exit(ok ? 0 : 1);
}
