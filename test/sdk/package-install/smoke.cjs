// The CommonJS entry of @clube/node, installed from its tarball.
const { Clube, ClubeError, verifyWebhook } = require("@clube/node");

(async () => {
  const clube = new Clube({ apiKey: process.env.CLUBE_KEY, baseUrl: process.env.CLUBE_URL });
  const health = await clube.health.get();
  const key = await clube.key.get();
  const page = await clube.deliveries.list({ limit: 2 });
  if (!Array.isArray(page.deliveries) || typeof page.has_more !== "boolean") throw new Error("deliveries.list did not answer a page");
  const all = await clube.deliveries.list({ limit: 1 }).autoPagingToArray({ limit: 3 });
  const body = JSON.stringify({ id: "evt_cjs", type: "test.ping" });
  const header = clube.webhooks.signTest(body, "whsec_cjs");
  verifyWebhook(body, header, "whsec_cjs");
  if (!(new ClubeError({ status: 500, code: "internal_error", message: "x", requestId: null, raw: null }).retryable)) throw new Error("retryable");
  console.log(`smoke.cjs: ok (health ${health.status}, key env ${key.env}, ${all.length} deliveries, signTest verified)`);
})().catch((err) => {
  console.error("smoke.cjs:", err);
  process.exit(1);
});
