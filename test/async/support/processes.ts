import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { freePort } from "../../e2e/clube-command.js";
import { clubClient, type ClubClient } from "./client.js";
import type { StackResources } from "./stack-resources.js";

/**
 * Clube as separate operating-system processes — `node server/bin/clube.mjs
 * serve` and `… worker`, as an operator runs them — so a test can kill one
 * with SIGKILL, run two workers, or restart everything. On the embedded
 * stack `serve` is also the worker; on RabbitMQ `worker` processes consume.
 */

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
/** The first start after a source change compiles the service (server/bin/compile.mjs): seconds of CPU, more on a busy 2-core machine. */
const START_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 15_000;

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ClubeProcess {
  readonly command: "serve" | "worker";
  readonly pid: number;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Sends `signal` (SIGTERM: a graceful stop; SIGKILL: a crash) and waits for the exit. */
  stop(signal?: "SIGTERM" | "SIGKILL"): Promise<ProcessExit>;
}

/** The settings of every process of one stack (all processes share the database and the broker). */
export interface ProcessEnv {
  CLUBE_DATA_DIR: string;
  DATABASE_URL?: string;
  AMQP_URL?: string;
  PORT: string;
  CLUBE_PUBLIC_URL: string;
  /** The rate limits' Redis; unset in the stacks (each process counts in memory). */
  CLUBE_REDIS_URL?: string;
  /** How long a crashed process's claims on jobs and webhook attempts last (default 60). */
  CLUBE_LEASE_SECONDS?: string;
}

export async function processEnvFor(resources: StackResources): Promise<ProcessEnv> {
  const port = await freePort();
  const env: ProcessEnv = { CLUBE_DATA_DIR: resources.database.dataDir, PORT: port, CLUBE_PUBLIC_URL: `http://127.0.0.1:${port}` };
  if (resources.database.url) env.DATABASE_URL = resources.database.url;
  if (resources.vhost) env.AMQP_URL = resources.vhost.url;
  return env;
}

/** What `clube serve` prints last when it made the demo club on a fresh database. */
const DEMO_BANNER = /^ {2}demo club (club_\w+) — test key: (cf_test_\w+)$/m;
const WORKER_BANNER = /^Clube worker \S+ consuming from /m;

/** Starts `clube serve`; resolves once it listens, with a client of the demo club it prints. */
export async function startServe(env: ProcessEnv): Promise<{ process: ClubeProcess; club: ClubClient }> {
  const serve = await startClube("serve", env, DEMO_BANNER);
  const [, clubId, testKey] = DEMO_BANNER.exec(serve.output())!;
  return { process: serve, club: clubClient(env.CLUBE_PUBLIC_URL, { clubId, keys: { test: testKey } }) };
}

/** Starts `clube worker`; resolves once its consumers are up. */
export function startWorker(env: ProcessEnv): Promise<ClubeProcess> {
  return startClube("worker", env, WORKER_BANNER);
}

async function startClube(command: "serve" | "worker", env: ProcessEnv, ready: RegExp): Promise<ClubeProcess> {
  // Only this stack's settings: a developer's DATABASE_URL or AMQP_URL must not leak in.
  const inherited = { ...process.env };
  for (const name of ["PORT", "DATABASE_URL", "CLUBE_DATA_DIR", "AMQP_URL", "CLUBE_PUBLIC_URL", "CLUBE_ALLOW_PRIVATE_WEBHOOKS"]) delete inherited[name];
  const child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []), "server/bin/clube.mjs", command], {
    cwd: ROOT,
    env: { ...inherited, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  // BENCH_SERVE_LOG: a file the process's output is copied to as well (e.g. for `--trace-gc` through BENCH_NODE_ARGS).
  const copy = process.env.BENCH_SERVE_LOG;
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (copy) appendFileSync(copy, chunk);
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  const exited = new Promise<ProcessExit>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
  const handle: ClubeProcess = { command, pid: child.pid!, output: () => output, stop: (signal = "SIGTERM") => stopChild(child, exited, signal) };

  const deadline = Date.now() + START_TIMEOUT_MS;
  let exit: ProcessExit | undefined;
  void exited.then((how) => (exit = how));
  while (!ready.test(output)) {
    if (exit || Date.now() > deadline) {
      await handle.stop("SIGKILL");
      throw new Error(`clube ${command} ${exit ? `exited (${JSON.stringify(exit)})` : `printed no banner within ${START_TIMEOUT_MS} ms`}:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return handle;
}

async function stopChild(child: ChildProcess, exited: Promise<ProcessExit>, signal: "SIGTERM" | "SIGKILL"): Promise<ProcessExit> {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill(signal);
    const forced = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
    void exited.finally(() => clearTimeout(forced));
  }
  return exited;
}
