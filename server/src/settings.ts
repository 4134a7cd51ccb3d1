import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { rootFile } from "./root.js";

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
  /**
   * `CLUBE_AMQP_PREFIX`: put before every queue and exchange name on the broker
   * (default `clube.`, the names `clube.v2.*`), so several deployments can share
   * one RabbitMQ vhost without consuming each other's jobs.
   */
  amqpPrefix: string;
  /** `CLUBE_PUBLIC_URL`: the base URL clients reach (used in confirm/fail links); default http://localhost:PORT. */
  publicUrl: string;
  /** `CLUBE_ALLOW_PRIVATE_WEBHOOKS=1` lets live webhook endpoints point at private addresses. */
  allowPrivateWebhooks: boolean;
  /** The service version reported by /v1/health (the root package version). */
  version: string;
  /** `CLUBE_ENV` (else `NODE_ENV`, else `development`): the deployment's name, reported by /v1/health. */
  deployment: string;
  /**
   * `CLUBE_REDIS_URL` (`redis://…`): the rate limits count in this Redis, shared
   * by every API process that points at it (`clube worker` does not connect);
   * unset → each process counts in memory.
   */
  redisUrl: string | undefined;
  /** `CLUBE_REDIS_PREFIX`: the namespace of the rate-limit keys in Redis (default `clube`), so several deployments can share one Redis. */
  redisPrefix: string;
  /**
   * `CLUBE_TRUST_PROXY`: how many reverse proxies stand in front of the server
   * (`1`, `2`, …; `on` means 1). Only then is the client address read from
   * `X-Forwarded-For`, and only the entries those proxies appended (the right-most
   * ones); unset or `off` → the connection's own address, so a forged header
   * cannot escape the per-address limit of failed authentications.
   */
  trustProxyHops: number;
  /** `CLUBE_CACHE_TTL_MS`: how long keys, published configs and signing secrets are reused from memory (default 5000; 0 = off). */
  cacheTtlMs: number;
  /** `CLUBE_STAFF_SESSION_IDLE_MINUTES` (default 30): a staff session ends after this long without a request. */
  staffSessionIdleMs: number;
  /** `CLUBE_STAFF_SESSION_MAX_HOURS` (default 12): a staff session ends this long after login at the latest. */
  staffSessionMaxMs: number;
  /**
   * `CLUBE_LEASE_SECONDS` (default 60): how long a process's claim on a queued job of the embedded queue, and on a
   * webhook attempt beyond its request timeout, lasts; after a crash another process takes the work over once it ends.
   */
  leaseMs: number;
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
    amqpPrefix: amqpPrefixFrom(env.CLUBE_AMQP_PREFIX),
    publicUrl: (env.CLUBE_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ""),
    allowPrivateWebhooks: env.CLUBE_ALLOW_PRIVATE_WEBHOOKS === "1",
    version: packageVersion(),
    deployment: env.CLUBE_ENV || env.NODE_ENV || "development",
    redisUrl: env.CLUBE_REDIS_URL || undefined,
    redisPrefix: env.CLUBE_REDIS_PREFIX || "clube",
    trustProxyHops: parseTrustProxy(env.CLUBE_TRUST_PROXY),
    cacheTtlMs: cacheTtlFrom(env),
    staffSessionIdleMs: positiveNumber("CLUBE_STAFF_SESSION_IDLE_MINUTES", env.CLUBE_STAFF_SESSION_IDLE_MINUTES, 30) * 60_000,
    staffSessionMaxMs: positiveNumber("CLUBE_STAFF_SESSION_MAX_HOURS", env.CLUBE_STAFF_SESSION_MAX_HOURS, 12) * 3_600_000,
    leaseMs: positiveNumber("CLUBE_LEASE_SECONDS", env.CLUBE_LEASE_SECONDS, 60) * 1_000,
  };
}

/** Broker names allow more, but these characters read the same in every tool and URL. */
function amqpPrefixFrom(raw: string | undefined): string {
  if (raw === undefined || raw === "") return "clube.";
  if (!/^[A-Za-z0-9._:-]{1,100}$/.test(raw)) {
    throw new Error(`CLUBE_AMQP_PREFIX may hold only letters, digits and . _ : - (at most 100), got ${JSON.stringify(raw)}`);
  }
  return raw;
}

function positiveNumber(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!(Number.isFinite(value) && value > 0)) throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  return value;
}

function parseTrustProxy(raw: string | undefined): number {
  const value = (raw ?? "").trim().toLowerCase();
  if (value === "" || value === "off" || value === "false" || value === "0") return 0;
  if (value === "on" || value === "true") return 1;
  const hops = Number(value);
  if (!Number.isInteger(hops) || hops < 1) {
    throw new Error(`CLUBE_TRUST_PROXY must be off, on or a number of proxy hops (1, 2, …), got ${JSON.stringify(raw)}`);
  }
  return hops;
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(rootFile("package.json"), "utf8")) as { version: string };
  return pkg.version;
}
