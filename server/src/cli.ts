import { parseArgs } from "node:util";
import { CliError, explain } from "./commands/cli-errors.js";
import { inFileWords, readConfigFile } from "./commands/config-file.js";
import { helpFor, USAGE } from "./commands/help.js";
import { readSettings, type Settings } from "./settings.js";

/**
 * `clube <command>` (see commands/help.ts for every command's usage). Expected
 * failures — a usage mistake (exit 2), a bad file, an invalid configuration,
 * an unknown club, an unreachable database (exit 1) — print what to fix in
 * one line, without a stack; an unexpected one prints its stack with
 * CLUBE_DEBUG=1.
 */
async function main(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv;
  if (command === "help" || command === "--help" || command === "-h") return printHelp(argv.slice(1));
  if (argv.includes("--help") || argv.includes("-h")) return printHelp(argv.filter((arg) => arg !== "--help" && arg !== "-h"));
  const settings = loadSettings();
  switch (command) {
    case "serve":
      return (await import("./commands/serve.js")).serve(settings);
    case "worker":
      return (await import("./commands/worker.js")).worker(settings);
    case "migrate":
      return (await import("./commands/migrate.js")).migrate(settings);
    case "club":
      if (sub !== "create") break;
      return clubCreate(settings, rest);
    case "config":
      if (sub !== "publish") break;
      return configPublish(settings, rest);
    case "webhooks":
      if (sub !== "add") break;
      return (await import("./commands/webhooks.js")).webhooksAdd(settings, rest);
    case "keys":
      if (!["list", "create", "roll", "revoke"].includes(sub)) break;
      return (await import("./commands/keys.js")).keysCommand(settings, sub, rest);
    case "staff":
      if (sub !== "add") break;
      return (await import("./commands/staff.js")).staffCommand(settings, sub, rest);
  }
  fail(USAGE);
}

function printHelp(words: string[]): void {
  if (words.length === 0) return void process.stdout.write(`${USAGE}\n`);
  const help = helpFor(words);
  if (!help) fail(`no command '${words.join(" ")}'\n${USAGE}`);
  process.stdout.write(`${help}\n`);
}

/** Settings from the environment; a malformed variable (PORT=abc) is the operator's to fix. */
function loadSettings(): Settings {
  try {
    return readSettings();
  } catch (err) {
    throw new CliError(`error: ${(err as Error).message}`);
  }
}

async function clubCreate(settings: Settings, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { name: { type: "string" }, config: { type: "string" }, json: { type: "boolean" } } });
  if (!values.name) fail("club create needs --name NAME (see `clube help club create`)");
  const file = values.config ? await readConfigFile(values.config) : undefined;
  const { withDatabase } = await import("./commands/database.js");
  const { createClub } = await import("./usecases/club/index.js");
  const created = await withDatabase(settings, (db) => createClub(db, { name: values.name!, config: file?.config })).catch((err: unknown) => {
    throw file ? inFileWords(err, file) : err;
  });
  if (values.json) {
    process.stdout.write(`${JSON.stringify(created)}\n`);
  } else {
    process.stdout.write(
      `Club ${created.club_id} created.\n  test key: ${created.keys.test}\n  live key: ${created.keys.live}\nKeys are shown only now; store them safely.\n`,
    );
  }
}

async function configPublish(settings: Settings, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { club: { type: "string" }, env: { type: "string" } } });
  const env = values.env;
  if (!values.club || (env !== "test" && env !== "live") || positionals.length !== 1) {
    fail("config publish needs --club ID --env test|live FILE (see `clube help config publish`)");
  }
  const file = await readConfigFile(positionals[0]);
  const { withClub } = await import("./commands/database.js");
  const { saveDraft, publish, validateClubConfig } = await import("./usecases/club/index.js");
  try {
    // Checked first with fields named from `config` (saveDraft speaks of an HTTP body), so problems map onto the file.
    validateClubConfig(file.config, "config");
  } catch (err) {
    throw inFileWords(err, file);
  }
  const published = await withClub(settings, values.club!, async (db) => {
    const scope = { clubId: values.club!, env: env as "test" | "live" };
    const draft = await saveDraft(db, scope, file.config);
    return publish(db, scope, draft.version);
  });
  process.stdout.write(`Published version ${published.version} for ${values.club} (${env}).\n`);
}

function fail(message: string): never {
  throw new CliError(message, 2);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const expected = explain(err);
  if (expected) {
    process.stderr.write(`${expected.message}${expected.exitCode === 2 && !(err instanceof CliError) ? `\n${USAGE}` : ""}\n`);
    process.exit(expected.exitCode);
  }
  process.stderr.write(
    process.env.CLUBE_DEBUG === "1"
      ? `${err instanceof Error ? err.stack : String(err)}\n`
      : `error: ${err instanceof Error ? err.message : String(err)}\n(an unexpected error; run again with CLUBE_DEBUG=1 to see where it happened)\n`,
  );
  process.exit(1);
});
