import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { readSettings } from "./settings.js";

/**
 * `clube <command>`:
 *   serve                      HTTP API (+ in-process workers on the embedded queue)
 *   worker                     queue workers only (scale them out with RabbitMQ)
 *   migrate                    apply pending database migrations and exit
 *   club create --name NAME [--config FILE] [--json]
 *   config publish --club ID --env test|live FILE
 *   webhooks add --club ID --env test|live --url URL [--events a,b] [--json]
 *   keys list|create|roll|revoke --club ID --env test|live …   (see commands/keys.ts)
 */
const USAGE = `usage:
  clube serve
  clube worker
  clube migrate
  clube club create --name NAME [--config FILE] [--json]
  clube config publish --club ID --env test|live FILE
  clube webhooks add --club ID --env test|live --url URL [--events a,b] [--json]
  clube keys list --club ID --env test|live [--json]
  clube keys create --club ID --env test|live [--json]
  clube keys roll KEY_ID --club ID --env test|live [--expire-old-after SECONDS] [--json]
  clube keys revoke KEY_ID --club ID --env test|live [--json]`;

async function main(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv;
  const settings = readSettings();
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
  }
  fail(USAGE);
}

async function clubCreate(settings: ReturnType<typeof readSettings>, args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { name: { type: "string" }, config: { type: "string" }, json: { type: "boolean" } } });
  if (!values.name) fail("club create needs --name NAME");
  const config = values.config ? await readJson(values.config) : undefined;
  const { withDatabase } = await import("./commands/database.js");
  const created = await withDatabase(settings, (db) => import("./usecases/clubs.js").then((m) => m.createClub(db, { name: values.name!, config })));
  if (values.json) {
    process.stdout.write(`${JSON.stringify(created)}\n`);
  } else {
    process.stdout.write(`Club ${created.club_id} created.\n  test key: ${created.keys.test}\n  live key: ${created.keys.live}\nKeys are shown only now; store them safely.\n`);
  }
}

async function configPublish(settings: ReturnType<typeof readSettings>, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { club: { type: "string" }, env: { type: "string" } } });
  const env = values.env;
  if (!values.club || (env !== "test" && env !== "live") || positionals.length !== 1) {
    fail("config publish needs --club ID --env test|live FILE");
  }
  const config = await readJson(positionals[0]);
  const { withClub } = await import("./commands/database.js");
  const { saveDraft, publish, validateClubConfig } = await import("./usecases/config.js");
  validateClubConfig(structuredClone(config), "config"); // names fields `config.…` (saveDraft speaks of an HTTP body)
  const published = await withClub(settings, values.club!, async (db) => {
    const scope = { clubId: values.club!, env: env as "test" | "live" };
    const draft = await saveDraft(db, scope, config);
    return publish(db, scope, draft.version);
  });
  process.stdout.write(`Published version ${published.version} for ${values.club} (${env}).\n`);
}

/** A configuration file, or an operator-facing error (exit 1) saying why it cannot be read. */
async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw Object.assign(new Error(`cannot read ${path}: ${(err as Error).message}`), { status: 400, code: "unreadable_file" });
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw Object.assign(new Error(`${path} is not valid JSON: ${(err as Error).message}`), { status: 400, code: "invalid_json" });
  }
}

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const e = err as { status?: number; code?: string; message?: string };
  // parseArgs refuses unknown or malformed options: a usage error, like a missing one.
  if (typeof e?.code === "string" && e.code.startsWith("ERR_PARSE_ARGS_")) fail(`${e.message}\n${USAGE}`);
  // Use-case errors (bad config, unknown club) are the operator's input problem: say it plainly.
  if (e?.code && e?.status) process.stderr.write(`error: ${e.code}: ${e.message}\n`);
  else process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
