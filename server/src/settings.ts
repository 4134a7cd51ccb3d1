import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/**
 * Process settings, read once from the environment. Everything has an embedded
 * default so `npm start` on a fresh checkout needs no configuration.
 */
export interface Settings {
  /** HTTP port (`PORT`, default 3000). */
  port: number;
  /** `DATABASE_URL`: unset → embedded SQLite under `dataDir`; `postgres://…` → PostgreSQL. */
  databaseUrl: string | undefined;
  /** `CLUBE_DATA_DIR`: where the embedded database lives (default ./data). */
  dataDir: string;
  /** `AMQP_URL`: unset → the embedded durable queue; `amqp://…` → RabbitMQ. */
  amqpUrl: string | undefined;
  /** `CLUBE_PUBLIC_URL`: the base URL clients reach (used in confirm/fail links); default http://localhost:PORT. */
  publicUrl: string;
  /** `CLUBE_ALLOW_PRIVATE_WEBHOOKS=1` lets live webhook endpoints point at private addresses. */
  allowPrivateWebhooks: boolean;
  /** The service version reported by /v1/health (the root package version). */
  version: string;
  /** `CLUBE_ENV` (else `NODE_ENV`, else `development`): the deployment's name, reported by /v1/health. */
  deployment: string;
  /** `CLUBE_CACHE_TTL_MS`: how long keys, published configs and signing secrets are reused from memory (default 5000; 0 = off). */
  cacheTtlMs: number;
}

/** Short: on SQLite (no cross-process NOTIFY) it bounds how long another process's publish or revoke goes unseen. */
const DEFAULT_CACHE_TTL_MS = 5_000;

export function cacheTtlFrom(env: NodeJS.ProcessEnv): number {
  const raw = env.CLUBE_CACHE_TTL_MS;
  if (raw === undefined || raw === "") return DEFAULT_CACHE_TTL_MS;
  const ttl = Number(raw);
  if (!Number.isInteger(ttl) || ttl < 0) throw new Error(`CLUBE_CACHE_TTL_MS must be a whole number of milliseconds ≥ 0, got ${JSON.stringify(raw)}`);
  return ttl;
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const port = env.PORT ? Number(env.PORT) : 3000;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer 0..65535, got ${JSON.stringify(env.PORT)}`);
  }
  return {
    port,
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: resolve(env.CLUBE_DATA_DIR || "data"),
    amqpUrl: env.AMQP_URL || undefined,
    publicUrl: (env.CLUBE_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ""),
    allowPrivateWebhooks: env.CLUBE_ALLOW_PRIVATE_WEBHOOKS === "1",
    version: packageVersion(),
    deployment: env.CLUBE_ENV || env.NODE_ENV || "development",
    cacheTtlMs: cacheTtlFrom(env),
  };
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}
