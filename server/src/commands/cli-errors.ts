import { ApiError } from "../usecases/shared/errors.js";

/**
 * An error the operator can fix (a bad file, an unknown club, an unreachable
 * database): the CLI prints its message as is, without a stack, and exits
 * with `exitCode` (2 for usage mistakes, 1 otherwise).
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** Network failures of a client socket: the database, the broker or a webhook target is not there. */
const UNREACHABLE = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ECONNRESET"]);

/** PostgreSQL's SQLSTATE classes that mean "wrong connection settings" (08 connection, 28 authorization, 3D no such database). */
const CONNECTION_SQLSTATE = /^(08|28|3D)/;

/**
 * The one line (or lines, for a configuration with several problems) the CLI
 * prints for `err`, and its exit code; null for an unexpected error, which is
 * a bug to report with its stack.
 */
export function explain(err: unknown): { message: string; exitCode: number } | null {
  if (err instanceof CliError) return { message: err.message, exitCode: err.exitCode };
  const e = err as { code?: unknown; message?: string; address?: string; port?: number };
  // parseArgs refuses unknown or malformed options: a usage error, like a missing one.
  if (typeof e?.code === "string" && e.code.startsWith("ERR_PARSE_ARGS_")) return { message: e.message ?? "bad options", exitCode: 2 };
  // Use-case errors (an unknown club, a key to revoke that does not exist): the operator's input.
  if (err instanceof ApiError) return { message: `error: ${err.message}`, exitCode: 1 };
  if (typeof e?.code === "string" && (UNREACHABLE.has(e.code) || (CONNECTION_SQLSTATE.test(e.code) && e.code.length === 5))) {
    const where = e.address ? ` ${e.address}${e.port ? `:${e.port}` : ""}` : "";
    return {
      message: `error: cannot reach${where || " a service"} (${e.message ?? e.code}); is the database or broker running, and are DATABASE_URL and AMQP_URL right?`,
      exitCode: 1,
    };
  }
  return null;
}
