import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Job } from "../../server/src/db/entities/index.js";
import type { Database } from "../../server/src/db/orm.js";
import { describeEachDatabase } from "../support/databases.js";
import { embeddedFixture, TEST_RETRY } from "./support/fixtures.js";
import { gate, sleep, waitFor } from "./support/wait.js";

const hangingWorker = fileURLToPath(new URL("./support/hanging-worker.ts", import.meta.url));

describeEachDatabase("embedded queue", (kind) => {
  const fixture = embeddedFixture(kind);
  let db: Database;

  beforeAll(async () => {
    await fixture.setup();
    db = await fixture.database();
  });
  afterAll(() => fixture.teardown());

  const jobRow = (id: string) => db.em().findOneOrFail(Job, { id });

  it("gives the job of a worker killed with SIGKILL to another worker once the lease runs out, never before", async () => {
    // Renewed every third of it: a child starved of CPU for most of a lease (a loaded 2-core machine) would
    // rightly lose its job, so the lease is long enough that only the kill can end it.
    const LEASE_MS = 2_000;
    const name = fixture.queueName();
    await (await fixture.open()).publish(name, { task: "long" }, { id: "crash-me" });

    const location = fixture.location();
    const child = spawn(process.execPath, ["--import", "tsx", hangingWorker], {
      env: {
        ...process.env,
        CLUBE_TEST_DATABASE_URL: location.url ?? "",
        CLUBE_TEST_DATA_DIR: location.dataDir,
        CLUBE_TEST_QUEUE: name,
        CLUBE_TEST_LEASE_MS: String(LEASE_MS),
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    try {
      await waitFor("the child to start the job", () => output.includes("started crash-me 1\n"), 30_000);

      const seen: Array<{ id: string; attempt: number; at: number }> = [];
      const survivor = await fixture.open({ leaseMs: LEASE_MS });
      await survivor.consume(name, async (_payload, meta) => void seen.push({ ...meta, at: Date.now() }));

      // The child is alive and renews its lease: the job must stay with it past a whole lease.
      await sleep(LEASE_MS * 1.5);
      expect(seen).toEqual([]);

      child.kill("SIGKILL");
      const killedAt = Date.now();
      await exited;
      await waitFor("the survivor to get the job", () => seen.length === 1);
      expect(seen[0]).toMatchObject({ id: "crash-me", attempt: 2 });
      // The last renewal was about a third of a lease before the kill at most (a late heartbeat may add to that):
      // the job waited for the lease, not merely for the next poll (50 ms).
      expect(seen[0].at - killedAt).toBeGreaterThanOrEqual(LEASE_MS / 3);
      await waitFor("the job to be done", async () => (await jobRow("crash-me")).status === "done");
      expect(await jobRow("crash-me")).toMatchObject({ attempts: 2, lockedUntil: null, lastError: null });
    } finally {
      child.kill("SIGKILL");
      await exited;
    }
  });

  it("marks dead, without running it, a job whose worker died during its last allowed attempt", async () => {
    const name = fixture.queueName();
    const past = new Date(Date.now() - 60_000);
    await db.em().insert(Job, {
      id: "died-at-last",
      queue: name,
      payload: { task: "kills its worker" },
      status: "running",
      attempts: TEST_RETRY.maxAttempts,
      runAt: past,
      lockedUntil: past,
      createdAt: past,
      updatedAt: past,
    });
    const calls: string[] = [];
    await (await fixture.open()).consume(name, async (_payload, meta) => void calls.push(meta.id));
    await waitFor("the job to be dead", async () => (await jobRow("died-at-last")).status === "dead");
    expect(calls).toEqual([]);
    expect((await jobRow("died-at-last")).lastError).toBe("worker stopped during attempt 3 (lease expired)");
  });

  it("ignores the late outcome of a worker whose lease was taken over", async () => {
    const name = fixture.queueName();
    const release = gate();
    const slow = await fixture.open({ leaseMs: 60_000 });
    let slowStarted = false;
    // prefetch 1: while busy, the first worker claims nothing, so only the second one can take the job over.
    await slow.consume(
      name,
      async () => {
        slowStarted = true;
        await release.promise;
        throw new Error("late failure of the first worker");
      },
      { prefetch: 1 },
    );
    try {
      await slow.publish(name, {}, { id: "taken-over" });
      await waitFor("the first worker to start", () => slowStarted);

      // Its lease runs out (as if the process had frozen past it)…
      await db.em().nativeUpdate(Job, { id: "taken-over" }, { lockedUntil: new Date(Date.now() - 1) });
      const attempts: number[] = [];
      await (await fixture.open()).consume(name, async (_payload, meta) => void attempts.push(meta.attempt));
      await waitFor("the second worker to finish", async () => (await jobRow("taken-over")).status === "done");
      expect(attempts).toEqual([2]);
    } finally {
      // …and its failure, reported afterwards, changes nothing.
      release.open();
    }
    await sleep(300);
    expect(await jobRow("taken-over")).toMatchObject({ status: "done", attempts: 2, lastError: null });
  });

  it("stores a message published twice with the same id once, and refuses that id on another queue", async () => {
    const name = fixture.queueName();
    const queue = await fixture.open();
    await queue.publish(name, { n: 1 }, { id: "out_twice" });
    await queue.publish(name, { n: 1 }, { id: "out_twice" });
    expect(await db.em().count(Job, { id: "out_twice" })).toBe(1);
    await expect(queue.publish(fixture.queueName(), { n: 1 }, { id: "out_twice" })).rejects.toThrow(`message id out_twice is already used on queue ${name}`);
  });

  it("deletes finished jobs after the retention time and keeps dead ones", async () => {
    const name = fixture.queueName();
    const queue = await fixture.open({ retainDoneMs: 480 });
    await queue.consume(name, async (payload) => {
      if ((payload as { ok: boolean }).ok === false) throw new Error("always fails");
    });
    await queue.publish(name, { ok: true }, { id: "finished" });
    await queue.publish(name, { ok: false }, { id: "poisoned" });
    await waitFor("the finished job to be purged and the poisoned one dead", async () => {
      const rows = await db.em().find(Job, { queue: name });
      return rows.length === 1 && rows[0].status === "dead";
    });
    expect((await jobRow("poisoned")).lastError).toBe("always fails");
  });
});
