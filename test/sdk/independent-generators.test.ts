// The contract must serve client developers who do not use our SDKs: three
// independent generators (openapi-typescript, @hey-api/openapi-ts and orval,
// pinned dev dependencies), each with its default flags as its own docs show,
// build clients from generated/openapi.json without a warning, and the code
// they produce type-checks under strict settings together with a small client
// of each making the README's calls. A warning here usually means the document
// says something a strict OpenAPI 3.1 validator refuses (orval validates the
// document before generating); a type error in a client means a generator
// reads the contract differently from the service (a defaulted field made
// required, a map typed as an empty object).
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
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

it("openapi-typescript, @hey-api/openapi-ts and orval generate clients without warnings, and the README's calls type-check against each", async () => {
  const [openapiTs, hey, orval] = await Promise.all([
    run(bin("openapi-typescript"), [contract, "-o", join(dir, "openapi-typescript", "schema.d.ts")], { cwd: dir, env, timeout: 90_000 }),
    run(bin("openapi-ts"), ["-i", contract, "-o", join(dir, "hey")], { cwd: dir, env, timeout: 90_000 }),
    run(bin("orval"), ["--input", contract, "--output", join(dir, "orval", "clube.ts"), "--client", "fetch"], { cwd: dir, env, timeout: 90_000 }),
  ]);
  expect(problems(openapiTs.stdout + openapiTs.stderr), openapiTs.stdout + openapiTs.stderr).toEqual([]);
  expect(problems(hey.stdout + hey.stderr), hey.stdout + hey.stderr).toEqual([]);
  expect(problems(orval.stdout + orval.stderr), orval.stdout + orval.stderr).toEqual([]);
  expect(await readdir(join(dir, "hey"))).toEqual(expect.arrayContaining(["sdk.gen.ts", "types.gen.ts"]));
  expect(await readdir(join(dir, "orval"))).toEqual(["clube.ts"]);
  await writeClients();

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
      include: ["openapi-typescript/**/*.ts", "hey/**/*.ts", "orval/**/*.ts", "clients/**/*.ts"],
    }),
  );
  const tsc = await run(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", join(dir, "tsconfig.json")], {
    cwd: dir,
    env,
    timeout: 90_000,
  }).catch((error: { stdout?: string; stderr?: string }) => ({ failed: `${error.stdout ?? ""}${error.stderr ?? ""}` }));
  expect("failed" in tsc ? tsc.failed : "").toBe("");
}, 180_000);

/**
 * The README's first calls, written as a client developer would against each
 * generator's output: an event with only participant, type and amount (plus
 * the async one with `meta`), a webhook endpoint with only its url, and a
 * map-typed response field (`BacktestTally.currencies_minor`) read as a map.
 */
async function writeClients(): Promise<void> {
  const clients = join(dir, "clients");
  await mkdir(clients, { recursive: true });
  await writeFile(
    join(clients, "openapi-typescript.ts"),
    `import type { components, paths } from "../openapi-typescript/schema";
type JsonBody<T> = NonNullable<T> extends { content: { "application/json": infer Body } } ? Body : never;

export const deposit: JsonBody<paths["/v1/events"]["post"]["requestBody"]> = { participant: "user_8412", type: "deposit.confirmed", amount: "100.00" };
export const bet: components["schemas"]["EventInput"] = { participant: "user_8412", type: "bet.placed", id: "bet_1", amount: 25, meta: { game_type: "video-slots" } };
export const endpoint: JsonBody<paths["/v1/webhook_endpoints"]["post"]["requestBody"]> = { url: "http://localhost:8080/clube" };
export function brl(tally: components["schemas"]["BacktestTally"]): number | undefined {
  const perCurrency: components["schemas"]["BacktestTally"]["currencies_minor"] = { BRL: 1050, USD: 0 };
  return tally.currencies_minor["BRL"] ?? perCurrency["BRL"];
}
`,
  );
  await writeFile(
    join(clients, "hey.ts"),
    `import { eventsSend, webhookEndpointsCreate } from "../hey/sdk.gen";
import type { BacktestTally } from "../hey/types.gen";

export async function readme(): Promise<void> {
  await eventsSend({ body: { participant: "user_8412", type: "deposit.confirmed", amount: "100.00" } });
  await eventsSend({ body: { participant: "user_8412", type: "bet.placed", id: "bet_1", amount: 25, meta: { game_type: "video-slots" } } });
  await webhookEndpointsCreate({ body: { url: "http://localhost:8080/clube" } });
}
export function brl(tally: BacktestTally): number | undefined {
  const perCurrency: BacktestTally["currencies_minor"] = { BRL: 1050, USD: 0 };
  return tally.currencies_minor["BRL"] ?? perCurrency["BRL"];
}
`,
  );
  await writeFile(
    join(clients, "orval.ts"),
    `import { eventsSend, webhookEndpointsCreate, type BacktestTally } from "../orval/clube";

export async function readme(): Promise<void> {
  await eventsSend({ participant: "user_8412", type: "deposit.confirmed", amount: "100.00" });
  await eventsSend({ participant: "user_8412", type: "bet.placed", id: "bet_1", amount: 25, meta: { game_type: "video-slots" } });
  await webhookEndpointsCreate({ url: "http://localhost:8080/clube" });
}
export function brl(tally: BacktestTally): number | undefined {
  const perCurrency: BacktestTally["currencies_minor"] = { BRL: 1050, USD: 0 };
  return tally.currencies_minor["BRL"] ?? perCurrency["BRL"];
}
`,
  );
}
