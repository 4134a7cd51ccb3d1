import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe } from "vitest";
import { createApp } from "../../../server/src/app.js";
import { openDatabase, type Database } from "../../../server/src/db/orm.js";
import { openServices, systemClock, type Clock } from "../../../server/src/services.js";
import { readSettings } from "../../../server/src/settings.js";
import { createClub } from "../../../server/src/usecases/club/clubs.js";
import { startProcessing, type Processing } from "../../../server/src/workers.js";
import { demoConfig } from "../../support/club-config.js";
import { postgresEnabled } from "../../support/databases.js";
import { clubClient, type ClubClient } from "./client.js";
import { throughPort } from "./rabbit-vhost.js";
import { createStackResources, databaseOf, stackKinds, type StackKind, type StackResources } from "./stack-resources.js";

/**
 * `describe` once per stack, titled `<title> [<stack>]`. With
 * CLUBE_TEST_PG=off the PostgreSQL stack is registered as skipped, visibly.
 */
export function describeEachStack(title: string, body: (kind: StackKind) => void): void {
  for (const kind of stackKinds) {
    if (databaseOf(kind) === "postgresql" && !postgresEnabled) {
      describe.skip(`${title} [${kind}: skipped, CLUBE_TEST_PG=off]`, () => body(kind));
    } else {
      describe(`${title} [${kind}]`, () => body(kind));
    }
  }
}

export interface InProcessStackOptions {
  /** The clock of the server and its workers (and what receivers should verify against). */
  clock?: Clock;
  /** Reach the broker through this local port (a TcpProxy in front of it) instead of directly. */
  brokerPort?: number;
}

/**
 * A Clube stack inside the test process, wired exactly as the commands wire
 * it: the real Koa app on 127.0.0.1 (responses checked against the contract,
 * so a response breaking it is a 500) with `startProcessing` as `clube serve`
 * runs it; on RabbitMQ also a worker with its own database connection and
 * broker connection, as `clube worker` runs it. `CLUBE_PUBLIC_URL` is the
 * listening URL, so the confirm/fail links in webhooks work.
 */
export interface InProcessStack {
  kind: StackKind;
  url: string;
  clock: Clock;
  /** The server's database, for reading back what the API does not show. */
  db: Database;
  resources: StackResources;
  /** A new club with `config` (the demo casino configuration by default), published in test and live. */
  newClub(name?: string, config?: Record<string, any>): Promise<ClubClient>;
  close(): Promise<void>;
}

export async function startInProcessStack(kind: StackKind, options: InProcessStackOptions = {}): Promise<InProcessStack> {
  const clock = options.clock ?? systemClock;
  const resources = await createStackResources(kind);
  // Undone in reverse order after the HTTP server stopped: workers, then connections, then the database and vhost.
  const closers: Array<() => Promise<void>> = [() => resources.release()];
  const server = createServer();
  const close = async () => {
    if (server.listening) await stopServer(server);
    // Every step runs even if one fails (a worker that cannot stop cleanly must not leave the database behind).
    const failures: unknown[] = [];
    for (const closer of closers.reverse()) await closer().catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  };
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { database, vhost } = resources;
    const amqpUrl = vhost && (options.brokerPort ? throughPort(vhost.url, options.brokerPort) : vhost.url);
    // Only the variables the commands read, not this process's environment.
    const settings = readSettings({
      DATABASE_URL: database.url ?? "",
      CLUBE_DATA_DIR: database.dataDir,
      AMQP_URL: amqpUrl ?? "",
      PORT: String((server.address() as AddressInfo).port),
      CLUBE_PUBLIC_URL: url,
    });

    const open = async (): Promise<Database> => {
      const db = await openDatabase({ databaseUrl: database.url, dataDir: database.dataDir });
      closers.push(() => db.close());
      return db;
    };
    const run = async (processing: Promise<Processing>) => {
      const running = await processing;
      closers.push(() => running.stop());
    };

    const db = await open();
    const services = await openServices(settings, { db, clock });
    // As `clube serve`: consumers in-process on the embedded queue, only the relay with RabbitMQ.
    await run(startProcessing(services, { consume: !settings.amqpUrl }));
    if (settings.amqpUrl) {
      // As one `clube worker`: its own connections, the same clock.
      const workerServices = await openServices(settings, { db: await open(), clock, servesApi: false });
      await run(startProcessing(workerServices, { consume: true }));
    }
    const app = await createApp(services, { validateResponses: true });
    server.on("request", app.callback());

    return {
      kind,
      url,
      clock,
      db,
      resources,
      async newClub(name = "Cassino Sorte Grande", config = demoConfig()) {
        const created = await createClub(db, { name, config }, clock.now());
        return clubClient(url, { clubId: created.club_id, keys: created.keys });
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function stopServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    // fetch keeps connections alive; without this close() waits for them to time out.
    server.closeAllConnections();
  });
}
