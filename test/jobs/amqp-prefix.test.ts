import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openQueue } from "../../server/src/jobs/open-queue.js";
import type { Queue } from "../../server/src/jobs/queue.js";
import { readSettings } from "../../server/src/settings.js";
import { createVhost, type Vhost } from "../async/support/rabbit-vhost.js";
import { sleep, waitFor } from "./support/wait.js";

const run = promisify(execFile);

/**
 * Two deployments on one RabbitMQ vhost, told apart by `CLUBE_AMQP_PREFIX`:
 * each consumes only its own jobs, and every object either declares carries
 * its prefix (no shared work, delay or dead-letter queue).
 */
describe("CLUBE_AMQP_PREFIX: two deployments on one vhost", () => {
  let vhost: Vhost;
  const queues: Queue[] = [];
  const open = (prefix: string | undefined) => {
    const settings = readSettings({ AMQP_URL: vhost.url, ...(prefix === undefined ? {} : { CLUBE_AMQP_PREFIX: prefix }) });
    const queue = openQueue({ amqpUrl: settings.amqpUrl, amqpPrefix: settings.amqpPrefix, db: undefined as never });
    queues.push(queue);
    return queue;
  };

  beforeAll(async () => {
    vhost = await createVhost();
  });
  afterAll(async () => {
    await Promise.all(queues.map((queue) => queue.close()));
    await vhost?.delete();
  });

  it("keeps today's names by default and refuses a prefix that is no plain name", () => {
    expect(readSettings({}).amqpPrefix).toBe("clube.");
    expect(() => readSettings({ CLUBE_AMQP_PREFIX: "a b" })).toThrow(/CLUBE_AMQP_PREFIX/);
  });

  it("delivers each deployment's jobs to its own consumers only, retries included", async () => {
    const acme = open("acme.");
    const beta = open("beta.");
    const received: Record<string, string[]> = { acme: [], beta: [] };
    let failedOnce = false;
    await acme.consume("webhook", async (_payload, meta) => void received.acme.push(meta.id));
    await beta.consume("webhook", async (_payload, meta) => {
      // One failure, so beta also declares and uses its delay queue.
      if (meta.id === "beta-0" && !failedOnce) {
        failedOnce = true;
        throw new Error("once");
      }
      received.beta.push(meta.id);
    });
    for (let i = 0; i < 20; i++) {
      await acme.publish("webhook", { i }, { id: `acme-${i}` });
      await beta.publish("webhook", { i }, { id: `beta-${i}` });
    }
    await waitFor("every job at its own deployment", () => received.acme.length === 20 && received.beta.length === 20, 60_000);
    await sleep(300);
    expect(received.acme.every((id) => id.startsWith("acme-"))).toBe(true);
    expect(received.beta.every((id) => id.startsWith("beta-"))).toBe(true);
    expect(new Set(received.beta).size).toBe(20);

    const { stdout } = await run("rabbitmqctl", ["--quiet", "list_queues", "-p", vhost.name, "name"], { timeout: 30_000 });
    const names = stdout
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && line !== "name");
    expect(names).toContain("acme.v2.webhook");
    expect(names).toContain("beta.v2.webhook");
    expect(names.some((name) => name.startsWith("beta.v2.webhook.delay."))).toBe(true);
    expect(names.filter((name) => !name.startsWith("acme.") && !name.startsWith("beta."))).toEqual([]);
  });
});
