import { parseArgs } from "node:util";
import type { Settings } from "../settings.js";
import { createApiKey, listApiKeys, revokeApiKey, rollApiKey, type ApiKeyView } from "../usecases/club/index.js";
import { CliError } from "./cli-errors.js";
import { withClub } from "./database.js";

/**
 * `clube keys list|create|roll|revoke --club ID --env test|live …`: the
 * operator's key management, the same use cases as /v1/keys. Keys are printed
 * in full only by create and roll (they are stored hashed); `--json` prints
 * the API's answer.
 */
export const KEYS_USAGE = `clube keys list --club ID --env test|live [--json]
  clube keys create --club ID --env test|live [--json]
  clube keys roll KEY_ID --club ID --env test|live [--expire-old-after SECONDS] [--json]
  clube keys revoke KEY_ID --club ID --env test|live [--json]`;

/** The longest overlap a roll accepts (the contract's `expire_old_after_seconds` maximum). */
const MAX_OVERLAP_SECONDS = 604_800;

export async function keysCommand(settings: Settings, sub: string | undefined, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { club: { type: "string" }, env: { type: "string" }, json: { type: "boolean" }, "expire-old-after": { type: "string" } },
  });
  const env = values.env;
  if (!values.club || (env !== "test" && env !== "live")) throw usage(`keys ${sub ?? ""} needs --club ID --env test|live`);
  const scope = { clubId: values.club, env } as const;
  const needsId = sub === "roll" || sub === "revoke";
  if (positionals.length !== (needsId ? 1 : 0)) throw usage(`usage:\n  ${KEYS_USAGE}`);
  const out = (json: unknown, text: string) => process.stdout.write(values.json ? `${JSON.stringify(json)}\n` : text);
  const now = new Date();

  switch (sub) {
    case "list": {
      const keys: ApiKeyView[] = [];
      await withClub(settings, scope.clubId, async (db) => {
        let page = await listApiKeys(db, scope, { limit: 100 });
        keys.push(...page.data);
        while (page.has_more) {
          page = await listApiKeys(db, scope, { limit: 100, starting_after: keys[keys.length - 1].id });
          keys.push(...page.data);
        }
      });
      return void out(keys, keys.map((key) => `${line(key, now)}\n`).join(""));
    }
    case "create": {
      const created = await withClub(settings, scope.clubId, (db) => createApiKey(db, scope, now));
      return void out(created, `Key ${created.id} created: ${created.secret}\nThe key is shown only now; store it safely.\n`);
    }
    case "roll": {
      const raw = values["expire-old-after"] ?? "0";
      const seconds = /^\d+$/.test(raw) ? Number(raw) : NaN;
      if (!(seconds <= MAX_OVERLAP_SECONDS)) throw usage(`--expire-old-after must be a whole number of seconds from 0 to ${MAX_OVERLAP_SECONDS}`);
      const rolled = await withClub(settings, scope.clubId, (db) => rollApiKey(db, scope, positionals[0], seconds, now));
      return void out(
        rolled,
        `Key ${rolled.key.id} created: ${rolled.key.secret}\nThe key is shown only now; store it safely.\n` +
          `Old key ${rolled.previous.id} works until ${rolled.previous.expires_at}.\n`,
      );
    }
    case "revoke": {
      const revoked = await withClub(settings, scope.clubId, (db) => revokeApiKey(db, scope, positionals[0], now));
      return void out(revoked, `Key ${revoked.id} revoked at ${revoked.revoked_at}.\n`);
    }
  }
  throw usage(`usage:\n  ${KEYS_USAGE}`);
}

/** `key_… cf_test_a1b2…Xy9Z  created …  active|expires …|expired …|revoked …`. */
function line(key: ApiKeyView, now: Date): string {
  const state = key.revoked_at
    ? `revoked ${key.revoked_at}`
    : key.expires_at
      ? `${new Date(key.expires_at) > now ? "expires" : "expired"} ${key.expires_at}`
      : "active";
  return `${key.id}  ${key.key_prefix}…${key.last4 ?? "????"}  created ${key.created_at}  ${state}`;
}

function usage(message: string): CliError {
  return new CliError(`${message}\n(see \`clube help keys\`)`, 2);
}
