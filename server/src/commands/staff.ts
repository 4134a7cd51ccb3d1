import { parseArgs } from "node:util";
import type { StaffRole } from "../db/entities/index.js";
import type { Settings } from "../settings.js";
import { ApiError } from "../usecases/shared/errors.js";
import { createStaffMember, staffView } from "../usecases/staff/index.js";
import { CliError } from "./cli-errors.js";
import { withClub } from "./database.js";

/**
 * `clube staff add --club ID --email E --role owner|operator|viewer [--env test|live] [--name NAME]`:
 * adds a staff member with a one-time temporary password, printed once (only
 * its scrypt hash is stored); the member signs in with it at POST
 * /v1/staff/sessions and changes it with POST /v1/staff/password.
 */
export const STAFF_USAGE = "clube staff add --club ID --email EMAIL --role owner|operator|viewer [--env test|live] [--name NAME] [--json]";

const ROLES = ["owner", "operator", "viewer"];

export async function staffCommand(settings: Settings, sub: string | undefined, args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      club: { type: "string" },
      email: { type: "string" },
      role: { type: "string" },
      env: { type: "string" },
      name: { type: "string" },
      json: { type: "boolean" },
    },
  });
  if (sub !== "add" || positionals.length > 0) throw usage(`usage:\n  ${STAFF_USAGE}`);
  if (!values.club || !values.email || !values.role) throw usage("staff add needs --club ID --email EMAIL --role owner|operator|viewer");
  if (!ROLES.includes(values.role)) throw usage(`--role must be owner, operator or viewer, not ${values.role}`);
  if (values.env !== undefined && values.env !== "test" && values.env !== "live") throw usage(`--env must be test or live, not ${values.env}`);
  const input = {
    email: values.email,
    display_name: values.name ?? values.email.split("@")[0],
    role: values.role as StaffRole,
    env: (values.env as "test" | "live" | undefined) ?? null,
  };
  const created = await withClub(settings, values.club, (db) => createStaffMember(db, values.club!, input, new Date())).catch((err: unknown) => {
    if (err instanceof ApiError) throw new CliError(`error: ${err.message.replace(/^body\./, "--")}`);
    throw err;
  });
  const member = staffView(created.member);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ...member, temporary_password: created.temporaryPassword })}\n`);
  } else {
    process.stdout.write(
      `Staff member ${member.id} (${member.email}, ${member.role}${member.env ? `, ${member.env} only` : ""}) added to ${values.club}.\n` +
        `  temporary password: ${created.temporaryPassword}\n` +
        `Shown only now: sign in at POST /v1/staff/sessions and change it with POST /v1/staff/password.\n`,
    );
  }
}

function usage(message: string): CliError {
  return new CliError(`${message}\n(see \`clube help staff\`)`, 2);
}
