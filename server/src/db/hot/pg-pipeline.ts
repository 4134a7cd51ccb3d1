import { createRequire } from "node:module";
import type { PgClient } from "./postgres.js";

/*
 * node-postgres sends one statement per round trip (Parse/Bind/Execute/Sync,
 * then it waits for ReadyForQuery). A driver transaction's BEGIN and COMMIT
 * carry no values and nothing depends on their answers, so they can travel in
 * the extended-protocol messages of the statement next to them, before its
 * Sync: BEGIN with the first statement, COMMIT with the last. The server runs
 * the messages in order and stops at the first error up to the Sync, as it
 * does for one statement; node-postgres reads the answers as it reads a
 * multi-statement query's (one result per command). This is the driver's own
 * Query with its `prepare` (the messages it writes) extended: the statement's
 * parameters, prepared statements and row parsing stay node-postgres's.
 */

interface Connection {
  parse(config: { text: string; name?: string; types?: unknown[] }): void;
  bind(config: { portal?: string; statement?: string; values?: unknown[]; binary?: boolean; valueMapper?: unknown }): void;
  describe(config: { type: "P" | "S"; name: string }): void;
  execute(config: { portal?: string; rows?: number }): void;
  sync(): void;
}

interface QueryInstance {
  text: string;
  name?: string;
  types?: unknown[];
  values?: unknown[];
  binary?: boolean;
  portal: string;
  rows?: number;
  hasBeenParsed(connection: Connection): unknown;
  handleError(err: unknown, connection: Connection): void;
}

type QueryClass = new (
  config: { text: string; name?: string; values: unknown[] },
  values: undefined,
  callback: (err: Error | null, result: { rows: unknown[] } | { rows: unknown[] }[]) => void,
) => QueryInstance;

const require = createRequire(import.meta.url);
const { Query } = require("pg") as { Query: QueryClass };
const { prepareValue } = require("pg/lib/utils.js") as { prepareValue: (value: unknown) => unknown };

/**
 * The setting every driver transaction begins with, in its first statement's
 * round trip. PostgreSQL plans a named statement once for good after five
 * runs (its generic plan), from the table sizes of that moment: on a fresh
 * install a table is still empty then, a whole-table scan costs nothing, and
 * the plan keeps scanning the table as it grows until the next ANALYZE
 * (autovacuum's, or db/table-maintenance.ts's where it is off). The hot
 * statements all find their rows by key, so they are planned without that
 * choice (a table no index serves is still scanned). Found and measured:
 * docs/performance-log.md#generic-plans-made-on-empty-tables
 */
export const PLANNED_BY_KEY: readonly string[] = ["set local enable_seqscan = off"];

/**
 * `client` whose first statement carries PLANNED_BY_KEY in its round trip:
 * for a transaction already begun (the ORM's, which the event path shares).
 */
export function plannedByKey(client: PgQueryable): PgClient {
  let sent = false;
  return {
    query(config: { text: string; name?: string; values: unknown[] }) {
      if (sent) return client.query(config);
      sent = true;
      return queryWithStatements(client, config, PLANNED_BY_KEY, []);
    },
  };
}

/** Sends a parameterless statement (BEGIN, COMMIT) through the unnamed statement and portal, without a Sync. */
function sendBare(connection: Connection, text: string): void {
  connection.parse({ text });
  connection.bind({});
  connection.execute({});
}

/**
 * Statements with `before` statements sent ahead of them and `after` ones
 * behind them, all before one Sync, run in that order. Every named statement
 * among them has the same name (node-postgres records the name of its Query
 * as prepared at each ParseComplete it reads). Rows mode, cursors (`rows`)
 * and copy are not supported (the hot store uses none of them).
 */
class QueryWithStatements extends Query {
  constructor(
    private readonly statements: readonly { text: string; name?: string; values: unknown[] }[],
    private readonly before: readonly string[],
    private readonly after: readonly string[],
    callback: (err: Error | null, result: { rows: unknown[] } | { rows: unknown[] }[]) => void,
  ) {
    const named = statements.find((statement) => statement.name !== undefined);
    if (named && statements.some((statement) => statement.name !== undefined && statement.name !== named.name)) {
      throw new Error("statements sent together share one prepared statement's name");
    }
    super(named ?? statements[0], undefined, callback);
  }

  prepare(connection: Connection): void {
    // A named statement is parsed first: node-postgres records a name as prepared at the first ParseComplete it
    // reads, which must be its own (an unnamed one goes after the bare statements, which reuse the unnamed slot).
    if (this.name && !this.hasBeenParsed(connection)) connection.parse({ text: this.text, name: this.name, types: this.types });
    for (const text of this.before) sendBare(connection, text);
    for (const statement of this.statements) {
      if (!statement.name) connection.parse({ text: statement.text, types: this.types });
      try {
        connection.bind({ portal: this.portal, statement: statement.name, values: statement.values, binary: this.binary, valueMapper: prepareValue });
      } catch (err) {
        // As node-postgres's own prepare does.
        this.handleError(err, connection);
        return;
      }
      connection.describe({ type: "P", name: this.portal || "" });
      connection.execute({ portal: this.portal });
    }
    for (const text of this.after) sendBare(connection, text);
    connection.sync();
  }
}

/** The part of a pooled `pg` Client this needs: its query, which takes a Query instance too (answered through its callback). */
export interface PgQueryable extends PgClient {
  query(config: { text: string; name?: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
  query(submittable: QueryInstance): unknown;
}

/**
 * Runs `config` on `client` with the parameterless `before` and `after`
 * statements in its round trip; resolves to the statement's own result.
 * Fails as the first failing of them fails (the server runs nothing after it).
 */
export function queryWithStatements(
  client: PgQueryable,
  config: { text: string; name?: string; values: unknown[] },
  before: readonly string[],
  after: readonly string[],
): Promise<{ rows: unknown[] }> {
  if (before.length === 0 && after.length === 0) return client.query(config);
  // One result per command, the statement's after the `before` ones.
  return sendTogether(client, [config], before, after, (results) => results[before.length]);
}

/**
 * Runs `statements` on `client`, in order and in one round trip, with the
 * parameterless `before` and `after` statements around them; resolves to
 * their results, in order. The named ones all have one name. Fails as the
 * first failing of them fails (the server runs nothing after it).
 */
export function queryAllWithStatements(
  client: PgQueryable,
  statements: readonly { text: string; name?: string; values: unknown[] }[],
  before: readonly string[],
  after: readonly string[],
): Promise<{ rows: unknown[] }[]> {
  return sendTogether(client, statements, before, after, (results) => results.slice(before.length, before.length + statements.length));
}

function sendTogether<T>(
  client: PgQueryable,
  statements: readonly { text: string; name?: string; values: unknown[] }[],
  before: readonly string[],
  after: readonly string[],
  pick: (results: { rows: unknown[] }[]) => T,
): Promise<T> {
  return new Promise((resolve, reject) => {
    client.query(
      new QueryWithStatements(statements, before, after, (err, results) => {
        if (err) reject(err);
        else resolve(pick(Array.isArray(results) ? results : [results]));
      }),
    );
  });
}
