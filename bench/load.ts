/**
 * What every benchmark part shares: the load driver (autocannon, from this
 * process) and the baseline server (bench/baseline-server.mjs, its own process).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { freePort } from "../test/e2e/clube-command.js";

interface AutocannonResult {
  "2xx": number;
  non2xx: number;
  errors: number;
  timeouts: number;
}
interface AutocannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  setupRequest(request: Record<string, unknown>): Record<string, unknown>;
  onResponse(status: number): void;
}
/** Awaitable, and emits `response` (client, status, bytes, milliseconds) for every answer. */
type Autocannon = (options: Record<string, unknown> & { requests: AutocannonRequest[] }) => PromiseLike<AutocannonResult> & {
  on(event: "response", listener: (client: unknown, status: number, bytes: number, ms: number) => void): void;
};
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon;

const ROOT = fileURLToPath(new URL("../", import.meta.url));

/** One request of a load; a load of several steps runs them in turn on each connection (a session). */
export interface Step {
  method: "GET" | "POST";
  /** The path of the i-th request of this step. */
  path(i: number): string;
  body?(i: number): unknown;
  headers?(i: number): Record<string, string>;
  /** Statuses that count as answered well (default: 2xx). */
  ok?(status: number): boolean;
}

export interface Load {
  url: string;
  /** Sent as `Authorization: Bearer` on every request. */
  key?: string;
  connections: number;
  /** Requests in all (over every step). */
  amount: number;
  steps: Step[];
}

export interface Measured {
  requests: number;
  seconds: number;
  ok: number;
  failed: number;
  timeouts: number;
  p50: number;
  p99: number;
}

/** The `p`-th percentile of ascending `sorted` (0 when empty). */
export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

/** Runs `amount` requests with `connections` open at once. */
export async function drive(load: Load): Promise<Measured> {
  const started = performance.now();
  let lastAnswer = started;
  let ok = 0;
  let failed = 0;
  const requests = load.steps.map((step): AutocannonRequest => {
    let next = 0;
    const headers: Record<string, string> = {};
    if (step.body) headers["content-type"] = "application/json";
    if (load.key) headers.authorization = `Bearer ${load.key}`;
    const isOk = step.ok ?? ((status: number) => status >= 200 && status < 300);
    return {
      method: step.method,
      path: step.path(0),
      headers,
      setupRequest: (request) => {
        const i = next++;
        const extra = step.headers?.(i);
        return {
          ...request,
          path: step.path(i),
          ...(extra ? { headers: { ...headers, ...extra } } : {}),
          ...(step.body ? { body: JSON.stringify(step.body(i)) } : {}),
        };
      },
      onResponse: (status) => {
        lastAnswer = performance.now();
        if (isOk(status)) ok++;
        else failed++;
      },
    };
  });
  const running = autocannon({ url: load.url, connections: Math.min(load.connections, load.amount), amount: load.amount, timeout: 30, requests });
  // Every answer's time, to the microsecond: autocannon's own percentiles are whole milliseconds and count 2xx only.
  const times: number[] = [];
  running.on("response", (_client: unknown, _status: number, _bytes: number, ms: number) => times.push(ms));
  const result = await running;
  times.sort((a, b) => a - b);
  return {
    requests: load.amount,
    // From the first request to the last answer: autocannon's own duration is quantized to whole seconds.
    seconds: (lastAnswer - started) / 1000,
    ok,
    failed: failed + result.errors,
    timeouts: result.timeouts,
    p50: Number(percentile(times, 50).toFixed(1)),
    p99: Number(percentile(times, 99).toFixed(1)),
  };
}

/** Answers per second of a measured load. */
export const perSecond = (m: Measured, per = 1) => Math.round((m.ok * per) / m.seconds);

export interface Baseline {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** bench/baseline-server.mjs as its own process; resolves once it listens. */
export async function startBaseline(database: string, env: Record<string, string> = {}): Promise<Baseline> {
  const port = await freePort();
  const child = spawn(process.execPath, ["bench/baseline-server.mjs"], {
    cwd: ROOT,
    env: { ...process.env, ...env, BASELINE_DATABASE: database, PORT: port },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const deadline = Date.now() + 60_000;
  while (!output.includes("baseline listening")) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`baseline server did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Prints rows as a Markdown table. */
export function printRows(header: string[], rows: string[][]): void {
  const widths = header.map((title, c) => Math.max(title.length, ...rows.map((row) => row[c].length)));
  const format = (cells: string[]) => `| ${cells.map((cell, c) => cell.padEnd(widths[c])).join(" | ")} |`;
  console.log(format(header));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const row of rows) console.log(format(row));
}
