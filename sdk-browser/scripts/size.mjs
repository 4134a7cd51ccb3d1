// Prints what the browser SDK costs a page: bundled with its dependency
// (openapi-fetch), minified for browsers, and gzipped. Types are erased by the
// bundler, so the figure is the JavaScript a page actually downloads.
// Usage: node sdk-browser/scripts/size.mjs  (target: at most 10 kB gzipped)
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const TARGET_GZIP_BYTES = 10 * 1024;
const entry = fileURLToPath(new URL("../src/index.ts", import.meta.url));

const result = await build({
  entryPoints: [entry],
  bundle: true,
  minify: true,
  format: "esm",
  platform: "browser",
  target: "es2020",
  write: false,
  logLevel: "error",
});
const code = result.outputFiles[0].contents;
const gzipped = gzipSync(code, { level: 9 }).length;

const kb = (bytes) => `${(bytes / 1024).toFixed(2)} kB`;
console.log(`@clube/browser minified: ${kb(code.length)} (${code.length} B)`);
console.log(`@clube/browser gzipped:  ${kb(gzipped)} (${gzipped} B), target ≤ ${kb(TARGET_GZIP_BYTES)}`);
if (gzipped > TARGET_GZIP_BYTES) {
  console.error("over the size budget");
  process.exitCode = 1;
}
