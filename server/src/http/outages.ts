import { ApiError } from "../usecases/shared/errors.js";

/**
 * Seconds a client should wait before retrying after an outage answer: long
 * enough for a database or broker restart or a failover to finish, short
 * enough that a client does not give up on a blip.
 */
const OUTAGE_RETRY_AFTER_SECONDS = 5;

/** Thrown by the service's own code when a dependency it needs for this request is unreachable. */
class DependencyUnavailable extends Error {
  constructor(
    readonly dependency: "database" | "broker" | "redis",
    options?: { cause?: unknown },
  ) {
    super(`${dependency} unavailable`, options);
    this.name = "DependencyUnavailable";
  }
}

/** Socket-level failures: the peer is gone, refused or unreachable. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENETDOWN",
]);

/**
 * PostgreSQL SQLSTATEs of an unavailable server: class 08 (connection
 * exception), 57P01..57P03 (terminated by an administrator or crash, cannot
 * connect now: a restart or shutdown) and 53300 (too many connections).
 */
const POSTGRES_UNAVAILABLE = /^(08...|57P0[123]|53300)$/;

/** Messages of drivers and pools that carry no code for a lost or never-made connection. */
const UNAVAILABLE_MESSAGES = [
  /Connection terminated/i,
  /Timeout acquiring a connection/i,
  /timeout expired/i,
  /Client has encountered a connection error/i,
  /Connection ended unexpectedly/i,
  /Client was closed and is not queryable/i,
  /server closed the connection unexpectedly/i,
  /the database system is (starting up|shutting down|in recovery mode)/i,
  /SQLITE_BUSY|database is locked/,
];

/**
 * Whether a failure is an outage of a dependency (database, broker, Redis)
 * rather than a defect: only these say that retrying the same request later can
 * succeed. Looks through wrapped errors (`cause`, MikroORM's copied fields).
 */
export function isOutage(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (let current = err; current && typeof current === "object" && !seen.has(current); current = (current as { cause?: unknown }).cause) {
    seen.add(current);
    if (current instanceof ApiError) return false;
    if (current instanceof DependencyUnavailable) return true;
    const { name, code, message } = current as { name?: unknown; code?: unknown; message?: unknown };
    if (name === "ConnectionException" || name === "KnexTimeoutError") return true;
    if (typeof code === "string" && (NETWORK_CODES.has(code) || POSTGRES_UNAVAILABLE.test(code))) return true;
    if (typeof message === "string" && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return true;
    const errors = (current as { errors?: unknown }).errors;
    // An AggregateError (a connect to several addresses) is an outage when each attempt was.
    if (Array.isArray(errors) && errors.length > 0 && errors.every((inner) => isOutage(inner))) return true;
  }
  return false;
}

/** The documented 503 for an outage. */
export function serviceUnavailable(): ApiError {
  return new ApiError(
    503,
    "service_unavailable",
    `A service this request needs (database, message broker or Redis) is unreachable; nothing was done. Retry after ${OUTAGE_RETRY_AFTER_SECONDS} seconds with the same idempotency key.`,
    { "Retry-After": String(OUTAGE_RETRY_AFTER_SECONDS) },
  );
}
