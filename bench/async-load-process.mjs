/**
 * The async benchmark's load generator, run as its own process by
 * bench/async-load.ts so that the load costs the measured machine as
 * little as an outside client would, and none of it in the bench process
 * (fetch through the SDK cost ≈ 1 ms of CPU per event there: a whole core at
 * 1,000 events/s on a 2-core machine that also runs Clube, PostgreSQL and
 * RabbitMQ).
 *
 * Open loop: the i-th request is due at `i / rate` seconds after the start,
 * whatever the answers before it; at most `inFlight` requests are open (kept-
 * alive connections of an undici pool, one request each), a due request
 * waits for a free one. An answer's time runs from its request's sending to
 * the end of its answer. Bodies are built before the clock starts.
 *
 * Input (stdin, one JSON document): `{url, path, headers, rate, inFlight,
 * bodies: string[], expect}`. Output (stdout, one JSON document): `{sent,
 * accepted, failed, failures: {status: count}, first_failure, seconds (first
 * request to last answer), answers_ms: sorted, cpu_ms (user + system of this
 * process during the load)}`.
 */
import { Pool } from "undici";

const job = JSON.parse(await readStdin());
const { url, path, headers, rate, inFlight, expect } = job;
const bodies = job.bodies.map((body) => Buffer.from(body));
const total = bodies.length;
const interval = 1000 / rate;

const pool = new Pool(url, { connections: inFlight, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 60_000, bodyTimeout: 60_000 });
const answers = new Float64Array(total);
let accepted = 0;
let failed = 0;
const failures = {};
let firstFailure;
let next = 0;
let open = 0;
let answered = 0;
let timer;

const cpuBefore = process.cpuUsage();
const started = performance.now();
let lastAnswer = started;
const done = new Promise((resolve) => {
  const answer = (sent, status, text) => {
    const at = performance.now();
    open--;
    answered++;
    lastAnswer = at;
    if (status === expect) answers[accepted++] = at - sent;
    else {
      failed++;
      failures[status] = (failures[status] ?? 0) + 1;
      firstFailure ??= `${status}: ${String(text).slice(0, 500)}`;
    }
    if (answered === total) resolve();
    else sendDue();
  };
  const send = (i) => {
    open++;
    const sent = performance.now();
    // A bare dispatch handler: no response stream per request (undici's request() makes one), only the status and,
    // for a refusal, the body text.
    let status = 0;
    let chunks;
    pool.dispatch(
      { path, method: "POST", headers, body: bodies[i] },
      {
        onConnect() {},
        onHeaders(statusCode) {
          status = statusCode;
          if (statusCode !== expect) chunks = [];
          return true;
        },
        onData(chunk) {
          chunks?.push(chunk);
          return true;
        },
        onComplete() {
          answer(sent, status, chunks && Buffer.concat(chunks).toString("utf8"));
        },
        onError(error) {
          answer(sent, "error", error?.message ?? error);
        },
      },
    );
  };
  /** Sends every request due by now while a connection is free; then sleeps until the next one is due. */
  const sendDue = () => {
    const elapsed = performance.now() - started;
    while (next < total && open < inFlight && next * interval <= elapsed) send(next++);
    if (next < total && open < inFlight && timer === undefined) {
      timer = setTimeout(
        () => {
          timer = undefined;
          sendDue();
        },
        Math.max(0, next * interval - elapsed),
      );
    }
  };
  sendDue();
});
await done;
const cpu = process.cpuUsage(cpuBefore);
await pool.close();

const sorted = answers.subarray(0, accepted).sort();
process.stdout.write(
  JSON.stringify({
    sent: total,
    accepted,
    failed,
    failures,
    first_failure: firstFailure,
    seconds: (lastAnswer - started) / 1000,
    answers_ms: Array.from(sorted, (ms) => Number(ms.toFixed(2))),
    cpu_ms: (cpu.user + cpu.system) / 1000,
  }),
);

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.on("data", (chunk) => chunks.push(chunk));
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.on("error", reject);
  });
}
