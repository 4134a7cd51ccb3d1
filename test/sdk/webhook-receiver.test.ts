// The Koa receiver of sdk-node/README.md, run for real: a JSON body parser in
// front of the route must still leave the exact bytes to verify.
import { bodyParser } from "@koa/bodyparser";
import Koa from "koa";
import { createHmac } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from "../../sdk-node/src/index.js";

const secret = "whsec_9b1d4e7a2c5f8a0b3d6e9f1a4c7d0e2f";
const received: WebhookEvent[] = [];
let server: Server;
let url: string;

beforeAll(async () => {
  const app = new Koa();
  app.use(bodyParser());
  app.use(async (ctx) => {
    if (ctx.method !== "POST" || ctx.path !== "/webhooks/clube") return;
    try {
      const event = verifyWebhook(ctx.request.rawBody, ctx.get("X-Clube-Signature"), secret);
      ctx.status = 200;
      received.push(event);
    } catch (err) {
      if (!(err instanceof WebhookVerificationError)) throw err;
      ctx.status = 400;
      ctx.body = { error: err.reason };
    }
  });
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/clube`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

// Pretty-printed with non-ASCII text, as a body parser would never reproduce it byte for byte.
const body = JSON.stringify(
  {
    id: "evt_01JPB2K7H3X9M4Q8R5T1V6W0YZ",
    type: "reward.delivery_requested",
    created_at: "2025-03-14T18:31:02Z",
    club_id: "club_cassino_sol",
    env: "test",
    data: {
      participant: { id: "par_01JQ3Z8K4M2W6T9V", external_id: "user_8412" },
      reward: {
        id: "rwd_5521",
        code: "giros_10",
        title: "10 giros grátis",
        type: "client_delivered",
        payload: { kind: "free_spins", spins: 10, game: "Fortune Tiger" },
      },
      source: "redemption:giros_10",
      delivery: {
        id: "dlv_01JQ4",
        confirm_url: "https://clube.example.com/v1/deliveries/dlv_01JQ4/confirm",
        fail_url: "https://clube.example.com/v1/deliveries/dlv_01JQ4/fail",
      },
    },
  },
  null,
  2,
);

function post(rawBody: string, signature?: string) {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (signature !== undefined) headers["X-Clube-Signature"] = signature;
  return fetch(url, { method: "POST", headers, body: rawBody });
}

function signature(rawBody: string, t = Math.floor(Date.now() / 1000)): string {
  return `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${rawBody}`).digest("hex")}`;
}

describe("Koa receiver from the README", () => {
  it("accepts a correctly signed webhook behind a JSON body parser", async () => {
    const response = await post(body, signature(body));
    expect(response.status).toBe(200);
    expect(received.at(-1)).toEqual(JSON.parse(body));
  });

  it("answers 400 with the reason for a tampered body and a missing header", async () => {
    const tampered = body.replace("giros_10", "giros_99");
    const refused = await post(tampered, signature(body));
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: "no_match" });

    const unsigned = await post(body);
    expect(unsigned.status).toBe(400);
    expect(await unsigned.json()).toEqual({ error: "missing_header" });
  });
});
