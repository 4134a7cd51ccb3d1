// Builds one SDK package (run from its folder: `npm run build`, also run by
// `npm pack` through `prepack`) into a self-contained dist/:
//   dist/index.js    ESM bundle   (the package's own code, sdk-shared and generated/ inlined)
//   dist/index.cjs   CommonJS bundle
//   dist/types/…     .d.ts for ESM consumers, the repository layout mirrored so every import stays inside dist/
//   dist/types-cjs/… the same declarations as .d.cts for CommonJS consumers
// No import in dist/ leaves the package folder; the bundles have no runtime dependencies.
import { build } from "esbuild";
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const repo = path.resolve(fileURLToPath(new URL("../..", import.meta.url)));
const packageDir = process.cwd();
const name = path.basename(packageDir);
const pkg = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8"));
const forBrowser = name === "sdk-browser";
const dist = path.join(packageDir, "dist");
const require = createRequire(import.meta.url);

rmSync(dist, { recursive: true, force: true });
const started = performance.now();

for (const format of ["esm", "cjs"]) {
  await build({
    entryPoints: [path.join(packageDir, "src/index.ts")],
    outfile: path.join(dist, format === "esm" ? "index.js" : "index.cjs"),
    bundle: true,
    format,
    platform: forBrowser ? "browser" : "node",
    target: forBrowser ? "es2020" : "node20",
    // The browser package must run without Node built-ins: fail the build if one creeps in.
    external: forBrowser ? [] : ["node:*"],
    sourcemap: false,
    legalComments: "none",
    banner: { js: `// ${pkg.name} ${pkg.version}` },
    logLevel: "error",
  });
}

// Declarations: tsc over the package's entry with the repository root as rootDir,
// so sdk-shared/ and generated/ land inside dist/types next to the package's own.
const tsconfig = path.join(dist, "tsconfig.build.json");
mkdirSync(dist, { recursive: true });
writeFileSync(
  tsconfig,
  JSON.stringify({
    compilerOptions: {
      target: "ES2022",
      lib: ["ES2023", "DOM", "DOM.Iterable"],
      module: "NodeNext",
      moduleResolution: "NodeNext",
      strict: true,
      skipLibCheck: true,
      declaration: true,
      emitDeclarationOnly: true,
      rootDir: repo,
      outDir: path.join(dist, "types"),
      types: forBrowser ? [] : ["node"],
      typeRoots: [path.join(repo, "node_modules/@types")],
    },
    files: [path.join(packageDir, "src/index.ts")],
  }),
);
execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", tsconfig], { stdio: "inherit", cwd: repo });
rmSync(tsconfig);

// The .d.cts copy: CommonJS consumers under nodenext need declarations that are CommonJS too.
copyAsCts(path.join(dist, "types"), path.join(dist, "types-cjs"));

console.log(`${pkg.name}: built dist/ in ${((performance.now() - started) / 1000).toFixed(1)} s`);

function copyAsCts(from, to) {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    if (entry.isDirectory()) copyAsCts(source, path.join(to, entry.name));
    else if (entry.name.endsWith(".d.ts")) {
      const text = readFileSync(source, "utf8").replace(/(["'])(\.{1,2}\/[^"']+)\.js\1/g, "$1$2.cjs$1");
      writeFileSync(path.join(to, entry.name.replace(/\.d\.ts$/, ".d.cts")), text);
    }
  }
}
