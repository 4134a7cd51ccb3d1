import { randomBytes } from "node:crypto";
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * A RabbitMQ virtual host of its own for one stack. The server names its
 * queues `clube.v2.event` and `clube.v2.webhook` by default (CLUBE_AMQP_PREFIX), and a
 * vhost keeps parallel suites and runs apart; deleting it removes every queue
 * the run declared. Managed with `rabbitmqctl` (the broker runs on this machine).
 */

/** The broker as the suites reach it (guest/guest on 127.0.0.1:5672 unless CLUBE_TEST_AMQP_URL says otherwise). */
export const BROKER_URL = process.env.CLUBE_TEST_AMQP_URL ?? "amqp://guest:guest@127.0.0.1:5672";

export interface Vhost {
  name: string;
  /** The AMQP URL of the vhost on the broker. */
  url: string;
  /** Cuts every client connection to this vhost (others are untouched), as a broker restart would. */
  closeConnections(): Promise<void>;
  delete(): Promise<void>;
}

async function rabbitmqctl(...args: string[]): Promise<void> {
  try {
    await run("rabbitmqctl", ["--quiet", ...args], { timeout: 30_000 });
  } catch (error) {
    const e = error as { stderr?: string; message: string };
    throw new Error(`rabbitmqctl ${args.join(" ")} failed: ${e.stderr?.trim() || e.message}`);
  }
}

export async function createVhost(): Promise<Vhost> {
  const name = `clube-async-${randomBytes(5).toString("hex")}`;
  const broker = new URL(BROKER_URL);
  await rabbitmqctl("add_vhost", name);
  await rabbitmqctl("set_permissions", "-p", name, decodeURIComponent(broker.username), ".*", ".*", ".*");
  const url = new URL(BROKER_URL);
  url.pathname = `/${encodeURIComponent(name)}`;
  return {
    name,
    url: url.toString(),
    closeConnections: () => rabbitmqctl("close_all_connections", "--vhost", name, "clube async test: connection drop"),
    delete: () => rabbitmqctl("delete_vhost", name),
  };
}

/** `url` with its host and port replaced, e.g. to go through a TCP proxy. */
export function throughPort(url: string, port: number): string {
  const rewritten = new URL(url);
  rewritten.hostname = "127.0.0.1";
  rewritten.port = String(port);
  return rewritten.toString();
}
