import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import type { Env } from "../scope.js";
import { enumColumn, idColumn } from "./columns.js";

export type JobStatus = "ready" | "running" | "done" | "dead";

/**
 * A job of the embedded durable queue (used when no RabbitMQ is configured).
 * A worker claims a job by a conditional update that sets `running` and a
 * lease (`lockedUntil`); a job whose lease ran out is claimed again, so a
 * crashed worker's job is redelivered. `clubId`/`env` name the tenant the job
 * works for and are null for system-wide jobs (scans over every club).
 */
export const Job = defineEntity({
  name: "Job",
  tableName: "jobs",
  indexes: [{ properties: ["queue", "status", "runAt"] }, { properties: ["status", "lockedUntil"] }],
  properties: {
    id: idColumn(),
    clubId: p.string().length(40).nullable(),
    env: enumColumn<Env>().nullable(),
    queue: p.string().length(64),
    payload: p.json<unknown>(),
    status: enumColumn<JobStatus>(),
    attempts: p.integer(),
    runAt: p.datetime(),
    lockedUntil: p.datetime().nullable(),
    lastError: p.text().nullable(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type Job = InferEntity<typeof Job>;
