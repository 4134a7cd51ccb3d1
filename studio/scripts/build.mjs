// Builds Clube Studio into studio/dist: index.html, main.js (+ code-split
// chunks under chunks/, loaded on the screens that need them: the
// configuration editor, the charts) and main.css. esbuild, minified, ES
// modules; run by `npm start` and `npm test` (npm run studio:build).
import { copyFile, mkdir, readFile, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { Ajv2020 } from "ajv/dist/2020.js";
import standaloneCode from "ajv/dist/standalone/index.js";

const root = fileURLToPath(new URL("..", import.meta.url));
export const DIST = `${root}dist`;

/**
 * `virtual:club-config-validator`: the contract's ClubConfig JSON Schema
 * compiled by Ajv into plain code at build time, so the editor's linter runs
 * the same schema in the browser without eval (the page's CSP forbids it).
 * Formats are left to the server, which checks the whole draft on save.
 */
async function configValidatorSource() {
  const openapi = JSON.parse(await readFile(`${root}../generated/openapi.json`, "utf8"));
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false, code: { source: true, esm: true } });
  ajv.addSchema({ $id: "clube", components: openapi.components });
  const validate = ajv.compile({ $ref: "clube#/components/schemas/ClubConfig" });
  return standaloneCode(ajv, validate);
}

const virtualValidator = {
  name: "club-config-validator",
  setup(build) {
    build.onResolve({ filter: /^virtual:club-config-validator$/ }, () => ({ path: "club-config-validator", namespace: "virtual" }));
    build.onLoad({ filter: /.*/, namespace: "virtual" }, async () => ({ contents: await configValidatorSource(), loader: "js", resolveDir: root }));
  },
};

export async function buildStudio() {
  await rm(DIST, { recursive: true, force: true });
  await mkdir(DIST, { recursive: true });
  await Promise.all([
    esbuild.build({
      entryPoints: { main: `${root}src/main.tsx`, preview: `${root}src/preview.ts` },
      outdir: DIST,
      bundle: true,
      splitting: true,
      format: "esm",
      chunkNames: "chunks/[name]-[hash]",
      minify: true,
      target: "es2020",
      legalComments: "none",
      logLevel: "warning",
      jsx: "automatic",
      jsxImportSource: "preact",
      conditions: ["clube-source"],
      plugins: [virtualValidator],
    }),
    copyFile(`${root}src/index.html`, `${DIST}/index.html`),
    copyFile(`${root}src/preview.html`, `${DIST}/preview.html`),
  ]);
  return DIST;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = performance.now();
  await buildStudio();
  console.log(`studio built into ${DIST} in ${Math.round(performance.now() - started)} ms`);
}
