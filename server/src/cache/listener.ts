import { createRequire } from "node:module";
import { CHANGES_CHANNEL, decodeChange, type CacheChange } from "./changes.js";

/** The part of a `pg` Client the listener uses (pg ships no type declarations and @types/pg is not a dependency). */
interface ListenClient {
  connect(): Promise<void>;
  query(text: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: "notification", listener: (message: { channel: string; payload?: string }) => void): this;
  on(event: "error" | "end", listener: (err?: Error) => void): this;
}
const { Client } = createRequire(import.meta.url)("pg") as { Client: new (config: { connectionString: string }) => ListenClient };

export interface ChangeListener {
  close(): Promise<void>;
}

export interface ListenOptions {
  /** Every change another process (or this one) committed. */
  onChange(change: CacheChange): void;
  /** The connection dropped: changes may be missed until it is back, so cached entries should go. */
  onGap(): void;
  /** Logs why the connection dropped; silent by default. */
  log?(message: string): void;
}

const RETRY_MIN_MS = 200;
const RETRY_MAX_MS = 5_000;

/**
 * LISTENs for cache changes on a dedicated PostgreSQL connection (a pooled
 * one could be recycled and silently stop listening). Resolves once
 * listening; afterwards a dropped connection is re-opened with backoff, and
 * `onGap` runs when it drops and again once it listens again (what was cached
 * in between may predate a change that was missed).
 */
export async function listenForChanges(url: string, options: ListenOptions): Promise<ChangeListener> {
  let closed = false;
  let client: ListenClient | null = null;
  let retryMs = RETRY_MIN_MS;
  let retryTimer: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const next = new Client({ connectionString: url });
    let dropped = false;
    const drop = (err?: Error) => {
      if (dropped) return;
      dropped = true;
      client = null;
      if (closed) return;
      options.log?.(`cache change listener lost its connection${err ? `: ${err.message}` : ""}; reconnecting`);
      options.onGap();
      void next.end().catch(() => undefined);
      scheduleRetry();
    };
    next.on("error", drop);
    next.on("end", () => drop());
    next.on("notification", (message) => {
      const change = message.channel === CHANGES_CHANNEL ? decodeChange(message.payload) : null;
      if (change) options.onChange(change);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (err) {
      dropped = true;
      void next.end().catch(() => undefined);
      throw err;
    }
    if (closed) return void (await next.end().catch(() => undefined));
    client = next;
    retryMs = RETRY_MIN_MS;
  };

  const scheduleRetry = () => {
    retryTimer = setTimeout(() => {
      connect().then(
        () => options.onGap(),
        (err: Error) => {
          if (closed) return;
          options.log?.(`cache change listener could not reconnect: ${err.message}`);
          retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
          scheduleRetry();
        },
      );
    }, retryMs);
    // A process shutting down must not wait for a reconnect.
    retryTimer.unref();
  };

  await connect();
  return {
    async close() {
      closed = true;
      clearTimeout(retryTimer);
      const current = client;
      client = null;
      await current?.end().catch(() => undefined);
    },
  };
}
