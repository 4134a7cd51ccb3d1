// `npm run generate`: spec/*.tsp → generated/ (openapi.json, types.ts,
// validators.js + .d.ts, operations.ts). Every output is a pure function of the
// compiled document, so two runs give identical bytes (CI checks `git diff`).
//
//   tsx spec/codegen/generate.ts [--entry spec/main.tsp] [--out generated] [--config tspconfig.yaml]
//
// --entry/--out let a scratch entry be compiled while parts of the spec are missing.
import { execFileSync } from "node:child_process";
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { compileSpec } from "./compile.js";
import { generateOperations } from "./operations.js";
import { postprocess } from "./postprocess.js";
import { generateSdkResources } from "./sdk.js";
import { generateTypes } from "./types.js";
import { generateValidators } from "./validators.js";

const { values: args } = parseArgs({
  options: {
    entry: { type: "string", default: "spec/main.tsp" },
    out: { type: "string", default: "generated" },
    config: { type: "string", default: "tspconfig.yaml" },
  },
});

async function main(): Promise<void> {
  const started = performance.now();
  const outDir = path.resolve(args.out);
  const doc = await step("compile + post-process", async () => postprocess(await compileSpec({ entry: args.entry, config: args.config })));
  const validators = await step("validators", async () => generateValidators(doc));
  const files: Record<string, string> = {
    "openapi.json": JSON.stringify(doc, null, 2) + "\n",
    "types.ts": await step("types", () => generateTypes(doc)),
    "validators.js": validators.js,
    "validators.d.ts": validators.dts,
    "operations.ts": await step("operations", async () => generateOperations(doc)),
  };
  mkdirSync(outDir, { recursive: true });
  for (const [name, content] of Object.entries(files)) writeFileSync(path.join(outDir, name), content);
  // The SDKs' resource layers live in their packages (each package is self-contained); a scratch --out skips them.
  if (outDir === path.resolve("generated")) {
    const sdk = await step("sdk resources", async () => generateSdkResources(doc));
    for (const [dir, content] of [
      ["sdk-node", sdk.node],
      ["sdk-browser", sdk.browser],
    ] as const) {
      mkdirSync(path.join(dir, "src", "generated"), { recursive: true });
      writeFileSync(path.join(dir, "src", "generated", "resources.ts"), content);
    }
  }
  console.log(`generated in ${seconds(performance.now() - started)}`);

  for (const name of Object.keys(files)) {
    console.log(`  ${name.padEnd(16)} ${(statSync(path.join(outDir, name)).size / 1024).toFixed(1).padStart(8)} KiB`);
  }
  console.log(`validators.js import: ${measureImportMs(path.join(outDir, "validators.js")).toFixed(0)} ms (fresh node process)`);
}

async function step<T>(name: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await run();
  console.log(`  ${name}: ${seconds(performance.now() - started)}`);
  return result;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

/** The server imports validators.js at start-up; time a cold import in a child process so this process's caches do not flatter it. */
function measureImportMs(file: string): number {
  const script = `const t = performance.now(); await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(performance.now() - t);`;
  return Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" }).trim());
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
