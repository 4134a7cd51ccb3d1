import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Migrator } from "@mikro-orm/migrations";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { committedMigrations, openDatabase } from "../../server/src/db/orm.js";
import { waitFor } from "../jobs/support/wait.js";
import { demoConfig } from "../support/api.js";
import { createTestDatabase, describeEachDatabase, type TestDatabase } from "../support/databases.js";
import { call, envFor, freePort, runClube, startServe, type ClubeEnv, type ClubeServer, type CommandResult } from "./clube-command.js";

/**
 * The `clube` command as README's "The `clube` command" section shows it, run
 * as a child process: what it prints, its exit code, and what a server on
 * the same data then answers.
 */

/** The demo casino configuration with one currency code that breaks the schema's pattern. */
async function invalidConfig(): Promise<Record<string, any>> {
  const config = await demoConfig();
  config.currencies[0].code = "Moedas!";
  return config;
}
/** Where the problem of invalidConfig() is, as a JSON pointer into the file. */
const INVALID_POINTER = "/currencies/0/code";

/** The demo configuration with three distinct schema problems. */
async function threeProblems(): Promise<Record<string, any>> {
  const config = await invalidConfig();
  config.theme.colors.bg = "red";
  config.rules[0].bogus = true;
  return config;
}

async function writeJson(dir: string, name: string, value: unknown): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, JSON.stringify(value));
  return file;
}

describeEachDatabase("clube migrate", (kind) => {
  let target: TestDatabase;
  beforeAll(async () => {
    target = await createTestDatabase(kind);
  });
  afterAll(() => target?.drop());

  /** Which migrations the database records as applied and which it still lacks, read without migrating. */
  async function migrationState() {
    const db = await openDatabase({ databaseUrl: target.url, dataDir: target.dataDir, migrate: false });
    try {
      const migrator = db.orm.getMigrator<Migrator>();
      const executed = (await migrator.getExecutedMigrations()).map((row) => row.name);
      const pending = (await migrator.getPendingMigrations()).map((migration) => migration.name);
      return { executed, pending };
    } finally {
      await db.close();
    }
  }

  it("applies every committed migration, and a second run changes nothing", async () => {
    const where = kind === "sqlite" ? `SQLite in ${target.dataDir}` : "PostgreSQL";
    const first = await runClube(["migrate"], envFor(target));
    expect(first).toEqual({ code: 0, stdout: `Migrations applied (${where}).\n`, stderr: "" });
    const applied = { executed: committedMigrations[kind].map((migration) => migration.name), pending: [] };
    expect(await migrationState()).toEqual(applied);

    expect(await runClube(["migrate"], envFor(target))).toEqual(first);
    expect(await migrationState()).toEqual(applied);
  }, 60_000);
});

