// Refuses to pack or publish a broken SDK package (run by `prepack` after the
// build, and by `prepublishOnly`): both entry points load, every file the
// exports map names exists, no declaration import leaves the package, and the
// browser bundle uses no Node built-ins.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const packageDir = process.cwd();
const pkg = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8"));
const problems = [];

const targets = [];
(function collect(value) {
  if (typeof value === "string") targets.push(value);
  else if (value && typeof value === "object") Object.values(value).forEach(collect);
})(pkg.exports);
for (const target of [pkg.main, pkg.types, ...targets]) {
  if (target && !existsSync(path.join(packageDir, target))) problems.push(`${target} (named in package.json) does not exist: run npm run build`);
}

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}
const dist = path.join(packageDir, "dist");
if (existsSync(dist)) {
  for (const file of walk(dist)) {
    const text = readFileSync(file, "utf8");
    const specifiers = [
      ...text.matchAll(/^\s*(?:import|export)\b[^;\n]*?\bfrom\s*["']([^"']+)["']/gm),
      ...text.matchAll(/^\s*import\s*["']([^"']+)["']/gm),
      ...text.matchAll(/\b(?:import|require)\(\s*["']([^"']+)["']\s*\)/g),
    ].map((match) => match[1]);
    for (const specifier of specifiers) {
      if (specifier.startsWith(".")) {
        const resolved = path.resolve(path.dirname(file), specifier);
        if (!resolved.startsWith(dist + path.sep)) problems.push(`${path.relative(packageDir, file)} imports ${specifier}, outside dist/`);
      } else if (!specifier.startsWith("node:") || pkg.name === "@clube/browser") {
        if (!(pkg.dependencies ?? {})[specifier]) problems.push(`${path.relative(packageDir, file)} imports ${specifier}, which is not a dependency`);
      }
    }
    if (pkg.name === "@clube/browser" && /\brequire\(["']node:/.test(text)) problems.push(`${path.relative(packageDir, file)} requires a Node built-in`);
  }
}

if (problems.length === 0) {
  const esm = await import(pathToFileURL(path.join(packageDir, "dist/index.js")).href);
  const cjs = createRequire(import.meta.url)(path.join(packageDir, "dist/index.cjs"));
  const expected = pkg.name === "@clube/node" ? "Clube" : "createClubeBrowser";
  if (typeof esm[expected] !== "function") problems.push(`dist/index.js does not export ${expected}`);
  if (typeof cjs[expected] !== "function") problems.push(`dist/index.cjs does not export ${expected}`);
}

if (problems.length > 0) {
  console.error(`${pkg.name} is not fit to pack or publish:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
console.log(`${pkg.name}: package checked`);
