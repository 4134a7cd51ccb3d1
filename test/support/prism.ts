import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const PRISM = fileURLToPath(new URL("../../node_modules/.bin/prism", import.meta.url));
const DOCUMENT = "generated/openapi.json";
const STARTUP_TIMEOUT_MS = 50_000; // loading the contract takes Prism ~10 s of CPU on an idle machine
const LOG_TAIL_CHARS = 4_000;

export interface PrismServer {
  /** Base URL to call, e.g. `http://127.0.0.1:43121`. */
  url: string;
  /** Prism's latest output, for failure messages. */
  log(): string;
  /** Stops this Prism process (by its own PID) and waits for it to exit. */
  stop(): Promise<void>;
}

export type PrismMode =
  /** Answers from the contract's examples. */
  | { mode: "mock" }
  /** Forwards to a real server and, with `--errors`, turns any request or response that breaks the contract into an error answer. */
  | { mode: "proxy"; upstream: string };

/**
 * Starts Prism on a free port against generated/openapi.json and resolves
 * once it answers HTTP. Call `stop()` in `afterAll`.
 */
export async function startPrism(mode: PrismMode, document = DOCUMENT): Promise<PrismServer> {
  const port = await freePort();
  const args = mode.mode === "mock" ? ["mock", document, "-p", String(port)] : ["proxy", document, mode.upstream, "--errors", "-p", String(port)];
  // Spawned directly, not through npx: npx leaves the Prism child running when
  // it is killed, and we must stop exactly the process we started.
  const child = spawn(PRISM, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-LOG_TAIL_CHARS);
  };
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);

  const server: PrismServer = {
    url: `http://127.0.0.1:${port}`,
    log: () => output,
    stop: () => stopProcess(child),
  };
  try {
    await waitUntilAnswering(server.url, child);
  } catch (err) {
    await server.stop();
    throw new Error(`Prism did not start: ${(err as Error).message}\n${output}`);
  }
  return server;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Any HTTP answer (even a 404 for `/`) means Prism is listening. */
async function waitUntilAnswering(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
    try {
      await fetch(url, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  throw new Error(`no answer on ${url} within ${STARTUP_TIMEOUT_MS} ms`);
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const forced = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(forced);
}