describeEachDatabase("clube club create and config publish", (kind) => {
  let target: TestDatabase;
  let server: ClubeServer | undefined;
  let club: { club_id: string; keys: { test: string; live: string } };
  beforeAll(async () => {
    target = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await server?.stop();
    await target?.drop();
  });

  const env = () => envFor(target);
  const publishedName = async (key: string) => {
    const response = await call(server!.url, "GET", "/v1/config", key);
    expect(response.status).toBe(200);
    return response.body.config.name as string;
  };
  /**
   * The CLI publishes from another process: on PostgreSQL the server hears it
   * at once (NOTIFY), on SQLite within CLUBE_CACHE_TTL_MS, so poll for it.
   */
  const expectPublishedName = async (key: string, name: string) => {
    await waitFor(`the running server to serve "${name}"`, async () => (await publishedName(key)) === name);
  };

  it("club create --json prints exactly the club id and its two keys", async () => {
    const result = await runClube(["club", "create", "--name", "Cassino Aurora", "--json"], env());
    expect(result).toEqual({
      code: 0,
      stdout: expect.stringMatching(/^\{"club_id":"club_[A-Za-z0-9]+","keys":\{"test":"cf_test_[A-Za-z0-9]+","live":"cf_live_[A-Za-z0-9]+"\}\}\n$/),
      stderr: "",
    });
    club = JSON.parse(result.stdout);
  }, 60_000);

  it("both keys work against a server started on the same data", async () => {
    server = await startServe({ ...env(), PORT: await freePort() });
    // The database already has a club, so serve makes no demo club.
    expect(server.demo).toBeNull();
    for (const keyEnv of ["test", "live"] as const) {
      const key = club.keys[keyEnv];
      expect(await call(server.url, "GET", "/v1/key", key)).toEqual({
        status: 200,
        body: { club_id: club.club_id, club_name: "Cassino Aurora", env: keyEnv, mode: "secret", key_prefix: key.slice(0, 12), created_at: expect.any(String) },
      });
    }
  }, 90_000);

  it("club create --config with an invalid configuration exits 1 naming the file and the field, and prints no keys", async () => {
    const file = await writeJson(target.dataDir, "invalid-club.json", await invalidConfig());
    const result = await runClube(["club", "create", "--name", "Cassino Inválido", "--config", file, "--json"], env());
    expect(result).toEqual({ code: 1, stdout: "", stderr: `${file}: ${INVALID_POINTER}: must match pattern "^[a-z][a-z0-9_]*$"\n` });
  }, 60_000);

  it("club create --config examples/club.json creates a club whose configuration is the example", async () => {
    const result = await runClube(["club", "create", "--name", "Aurora", "--config", "examples/club.json", "--json"], env());
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const created = JSON.parse(result.stdout);
    const published = await call(server!.url, "GET", "/v1/config", created.keys.test);
    expect(published.status).toBe(200);
    expect(published.body.config).toMatchObject({ name: "Aurora Club", crm: { locale: "en" } });
  }, 60_000);

  it("config publish puts the new configuration in force on the running server, in that environment only", async () => {
    const liveName = await publishedName(club.keys.live);
    const config = { ...(await demoConfig()), name: "Clube Aurora VIP" };
    const file = await writeJson(target.dataDir, "club.json", config);

    const result = await runClube(["config", "publish", "--club", club.club_id, "--env", "test", file], env());
    expect(result).toEqual({ code: 0, stdout: `Published version 2 for ${club.club_id} (test).\n`, stderr: "" });

    await expectPublishedName(club.keys.test, "Clube Aurora VIP");
    const published = await call(server!.url, "GET", "/v1/config", club.keys.test);
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({
      club_id: club.club_id,
      env: "test",
      config: { name: "Clube Aurora VIP", currencies: [{ code: "coins" }, { code: "gems" }] },
    });
    expect(await publishedName(club.keys.live)).toBe(liveName);
  }, 60_000);

  it("config publish with three problems lists all three as file: pointer lines, exits 1, and the published one stays", async () => {
    const file = await writeJson(target.dataDir, "invalid.json", await threeProblems());
    const result = await runClube(["config", "publish", "--club", club.club_id, "--env", "test", file], env());
    expect(result).toMatchObject({ code: 1, stdout: "" });
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines[0]).toBe(`${file}: 3 problems in the configuration`);
    expect(lines.slice(1).sort()).toEqual([
      `${file}: ${INVALID_POINTER}: must match pattern "^[a-z][a-z0-9_]*$"`,
      `${file}: /rules/0/bogus: is not an allowed field`,
      `${file}: /theme/colors/bg: must match pattern "^#[0-9a-fA-F]{6}$"`,
    ]);
    expect(result.stderr).not.toMatch(/body\.|config\.|\n\s+at /);
    expect(await publishedName(club.keys.test)).toBe("Clube Aurora VIP");
  }, 60_000);

  it("config publish takes a saved GET /v1/config answer, and points into it under /config", async () => {
    const saved = await call(server!.url, "GET", "/v1/config", club.keys.test);
    const envelope = { ...saved.body, config: { ...saved.body.config, name: "Clube do Envelope" } };
    const file = await writeJson(target.dataDir, "saved.json", envelope);
    const result = await runClube(["config", "publish", "--club", club.club_id, "--env", "test", file], env());
    expect(result).toEqual({ code: 0, stdout: `Published version 3 for ${club.club_id} (test).\n`, stderr: "" });
    await expectPublishedName(club.keys.test, "Clube do Envelope");

    envelope.config.rules[0].effects[0].currency = "nope";
    await writeFile(file, JSON.stringify(envelope));
    const refused = await runClube(["config", "publish", "--club", club.club_id, "--env", "test", file], env());
    expect(refused).toEqual({
      code: 1,
      stdout: "",
      stderr: `${file}: /config/rules/0/effects/0/currency: names currency 'nope', which is not in /config/currencies\n`,
    });
    expect(await publishedName(club.keys.test)).toBe("Clube do Envelope");
  }, 60_000);

  it("config publish for a club that does not exist exits 1 naming the club", async () => {
    const file = await writeJson(target.dataDir, "club.json", await demoConfig());
    const result = await runClube(["config", "publish", "--club", "club_doesnotexist", "--env", "test", file], env());
    expect(result).toEqual({ code: 1, stdout: "", stderr: expect.stringContaining("club_doesnotexist") });
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  }, 60_000);
});

