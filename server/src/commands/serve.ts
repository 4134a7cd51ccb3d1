import type { Server } from "node:http";
import { createApp } from "../app.js";
import { createHttpServer } from "../http/http-server.js";
import { describeRateLimits, rateLimitsFromEnv } from "../http/rate-limit.js";
import { ensureDemoClub } from "../demo/ensure-demo-club.js";
import { openServices } from "../services.js";
import type { Settings } from "../settings.js";
import { CliError } from "./cli-errors.js";
import { startProcessing } from "../workers.js";

/** `clube serve`: the HTTP API on PORT, with a demo club on a fresh database. */
export async function serve(settings: Settings): Promise<void> {
  const services = await openServices(settings);
  const demo = await ensureDemoClub(services.db, settings.dataDir);
  // Embedded queue: this process is also the worker. RabbitMQ: `clube worker` processes consume.
  const processing = await startProcessing(services, { consume: !settings.amqpUrl });
  const app = await createApp(services, { demo });
  const server: Server = await new Promise((resolve, reject) => {
    const s = createHttpServer(app.callback());
    s.listen(settings.port, () => resolve(s));
    s.once("error", (err: NodeJS.ErrnoException) =>
      reject(err.code === "EADDRINUSE" ? new CliError(`error: port ${settings.port} is in use: stop the other process or set PORT.`) : err),
    );
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : settings.port;
  const url = `http://localhost:${port}`;
  const database = settings.databaseUrl ? "PostgreSQL" : `SQLite (${settings.dataDir})`;
  const lines = [
    `Clube ${settings.version} listening on ${url}`,
    `  API reference: ${url}/docs   OpenAPI: ${url}/openapi.json`,
    `  staff console (Clube Studio): ${url}/studio/`,
    `  database: ${database}   queue: ${settings.amqpUrl ? "RabbitMQ (run clube worker)" : "embedded, in-process"}`,
  ];
  // The budgets a client meets, so an operator sees them before a client hits 429.
  lines.push(...describeRateLimits(rateLimitsFromEnv(process.env), settings.redisUrl !== undefined).map((line) => `  ${line}`));
  if (demo) {
    lines.push(`  demo club ${demo.club_id} — test key: ${demo.keys.test}`);
    if (demo.staff) lines.push(`  demo owner (console sign-in): ${demo.staff.email} / ${demo.staff.password}`);
    lines.push(`  participant widget demo: ${url}/widget/demo`);
  } else lines.push("  create a club with: npx clube club create --name NAME --json");
  process.stdout.write(`${lines.join("\n")}\n`);

  const stop = async () => {
    server.close();
    await processing.stop();
    await services.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
