/**
 * `clube help [command]` and `clube <command> --help`: what each command
 * does, its options and examples. The overview is also what a usage mistake
 * prints (exit 2), so it lists every command's synopsis.
 */

interface CommandHelp {
  synopsis: string[];
  summary: string;
  options?: [string, string][];
  examples?: string[];
  notes?: string;
}

const ENVIRONMENT: [string, string][] = [
  ["DATABASE_URL", "PostgreSQL URL; without it, SQLite in CLUBE_DATA_DIR"],
  ["CLUBE_DATA_DIR", "where SQLite and the embedded queue keep their files (default ./data)"],
  ["CLUBE_DEBUG=1", "print the stack of an unexpected error"],
];

const CLUB_AND_ENV: [string, string][] = [
  ["--club ID", "the club (club_…), as `club create` printed it"],
  ["--env test|live", "the environment: each has its own keys, configuration and data"],
];

const KEYS_SYNOPSIS = [
  "clube keys list --club ID --env test|live [--json]",
  "clube keys create --club ID --env test|live [--json]",
  "clube keys roll KEY_ID --club ID --env test|live [--expire-old-after SECONDS] [--json]",
  "clube keys revoke KEY_ID --club ID --env test|live [--json]",
];

/** Keyed by the command's words (`club create`), also reachable by the first word alone (`club`). */
export const COMMANDS: Record<string, CommandHelp> = {
  serve: {
    synopsis: ["clube serve"],
    summary:
      "Runs the HTTP API on PORT (default 3000); on the embedded queue it also runs the workers. A fresh database gets a demo club, whose test key is printed.",
    options: [
      ["PORT", "(environment) the port to listen on"],
      ["AMQP_URL", "(environment) RabbitMQ; then run `clube worker` processes too"],
    ],
    examples: ["clube serve", "PORT=8080 DATABASE_URL=postgres://localhost/clube clube serve"],
  },
  worker: {
    synopsis: ["clube worker"],
    summary: "Runs the queue workers only (event processing, webhooks, schedules). Run several against RabbitMQ to scale out.",
    options: [["AMQP_URL", "(environment) the RabbitMQ the API publishes to"]],
    examples: ["AMQP_URL=amqp://guest:guest@localhost DATABASE_URL=postgres://localhost/clube clube worker"],
  },
  migrate: {
    synopsis: ["clube migrate"],
    summary: "Applies pending database migrations and exits (serve and worker also apply them on start).",
    examples: ["DATABASE_URL=postgres://localhost/clube clube migrate"],
  },
  "club create": {
    synopsis: ["clube club create --name NAME [--config FILE] [--json]"],
    summary: "Creates a club with a test and a live secret key (printed once) and publishes its configuration in both environments.",
    options: [
      ["--name NAME", "the club's name, shown to staff"],
      [
        "--config FILE",
        "a configuration document (see docs/configuration.md and examples/club.json), or a saved `GET /v1/config` answer; default: a starter configuration",
      ],
      ["--json", "print {club_id, keys: {test, live}} as JSON"],
    ],
    examples: ['clube club create --name "Cassino Aurora" --config examples/club.json --json'],
    notes: "Every problem of the file is listed at once, as FILE: /json/pointer: problem.",
  },
  "config publish": {
    synopsis: ["clube config publish --club ID --env test|live FILE"],
    summary:
      "Saves FILE as a new configuration version of the club in that environment and puts it in force (a running server picks it up on its next request).",
    options: [...CLUB_AND_ENV, ["FILE", "a configuration document, or a saved `GET /v1/config` answer (its `config` is published)"]],
    examples: [
      "curl -s -H 'Authorization: Bearer cf_test_…' http://localhost:3000/v1/config > club.json",
      "clube config publish --club club_… --env test club.json",
    ],
    notes: "Every problem of the file is listed at once, as FILE: /json/pointer: problem; nothing is published then.",
  },
  "webhooks add": {
    synopsis: ["clube webhooks add --club ID --env test|live --url URL [--events a,b] [--json]"],
    summary: "Registers a webhook endpoint and prints its whsec_ signing secret once.",
    options: [
      ...CLUB_AND_ENV,
      ["--url URL", "where deliveries are POSTed (a private address needs CLUBE_ALLOW_PRIVATE_WEBHOOKS=1)"],
      ["--events a,b", "event types to send (default: the standard subscription)"],
      ["--json", "print {id, secret} as JSON"],
    ],
    examples: ["clube webhooks add --club club_… --env test --url https://example.com/hooks --events reward.granted,level.up"],
  },
  keys: {
    synopsis: KEYS_SYNOPSIS,
    summary:
      "Lists, creates, rolls and revokes the club's secret keys. Keys are printed in full only by create and roll; list shows the prefix and last 4 characters.",
    options: [
      ...CLUB_AND_ENV,
      ["KEY_ID", "the key to roll or revoke (key_…, from `keys list`)"],
      ["--expire-old-after SECONDS", "roll: how long the old key keeps working (0 to 604800, default 0)"],
      ["--json", "print the API's answer as JSON"],
    ],
    examples: ["clube keys list --club club_… --env live", "clube keys roll key_… --club club_… --env live --expire-old-after 3600"],
  },
  "staff add": {
    synopsis: ["clube staff add --club ID --email EMAIL --role owner|operator|viewer [--env test|live] [--name NAME] [--json]"],
    summary:
      "Adds a staff member to a club and prints a one-time temporary password (only its hash is stored). The member signs in to the console with it and changes it.",
    options: [
      ["--club ID", "the club (club_…), as `club create` printed it"],
      ["--email EMAIL", "the sign-in e-mail, unique in the club"],
      ["--role ROLE", "owner (everything), operator (day-to-day changes) or viewer (read-only, no contact data or secrets)"],
      ["--env test|live", "limit the member to one environment (default: both)"],
      ["--name NAME", "the display name (default: the e-mail's local part)"],
      ["--json", "print the staff member and temporary_password as JSON"],
    ],
    examples: ["clube staff add --club club_… --email ana@example.com --role operator --env test"],
  },
  help: {
    synopsis: ["clube help [COMMAND]", "clube COMMAND --help"],
    summary: "Shows every command, or one command's options and examples.",
    examples: ["clube help config publish", "clube keys --help"],
  },
};

/** The usage overview: every command's synopsis. */
export const USAGE = `usage:\n${Object.values(COMMANDS)
  .flatMap((command) => command.synopsis)
  .map((line) => `  ${line}`)
  .join("\n")}\n\nRun \`clube help COMMAND\` for a command's options and examples.`;

/** The help of `words` (`["config", "publish"]`, `["keys"]`), or null when no command has those words. */
export function helpFor(words: string[]): string | null {
  const name = [words.slice(0, 2).join(" "), words[0]].find((key) => key !== undefined && Object.hasOwn(COMMANDS, key));
  const prefixed = name ?? Object.keys(COMMANDS).find((key) => key.split(" ")[0] === words[0]);
  if (words.length === 0 || !prefixed) return null;
  const command = COMMANDS[prefixed];
  const table = (rows: [string, string][]) => {
    const width = Math.max(...rows.map(([left]) => left.length));
    return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`).join("\n");
  };
  const sections = [
    `usage:\n${command.synopsis.map((line) => `  ${line}`).join("\n")}`,
    command.summary,
    command.options ? `options:\n${table(command.options)}` : "",
    command.notes ?? "",
    command.examples ? `examples:\n${command.examples.map((line) => `  ${line}`).join("\n")}` : "",
    `environment:\n${table(ENVIRONMENT)}`,
  ];
  return sections.filter(Boolean).join("\n\n");
}
