// The contract must serve client developers who do not use our SDKs: two
// independent generators (@hey-api/openapi-ts and orval, pinned dev
// dependencies) build clients from generated/openapi.json without a warning,
// and the code they produce type-checks under strict settings. A warning here
// usually means the document says something a strict OpenAPI 3.1 validator
// refuses (orval validates the document before generating).
import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../..", import.meta.url));
const bin = (name: string) => join(root, "node_modules", ".bin", name);
const contract = join(root, "generated", "openapi.json");
// No colour codes, so the output is matched as plain text.
const env = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "clube-generators-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Output lines that signal a problem; the generators' banners and progress lines are not. */
function problems(output: string): string[] {
  return output.split("\n").filter((line) => /warn|error|⚠|invalid|failed/i.test(line));
}

it("@hey-api/openapi-ts and orval generate clients without warnings, and both type-check", async () => {
  const [hey, orval] = await Promise.all([
    run(bin("openapi-ts"), ["-i", contract, "-o", join(dir, "hey")], { cwd: dir, env, timeout: 90_000 }),
    run(bin("orval"), ["--input", contract, "--output", join(dir, "orval", "clube.ts"), "--client", "fetch"], { cwd: dir, env, timeout: 90_000 }),
  ]);
  expect(problems(hey.stdout + hey.stderr), hey.stdout + hey.stderr).toEqual([]);
  expect(problems(orval.stdout + orval.stderr), orval.stdout + orval.stderr).toEqual([]);
  expect(await readdir(join(dir, "hey"))).toEqual(expect.arrayContaining(["sdk.gen.ts", "types.gen.ts"]));
  expect(await readdir(join(dir, "orval"))).toEqual(["clube.ts"]);

  // As a consumer's bundler project would compile them: strict, DOM fetch, no emit.
  await writeFile(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "ESNext",
        moduleResolution: "bundler",
        lib: ["ES2022", "DOM", "DOM.Iterable"],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      },
      include: ["hey/**/*.ts", "orval/**/*.ts"],
    }),
  );
  const tsc = await run(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(dir, "tsconfig.json")], {
    cwd: dir,
    env,
    timeout: 90_000,
  }).catch((error: { stdout?: string; stderr?: string }) => ({ failed: `${error.stdout ?? ""}${error.stderr ?? ""}` }));
  expect("failed" in tsc ? tsc.failed : "").toBe("");
}, 180_000);
