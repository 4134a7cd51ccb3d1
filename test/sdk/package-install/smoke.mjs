// Run from a fresh project that installed the @clube/node tarball: the ESM
// entry against a running server. Creates a participant, sends an event,
// walks the deliveries with `for await`, and verifies a real webhook.
import { createServer } from "node:http";
import { Clube, ClubeError } from "@clube/node";

const clube = new Clube({ apiKey: process.env.CLUBE_KEY, baseUrl: process.env.CLUBE_URL, appInfo: "package-install-check/1" });
const fail = (message) => {
  console.error(`smoke.mjs: ${message}`);
  process.exit(1);
};

// A webhook receiver, as a client's server would run it.
const received = [];
const receiver = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    received.push({ raw: Buffer.concat(chunks), signature: req.headers["x-clube-signature"] });
    res.writeHead(200).end();
  });
});
await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const endpoint = await clube.webhookEndpoints.create({ url: `http://127.0.0.1:${receiver.address().port}/clube` });

const run = Date.now().toString(36);
const participant = await clube.participants.upsert({ external_id: `pkg_${run}`, display_name: "Package check" });
if (participant.external_id !== `pkg_${run}`) fail("upsert answered another participant");
const result = await clube.events.send({ participant: `pkg_${run}`, type: "deposit.confirmed", id: `dep_${run}`, amount: "100.00" });
if (!result.lastResponse.requestId) fail("no request id on the result");

let deliveries = 0;
for await (const delivery of clube.deliveries.list({ status: "pending", limit: 1 })) {
  if (!delivery.id.startsWith("dlv_")) fail(`unexpected delivery id ${delivery.id}`);
  deliveries++;
}
if (deliveries < 1) fail("the deposit created no pending delivery");

try {
  await clube.participants.get(`nobody_${run}`);
  fail("a missing participant did not throw");
} catch (err) {
  if (!(err instanceof ClubeError) || err.code !== "not_found" || err.status !== 404) fail(`unexpected error ${err}`);
}

// Wait (up to a minute, polling) for the first webhook and verify it with the endpoint's secret.
const deadline = Date.now() + 60_000;
while (received.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
if (received.length === 0) fail("no webhook arrived within 60 s");
const event = clube.webhooks.verify(received[0].raw, received[0].signature, endpoint.secret);
receiver.close();
console.log(`smoke.mjs: ok (participant, event ${result.event_id}, ${deliveries} deliveries via for await, webhook ${event.type} verified)`);
