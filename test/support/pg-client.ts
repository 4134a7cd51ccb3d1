import { createRequire } from "node:module";
import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, type TestDatabase } from "./databases.js";

/** The part of node-postgres' Client the tests use (pg ships no types). */
interface PgClient {
  connect(): Promise<void>;
  end(): Promise<void>;
  query(config: { text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}
const { Client } = createRequire(import.meta.url)("pg") as { Client: new (config: { connectionString?: string }) => PgClient };

/**
 * A bare node-postgres client on a fresh test database for the enclosing
 * describe block (connected before its tests, closed and dropped after):
 * what the driver itself does with a parameter, without the ORM.
 */
export function describePgClient(): Pick<PgClient, "query"> {
  let target: TestDatabase | undefined;
  let client: PgClient | undefined;
  beforeAll(async () => {
    target = await createTestDatabase("postgresql");
    client = new Client({ connectionString: target.url });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await target?.drop();
  });
  return { query: (config) => client!.query(config) };
}
