import { parseArgs } from "node:util";
import { schemaValidators, formatAjvError } from "../../../generated/validators.js";
import { createEndpoint } from "../usecases/webhooks/index.js";
import type { Settings } from "../settings.js";
import { CliError } from "./cli-errors.js";
import { withClub } from "./database.js";

/**
 * `clube webhooks add --club ID --env test|live --url URL [--events a,b] [--json]`:
 * the operator's way to register an endpoint (the same use case as
 * POST /v1/webhook_endpoints, validated by the same schema). Prints the
 * `whsec_` secret once.
 */
export async function webhooksAdd(settings: Settings, args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { club: { type: "string" }, env: { type: "string" }, url: { type: "string" }, events: { type: "string" }, json: { type: "boolean" } },
  });
  const env = values.env;
  if (!values.club || (env !== "test" && env !== "live") || !values.url) {
    throw usage("webhooks add needs --club ID --env test|live --url URL [--events a,b] [--json]");
  }
  const input = {
    url: values.url,
    events: values.events
      ? values.events
          .split(",")
          .map((e) => e.trim())
          .filter(Boolean)
      : [],
  };
  const validate = schemaValidators.WebhookEndpointCreate;
  // The schema names request fields (`body.url`); the operator typed options.
  if (!validate(input)) throw usage(formatAjvError(validate.errors![0], "body").replace(/^body\.(url|events)(\[\d+\])?/, "--$1"));
  const created = await withClub(settings, values.club, (db) =>
    createEndpoint(db, { clubId: values.club!, env }, input, { allowPrivate: settings.allowPrivateWebhooks }, new Date()),
  );
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ id: created.id, secret: created.secret })}\n`);
  } else {
    process.stdout.write(
      `Webhook endpoint ${created.id} → ${created.url}\n  secret: ${created.secret} (shown only now)\n  events: ${created.effective_events.join(", ")}\n`,
    );
  }
}

function usage(message: string): CliError {
  return new CliError(`${message}\n(see \`clube help webhooks add\`)`, 2);
}
