/**
 * The SQL statements each participant path sends (PostgreSQL), in this
 * process: the app of test/support/api.ts, one request per path after a
 * warm-up, each statement printed. Not a test: `npx tsx bench/statements.ts`.
 */
import { startApi } from "../test/support/api.js";
import { observePgQueries } from "./micro/pg-queries.js";

let log: string[] | null = null;
observePgQueries((query, self, args) => {
  const first = args[0] as string | { text: string; name?: string };
  if (log) log.push(typeof first === "string" ? first : `${first.name ? `[${first.name}] ` : ""}${first.text}`);
  return query.apply(self, args);
});

const api = await startApi("postgresql");
try {
  const key = api.keys.test;
  await api.request("POST", "/v1/events/batch", {
    body: {
      events: [0, 1].flatMap((i) => [
        { participant: `p-${i}`, type: "user.signed_up", id: `s-${i}` },
        { participant: `p-${i}`, type: "deposit.confirmed", id: `d-${i}`, amount: 100 },
      ]),
    },
  });
  const { body } = await api.request("GET", "/v1/config");
  body.config.rewards.push({ code: "bench-item", title: "Bench item", type: "internal", cost: { currency: "coins", amount: 1 } });
  const draft = await api.request("PUT", "/v1/config/draft", { body: body.config });
  await api.request("POST", "/v1/config/publish", { body: { version: draft.body.version } });
  const etag = (await api.request("GET", "/v1/me/config", { participant: "p-0" })).headers.get("etag") ?? "";
  const paths: Array<[string, string, Parameters<typeof api.request>[2]]> = [
    ["GET", "/v1/participants/p-0/progress", {}],
    ["GET", "/v1/me", { participant: "p-0" }],
    ["GET", "/v1/me/missions", { participant: "p-0" }],
    ["GET", "/v1/me/config", { participant: "p-0" }],
    ["GET", "/v1/me/config", { participant: "p-0", headers: { "if-none-match": etag } }],
    ["POST", "/v1/redemptions", { body: { participant: "p-0", reward: "bench-item" }, headers: { "idempotency-key": "k-1" } }],
    ["POST", "/v1/redemptions", { body: { participant: "p-0", reward: "bench-item" }, headers: { "idempotency-key": "k-2" } }],
  ];
  for (const [method, path, options] of paths) {
    await api.request(method, path, options); // warm
    log = [];
    const answer = await api.request(method, path, method === "POST" ? { ...options, headers: { "idempotency-key": `x-${Math.random()}` } } : options);
    console.log(`\n${method} ${path} → ${answer.status}: ${log.length} statements`);
    for (const sql of log) console.log("  " + sql.replace(/\s+/g, " ").slice(0, 220));
    log = null;
  }
  void key;
} finally {
  await api.close();
}
