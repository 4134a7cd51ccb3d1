import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import { createApp } from "../../server/src/app.js";
import type { RateLimits } from "../../server/src/http/rate-limit.js";
import { openDatabase, type Database } from "../../server/src/db/orm.js";
import { openServices, type Clock } from "../../server/src/services.js";
import { readSettings } from "../../server/src/settings.js";
import { createClub } from "../../server/src/usecases/club/clubs.js";
import { demoConfig } from "./club-config.js";
import { createTestDatabase, type DatabaseKind } from "./databases.js";

/**
 * The HTTP API of a real Clube server for one suite: a fresh database of the
 * given kind, the real Koa app listening on 127.0.0.1 (called with global
 * fetch, exactly as a client would), responses checked against the contract
 * by the server itself (`validateResponses`: a response that breaks the
 * contract becomes a 500, so assert statuses), and a club made with the demo
 * casino configuration (server/src/demo/casino.json).
 */

export interface ApiKeys {
  test: string;
  live: string;
}

export interface TestClub {
  clubId: string;
  keys: ApiKeys;
}

export interface RequestOptions {
  /** The secret key sent as `Authorization: Bearer`; the club's test key when omitted, none with `null`. */
  key?: string | null;
  /** A participant token sent as `Authorization: Bearer` instead of the key. */
  token?: string;
  /** `X-Participant` (headless mode on `/v1/me/*`). */
  participant?: string;
  /** A value sent as JSON (`Content-Type: application/json`). */
  body?: unknown;
  /** Text sent as it is (`Content-Type: application/json` unless `headers` say otherwise). */
  rawBody?: string;
  headers?: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** The parsed JSON body; the text for other content types; undefined when empty. */
  body: any;
}

export interface TestApi extends TestClub {
  /** Base URL of the listening server, e.g. `http://127.0.0.1:41234`. */
  url: string;
  request(method: string, path: string, options?: RequestOptions): Promise<ApiResponse>;
  /** Another club (demo configuration) on the same server. */
  createOtherClub(): Promise<TestClub>;
  /** The server's database, for setting up state no route can make yet and for reading it back. */
  db: Database;
  /** Stops the server and drops the database. */
  close(): Promise<void>;
}

/** A clock the test sets by hand; starts at `start`. */
export interface ManualClock extends Clock {
  set(at: Date): void;
}

export function manualClock(start: Date): ManualClock {
  let current = new Date(start);
  return {
    now: () => new Date(current),
    set: (at) => {
      current = new Date(at);
    },
  };
}

export { demoConfig } from "./club-config.js";

/**
 * `env`: settings variables for this server on top of the process's (e.g. `AMQP_URL`); `rateLimits`: small budgets for the
 * rate-limit tests; `config`: the clubs' configuration (the demo's by default; see club-config.ts for variants).
 */
export async function startApi(
  kind: DatabaseKind,
  opts: { clock?: Clock; env?: Record<string, string>; rateLimits?: RateLimits; config?: Record<string, any> } = {},
): Promise<TestApi> {
  const target = await createTestDatabase(kind);
  let db: Database;
  try {
    // As `clube serve` opens it: SQLite commits synced before each answer, off the event loop (db/wal-sync.ts).
    db = await openDatabase({ databaseUrl: target.url, dataDir: target.dataDir, syncEachCommit: false });
  } catch (err) {
    // A suite whose start fails never reaches close(): drop its database here.
    await target.drop();
    throw err;
  }
  const settings = readSettings({ ...process.env, ...opts.env, DATABASE_URL: target.url ?? "", CLUBE_DATA_DIR: target.dataDir, PORT: "0" });
  const services = await openServices(settings, { db, clock: opts.clock });
  const app = await createApp(services, { validateResponses: true, rateLimits: opts.rateLimits });
  const server = await listen(app.callback());
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const createTestClub = async (name: string): Promise<TestClub> => {
    const created = await createClub(db, { name, config: structuredClone(opts.config) ?? demoConfig() }, opts.clock?.now());
    return { clubId: created.club_id, keys: created.keys };
  };
  const club = await createTestClub("Cassino Sorte Grande");

  return {
    url,
    ...club,
    db,
    request: (method, path, options = {}) => send(url, club.keys.test, method, path, options),
    createOtherClub: () => createTestClub("Cassino Vizinho"),
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // fetch keeps connections alive; without this close() waits for them to time out.
        server.closeAllConnections();
      });
      await services.close();
      await db.close();
      await target.drop();
    },
  };
}

async function listen(handler: RequestListener): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return server;
}

async function send(url: string, testKey: string, method: string, path: string, options: RequestOptions): Promise<ApiResponse> {
  const headers: Record<string, string> = {};
  const credential = options.token ?? (options.key === undefined ? testKey : options.key);
  if (credential !== null) headers.Authorization = `Bearer ${credential}`;
  if (options.participant !== undefined) headers["X-Participant"] = options.participant;
  let payload: string | undefined;
  if (options.rawBody !== undefined) payload = options.rawBody;
  else if (options.body !== undefined) payload = JSON.stringify(options.body);
  if (payload !== undefined) headers["Content-Type"] = "application/json";
  Object.assign(headers, options.headers);

  const response = await fetch(`${url}${path}`, { method, headers, body: payload });
  const text = await response.text();
  const isJson = (response.headers.get("Content-Type") ?? "").includes("application/json");
  return { status: response.status, headers: response.headers, body: text === "" ? undefined : isJson ? JSON.parse(text) : text };
}

/**
 * Asserts a documented failure: `status` with the body `{error: {code, message, param?}}`
 * and nothing else; `message`, when given, must be contained in the message
 * (typically the failing field, e.g. `body.external_id`).
 */
export function expectError(response: ApiResponse, status: number, code: string, message?: string): void {
  // Compared without the rest of the body, so a wrong answer (say a 200 with a whole configuration) shows a short diff.
  const { param, details, ...error } = response.body?.error ?? {};
  expect({ status: response.status, error }).toEqual({ status, error: { code, message: expect.any(String) } });
  expect(Object.keys(response.body)).toEqual(["error"]);
  // A 422 on a whole configuration lists every problem; the first is the message.
  if (details !== undefined) {
    expect(code).toBe("validation_failed");
    expect(details[0].message).toBe(response.body.error.message);
  }
  // A 422 names its failing field in `param` too: the path its message starts with.
  if (param !== undefined) {
    expect(code).toBe("validation_failed");
    expect(response.body.error.message.startsWith(param)).toBe(true);
  }
  if (message !== undefined) expect(response.body.error.message).toContain(message);
}
