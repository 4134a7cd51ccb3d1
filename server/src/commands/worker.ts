import { openServices } from "../services.js";
import type { Settings } from "../settings.js";
import { startProcessing } from "../workers.js";

/** `clube worker`: queue consumers as their own process (run several against RabbitMQ to scale out). */
export async function worker(settings: Settings): Promise<void> {
  // No API here, so no rate limits: no Redis connection.
  const services = await openServices(settings, { servesApi: false });
  const processing = await startProcessing(services, { consume: true });
  const queue = settings.amqpUrl ? "RabbitMQ" : "the embedded queue";
  process.stdout.write(`Clube worker ${settings.version} consuming from ${queue}\n`);
  const stop = async () => {
    await processing.stop();
    await services.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}
