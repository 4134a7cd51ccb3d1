// Builds the widget into widget/dist: loader.js (the host page's script),
// app.html + app.js + app.css (the app in the iframe). esbuild, minified, no
// source maps; run by `npm start` and `npm test` (npm run widget:build).
import { copyFile, mkdir } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
export const DIST = `${root}dist`;

export async function buildWidget() {
  await mkdir(DIST, { recursive: true });
  // "clube-source": @clube/browser is bundled from its sources in this repository (its package exports point at its built dist/ otherwise).
  const common = { bundle: true, minify: true, format: "iife", target: "es2020", legalComments: "none", logLevel: "warning", conditions: ["clube-source"] };
  await Promise.all([
    esbuild.build({ ...common, entryPoints: [`${root}src/loader.ts`], outfile: `${DIST}/loader.js` }),
    esbuild.build({
      ...common,
      entryPoints: { app: `${root}src/app/main.tsx` },
      outdir: DIST,
      jsx: "automatic",
      jsxImportSource: "preact",
    }),
    copyFile(`${root}src/app.html`, `${DIST}/app.html`),
  ]);
  return DIST;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  await buildWidget();
  console.log(`widget built into ${DIST} in ${Math.round(performance.now() - started)} ms`);
}
