import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import type { TestDatabase } from "../support/databases.js";

/**
 * The `clube` command run as an operator runs it: `node server/bin/clube.mjs
 * …` from the repository root (what `npm start` and `npx clube` execute), in a
 * child process with its own environment, talked to only through its output,
 * its exit code and HTTP.
 */

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BIN = "server/bin/clube.mjs";
/**
 * The first start after a source changed compiles the service (server/bin/
 * compile.mjs), and loading it takes seconds of CPU, more
 * on a busy 2-core machine. Kept under the suites' 60 s timeouts so a stuck
 * command fails with its own output rather than a bare vitest timeout.
 */
const STARTUP_TIMEOUT_MS = 50_000;
const COMMAND_TIMEOUT_MS = 50_000;
const STOP_TIMEOUT_MS = 10_000;

/** The variables that choose where the command keeps its data and listens. */
export interface ClubeEnv {
  CLUBE_DATA_DIR: string;
  DATABASE_URL?: string;
  PORT?: string;
}

/** The environment of a test database: its data directory, and its URL when it is PostgreSQL. */
export function envFor(target: TestDatabase): ClubeEnv {
  return target.url ? { CLUBE_DATA_DIR: target.dataDir, DATABASE_URL: target.url } : { CLUBE_DATA_DIR: target.dataDir };
}

/**
 * This process's environment without the settings the command reads (a
 * developer's DATABASE_URL or AMQP_URL must not leak into a test), plus `env`.
 */
function childEnv(env: ClubeEnv): NodeJS.ProcessEnv {
  const inherited = { ...process.env };
  for (const name of ["PORT", "DATABASE_URL", "CLUBE_DATA_DIR", "AMQP_URL", "CLUBE_PUBLIC_URL"]) delete inherited[name];
  return { ...inherited, ...env };
}

function spawnClube(args: string[], env: ClubeEnv): ChildProcess {
  return spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
}

export interface CommandResult {
  /** The exit code; null when a signal ended the process. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `clube ...args` to completion. */
export async function runClube(args: string[], env: ClubeEnv): Promise<CommandResult> {
  const child = spawnClube(args, env);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const killer = setTimeout(() => child.kill("SIGKILL"), COMMAND_TIMEOUT_MS);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    // "close", not "exit": the output streams are fully read by then.
    child.once("close", (exitCode) => resolve(exitCode));
  });
  clearTimeout(killer);
  return { code, stdout, stderr };
}

/** What `clube serve` printed on start, parsed. */
export interface ServeBanner {
  /** The listen URL as printed, e.g. `http://localhost:3000`. */
  url: string;
  /** The API reference URL as printed. */
  docsUrl: string;
  /** The demo club, when the database had no other club. */
  demo: { clubId: string; testKey: string } | null;
}

/** How a process ended: its exit code, or the signal that ended it. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ClubeServer extends ServeBanner {
  /**
   * Sends SIGTERM and waits for the process to exit; SIGKILL after 10 s.
   * Resolves with how it ended. Safe to call again once it has exited.
   */
  stop(): Promise<ProcessExit>;
}

const LISTENING = /^Clube \S+ listening on (http:\/\/\S+)$/m;
const DOCS = /^ {2}API reference: (\S+)/m;
const DEMO = /^ {2}demo club (club_\w+) — test key: (cf_test_\w+)$/m;
const NO_DEMO = /^ {2}create a club with: /m;

/** Parses the banner once its last line (the demo key, or the hint to create a club) is out; null before that. */
function parseBanner(output: string): ServeBanner | null {
  const demo = DEMO.exec(output);
  if (!demo && !NO_DEMO.test(output)) return null;
  const listening = LISTENING.exec(output);
  const docs = DOCS.exec(output);
  if (!listening || !docs) throw new Error(`clube serve printed its last line without the listen and API reference URLs:\n${output}`);
  return { url: listening[1], docsUrl: docs[1], demo: demo ? { clubId: demo[1], testKey: demo[2] } : null };
}

/**
 * Starts `clube serve` on `port` and resolves once it has printed its banner.
 * Callers must `stop()` it (in `afterAll`), also when a test fails.
 */
export async function startServe(env: ClubeEnv & { PORT: string }): Promise<ClubeServer> {
  const child = spawnClube(["serve"], env);
  let output = "";
  const exited = new Promise<ProcessExit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));

  const banner = await new Promise<ServeBanner>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`clube serve printed no banner within ${STARTUP_TIMEOUT_MS} ms`)), STARTUP_TIMEOUT_MS);
    let parsed: ServeBanner | null = null;
    // Keeps reading after the banner so the child never blocks on a full pipe.
    const collect = (chunk: Buffer) => {
      if (parsed) return;
      output += chunk.toString();
      try {
        parsed = parseBanner(output);
        if (parsed) {
          clearTimeout(timer);
          resolve(parsed);
        }
      } catch (err) {
        clearTimeout(timer);
        reject(err);
      }
    };
    child.stdout!.on("data", collect);
    child.stderr!.on("data", collect);
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`clube serve exited (code ${code}, signal ${signal}) before its banner`));
    });
  }).catch(async (err: Error) => {
    await stopChild(child, exited);
    throw new Error(`${err.message}\n--- output ---\n${output}`);
  });

  return { ...banner, stop: () => stopChild(child, exited) };
}

async function stopChild(child: ChildProcess, exited: Promise<ProcessExit>): Promise<ProcessExit> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGTERM");
    const forced = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    void exited.finally(() => clearTimeout(forced));
  }
  return exited;
}

/** A TCP port nothing listens on right now, for `PORT`. */
export async function freePort(): Promise<string> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(String(address.port)) : reject(new Error("no port"))));
    });
  });
}

export interface HttpResult {
  status: number;
  /** Parsed JSON, or the text when the answer is not JSON. */
  body: any;
}

/** One HTTP call as the README's curl lines make it: `Authorization: Bearer <credential>`, JSON body when given. */
export async function call(url: string, method: string, path: string, credential: string, body?: unknown): Promise<HttpResult> {
  const headers: Record<string, string> = { Authorization: `Bearer ${credential}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const isJson = (response.headers.get("Content-Type") ?? "").includes("application/json");
  return { status: response.status, body: isJson ? JSON.parse(text) : text };
}
