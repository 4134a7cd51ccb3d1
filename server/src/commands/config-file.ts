import { readFile } from "node:fs/promises";
import { ApiError } from "../usecases/shared/errors.js";
import { CliError } from "./cli-errors.js";

/**
 * A configuration file as an operator hands it to `club create --config` or
 * `config publish`: either the bare configuration document
 * (examples/club.json) or what `GET /v1/config` answers (`{club_id, env,
 * config}`), which is the obvious thing to save and edit. `pointer` is where
 * the configuration sits in the file ("" or "/config"), so problems can be
 * shown at their place in the file.
 */
export interface ConfigFile {
  path: string;
  config: unknown;
  pointer: string;
}

export async function readConfigFile(path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message;
    throw new CliError(`${path}: cannot read the file (${reason})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${path}: not valid JSON: ${jsonSyntaxProblem(text, (err as Error).message)}`);
  }
  return isEnvelope(value) ? { path, config: value.config, pointer: "/config" } : { path, config: value, pointer: "" };
}

/** `GET /v1/config`'s answer: the configuration under `config` (a configuration itself has no `config` field). */
function isEnvelope(value: unknown): value is { config: unknown } {
  return isObject(value) && isObject(value.config);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** JSON.parse's message with its character offset turned into a line and column, which an editor can jump to. */
export function jsonSyntaxProblem(text: string, message: string): string {
  const at = /at position (\d+)/.exec(message);
  if (!at) return message;
  const offset = Number(at[1]);
  const before = text.slice(0, offset).split("\n");
  const where = `line ${before.length}, column ${before[before.length - 1].length + 1}`;
  return message.replace(/\s*(\(line \d+ column \d+\)|in JSON)?\s*at position \d+.*$/, "") + ` (${where})`;
}

/**
 * A field path as validation messages write it from `root`
 * (`config.rules[3].when`, `config.tierQty["vip tier"]`), as the JSON pointer
 * of RFC 6901 under `base` (`/rules/3/when`).
 */
export function pointerOf(path: string, root: string, base = ""): string {
  const segments = [...path.slice(root.length).matchAll(/\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g)].map(
    (m) => m[1] ?? m[2] ?? (JSON.parse(m[3]) as string),
  );
  return base + segments.map((s) => `/${s.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

/** A field path from `root` at the start of a message, or anywhere in it. */
function fieldPaths(root: string): RegExp {
  return new RegExp(`\\b${root}(?:\\.[A-Za-z_$][\\w$-]*|\\[\\d+\\]|\\["(?:[^"\\\\]|\\\\.)*"\\])*`, "g");
}

/**
 * A 422 about the configuration, in the file's words: one line per problem,
 * `club.json: /rules/3/when: must …`, other paths in the sentence as pointers
 * too. Anything else is returned unchanged.
 */
export function inFileWords(err: unknown, file: ConfigFile, root = "config"): unknown {
  if (!(err instanceof ApiError) || err.code !== "validation_failed") return err;
  const problems = err.details ?? [err.message];
  const lines = problems.map((problem) => {
    const paths = fieldPaths(root);
    const lead = new RegExp(`^${paths.source}`).exec(problem)?.[0];
    const rest = (lead ? problem.slice(lead.length).trimStart() : problem).replace(paths, (p) => pointerOf(p, root, file.pointer) || "/");
    return `${file.path}: ${lead ? pointerOf(lead, root, file.pointer) || "/" : "/"}: ${rest}`;
  });
  const heading = lines.length > 1 ? `${file.path}: ${lines.length} problems in the configuration\n` : "";
  return new CliError(heading + lines.join("\n"));
}
