import { createTestDatabase, type DatabaseKind, type TestDatabase } from "../../support/databases.js";
import { createVhost, type Vhost } from "./rabbit-vhost.js";

/**
 * The two ways Clube runs, end to end:
 * - `sqlite+embedded`: the default — SQLite file, durable queue in the
 *   database, `clube serve` doing its own background work;
 * - `postgresql+rabbitmq`: `DATABASE_URL` and `AMQP_URL` set — `clube serve`
 *   only relays its outbox to RabbitMQ and separate `clube worker` processes
 *   consume.
 */
export const stackKinds = ["sqlite+embedded", "postgresql+rabbitmq"] as const;
export type StackKind = (typeof stackKinds)[number];

export function databaseOf(kind: StackKind): DatabaseKind {
  return kind === "sqlite+embedded" ? "sqlite" : "postgresql";
}

export function usesBroker(kind: StackKind): boolean {
  return kind === "postgresql+rabbitmq";
}

/** What a stack runs on: a fresh database and, for RabbitMQ, a vhost of its own. */
export interface StackResources {
  kind: StackKind;
  database: TestDatabase;
  vhost: Vhost | undefined;
  release(): Promise<void>;
}

export async function createStackResources(kind: StackKind): Promise<StackResources> {
  const database = await createTestDatabase(databaseOf(kind));
  let vhost: Vhost | undefined;
  try {
    if (usesBroker(kind)) vhost = await createVhost();
  } catch (error) {
    await database.drop();
    throw error;
  }
  return {
    kind,
    database,
    vhost,
    async release() {
      // Both, even when one fails: a leftover vhost or database outlives the run.
      const results = await Promise.allSettled([database.drop(), vhost?.delete()]);
      const failure = results.find((result) => result.status === "rejected");
      if (failure) throw failure.reason;
    },
  };
}
