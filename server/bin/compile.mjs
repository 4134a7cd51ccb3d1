// The service compiled to one JavaScript file, rebuilt whenever a source changed.
//
// Why: tsx's loader keeps a second isolate and every transformed module alive for the life of the process
// (docs/performance-log.md#memory); one esbuild bundle builds in under a second and loads as plain JavaScript.
// A checkout needs no build step: the first start builds, later starts reuse the bundle while every input is unchanged.
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
// Two levels below the root, as server/src/ is: server/src/root.ts relies on it.
const OUT_DIR = `${ROOT}server/dist/`;
/** { hash, inputs, bundle }: which inputs (paths from the root) made which bundle file. */
const RECORD = `${OUT_DIR}build.json`;
/** Older bundles are removed after a build once nothing can still be about to import them. */
const STALE_BUNDLE_MS = 60_000;

/** A digest of the inputs' contents (a missing input counts as changed). */
function digest(inputs) {
  const hash = createHash("sha256");
  for (const input of inputs) {
    hash.update(`${input}\0`);
    try {
      hash.update(readFileSync(`${ROOT}${input}`));
    } catch {
      hash.update("\0missing\0");
    }
  }
  return hash.digest("hex").slice(0, 16);
}

function readRecord() {
  try {
    const record = JSON.parse(readFileSync(RECORD, "utf8"));
    statSync(`${OUT_DIR}${record.bundle}`);
    return record;
  } catch {
    return undefined;
  }
}

/** Writes a file so that a concurrent reader sees the old content or the new, never a part. */
function writeAtomically(path, content) {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  renameSync(temporary, path);
}

/**
 * esbuild escapes non-ASCII characters in code (charset "ascii") but keeps the
 * ones in the comments it preserves; a single one makes V8 hold the whole
 * source as UTF-16: twice its size, for the life of the process. Escaped as
 * \uXXXX, a comment or a string means the same.
 */
function asciiOnly(text) {
  return text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * In the bundle every module's import.meta.url is the bundle's, so a file
 * named relative to a module deeper than server/src/ would be looked for in
 * the wrong place; such paths go through server/src/root.ts (createRequire
 * of import.meta.url only resolves packages, which works from anywhere).
 */
function refuseModuleRelativeFiles(inputs) {
  const offenders = inputs.filter(
    (input) => input !== "server/src/root.ts" && /(new URL|fileURLToPath|dirname)\([^)]*import\.meta\.url/.test(readFileSync(`${ROOT}${input}`, "utf8")),
  );
  if (offenders.length > 0) {
    throw new Error(
      `clube: ${offenders.join(", ")} name files relative to import.meta.url, which is the bundle's in server/dist: use rootFile() from server/src/root.ts`,
    );
  }
}

async function build() {
  const { build: esbuild } = await import("esbuild");
  const result = await esbuild({
    absWorkingDir: ROOT,
    entryPoints: ["server/src/cli.ts"],
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node20",
    metafile: true,
    write: false,
    outfile: `${OUT_DIR}clube.mjs`,
    logLevel: "silent",
  });
  refuseModuleRelativeFiles(Object.keys(result.metafile.inputs));
  // This recipe is an input too: changing it rebuilds.
  const inputs = [...Object.keys(result.metafile.inputs), "server/bin/compile.mjs"].sort();
  const hash = digest(inputs);
  const bundle = `clube-${hash}.mjs`;
  mkdirSync(OUT_DIR, { recursive: true });
  writeAtomically(`${OUT_DIR}${bundle}`, asciiOnly(result.outputFiles[0].text));
  writeAtomically(RECORD, `${JSON.stringify({ hash, inputs, bundle })}\n`);
  for (const name of readdirSync(OUT_DIR)) {
    if (name === bundle || !/^clube-\w+\.mjs$/.test(name)) continue;
    try {
      if (Date.now() - statSync(`${OUT_DIR}${name}`).mtimeMs > STALE_BUNDLE_MS) rmSync(`${OUT_DIR}${name}`);
    } catch {
      // another process removed it first
    }
  }
  return bundle;
}

/**
 * The URL of an up-to-date bundle of server/src/cli.ts, built first if any
 * input changed; undefined when the checkout is read-only and holds no
 * up-to-date bundle (the caller then runs the sources).
 */
export async function compiledCli() {
  const record = readRecord();
  let bundle = record && digest(record.inputs) === record.hash ? record.bundle : undefined;
  if (!bundle) {
    try {
      bundle = await build();
    } catch (err) {
      if (!["EACCES", "EPERM", "EROFS"].includes(err?.code)) throw err;
      return undefined;
    }
  }
  return new URL(`../dist/${bundle}`, import.meta.url).href;
}