describe("clube usage errors", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "clube-e2e-usage-"));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  const run = (args: string[]) => runClube(args, { CLUBE_DATA_DIR: dataDir });

  /** Exit 2, nothing on stdout, and the usage text listing every command README documents. */
  function expectUsage(result: CommandResult): void {
    // The usage may follow one line saying what was wrong (e.g. "Unknown option '--nam'").
    expect(result).toEqual({ code: 2, stdout: "", stderr: expect.stringMatching(/^(.+\n)?usage:\n/) });
    for (const line of [
      "clube serve",
      "clube worker",
      "clube migrate",
      "clube club create --name NAME [--config FILE] [--json]",
      "clube config publish --club ID --env test|live FILE",
    ]) {
      expect(result.stderr).toContain(`\n  ${line}`);
    }
  }

  it.each([
    ["no command", []],
    ["an unknown command", ["serv"]],
    ["an unknown subcommand", ["club", "delete"]],
    ["a command missing its subcommand", ["config"]],
    ["an unknown option", ["club", "create", "--nam", "Cassino"]],
  ])(
    "%s prints the usage and exits 2",
    async (_case, args) => {
      const result = await run(args);
      expectUsage(result);
      if (args.includes("--nam")) expect(result.stderr).toMatch(/^Unknown option '--nam'/);
    },
    60_000,
  );

  it.each([
    ["club create without --name", ["club", "create", "--json"], "--name NAME"],
    ["config publish without a file", ["config", "publish", "--club", "club_x", "--env", "test"], "FILE"],
    ["config publish with an unknown environment", ["config", "publish", "--club", "club_x", "--env", "prod", "club.json"], "--env test|live"],
  ])(
    "%s says what is missing and exits 2",
    async (_case, args, needed) => {
      expect(await run(args)).toEqual({ code: 2, stdout: "", stderr: expect.stringContaining(needed) });
    },
    60_000,
  );

  it.each([
    ["help config publish", ["help", "config", "publish"]],
    ["config publish --help", ["config", "publish", "--help"]],
  ])(
    "%s prints that command's usage, options and examples on stdout",
    async (_case, args) => {
      const result = await run(args);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      expect(result.stdout).toMatch(/^usage:\n {2}clube config publish --club ID --env test\|live FILE\n/);
      for (const section of ["\noptions:\n", "  --club ID", "  --env test|live", "\nexamples:\n", "GET /v1/config"]) expect(result.stdout).toContain(section);
    },
    60_000,
  );

  it("help with no command lists every command; help of an unknown one exits 2", async () => {
    const all = await run(["help"]);
    expect(all).toMatchObject({ code: 0, stderr: "" });
    for (const command of ["serve", "worker", "migrate", "club create", "config publish", "webhooks add", "keys list", "help"]) {
      expect(all.stdout).toContain(`\n  clube ${command}`);
    }
    expect(await run(["help", "frobnicate"])).toMatchObject({ code: 2, stdout: "", stderr: expect.stringMatching(/^no command 'frobnicate'\nusage:\n/) });
  }, 60_000);
});

describe("clube expected errors: one line, no stack", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "clube-e2e-errors-"));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  const NO_STACK = /\n\s+at /;
  const run = (args: string[], env: Partial<ClubeEnv> = {}) => runClube(args, { CLUBE_DATA_DIR: dataDir, ...env });

  it("a file that does not exist", async () => {
    const missing = join(dataDir, "nope.json");
    expect(await run(["config", "publish", "--club", "club_x", "--env", "test", missing])).toEqual({
      code: 1,
      stdout: "",
      stderr: `${missing}: cannot read the file (no such file)\n`,
    });
  }, 60_000);

  it("a file that is not JSON, with the line and column of the mistake", async () => {
    const file = join(dataDir, "broken.json");
    await writeFile(file, '{\n  "name": "x",\n  theme\n}');
    const result = await run(["club", "create", "--name", "X", "--config", file]);
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}: not valid JSON: .*\\(line 3, column 3\\)\\n$`));
  }, 60_000);

  it("a database that cannot be reached", async () => {
    // Port 1 (tcpmux): nothing listens there and no test binds it, whereas a port found free could be taken
    // by another test's server before the command connects, and the failure would then not be a refusal.
    const result = await run(["migrate"], { DATABASE_URL: "postgres://postgres@127.0.0.1:1/clube" });
    expect(result).toMatchObject({ code: 1, stdout: "" });
    expect(result.stderr).toMatch(/^error: cannot reach 127\.0\.0\.1:\d+ \(.*ECONNREFUSED.*\); .*DATABASE_URL/);
    expect(result.stderr.trimEnd().split("\n")).toHaveLength(1);
  }, 60_000);

  it("a malformed setting", async () => {
    const result = await run(["migrate"], { PORT: "abc" });
    expect(result).toEqual({ code: 1, stdout: "", stderr: expect.stringMatching(/^error: PORT must be an integer/) });
    expect(result.stderr).not.toMatch(NO_STACK);
  }, 60_000);
});
