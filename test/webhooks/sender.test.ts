import { createServer, type Server } from "node:http";
import { spawn } from "node:child_process";
import { type AddressInfo, connect, type Socket } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_SEND_TIMEOUT_MS, sendWebhook, type WebhookRequest } from "../../server/src/webhooks/sender.js";
import { Receiver } from "./support/receiver.js";

const secret = "whsec_sender_test";
const body = '{"id":"evt_1","type":"reward.granted","created_at":"2025-03-01T12:00:00.000Z","club_id":"club_1","env":"test","data":{}}';

describe("sendWebhook against a real HTTP endpoint", () => {
  const receiver = new Receiver(secret);
  const elsewhere = new Receiver(secret);
  let request: WebhookRequest;
  const realClock = () => new Date();

  beforeAll(async () => {
    await receiver.start();
    await elsewhere.start();
  });
  afterAll(async () => {
    await receiver.stop();
    await elsewhere.stop();
  });
  beforeEach(() => {
    receiver.requests.length = 0;
    elsewhere.requests.length = 0;
    request = { url: receiver.url(), secret, eventType: "reward.granted", sendingId: "whd_abc123", body };
  });

  it("POSTs the stored body with the three X-Clube headers and a signature the receiver accepts", async () => {
    const result = await sendWebhook(request, { now: realClock });
    expect(result).toEqual({ ok: true, statusCode: 200 });
    expect(receiver.requests).toHaveLength(1);
    const [seen] = receiver.requests;
    expect(seen.body).toBe(body);
    expect(seen.signatureValid).toBe(true);
    expect(seen.headers["content-type"]).toBe("application/json");
    expect(seen.headers["x-clube-event"]).toBe("reward.granted");
    expect(seen.headers["x-clube-delivery"]).toBe("whd_abc123");
    expect(seen.headers["x-clube-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  });

  it("counts every 2xx as success, at both ends of the range", async () => {
    receiver.replyWith({ status: 204 }, { status: 299 });
    expect(await sendWebhook(request, { now: realClock })).toEqual({ ok: true, statusCode: 204 });
    expect(await sendWebhook(request, { now: realClock })).toEqual({ ok: true, statusCode: 299 });
  });

  it("reports a 500 and a 404 as failures with their status", async () => {
    receiver.replyWith({ status: 500 }, { status: 404 });
    expect(await sendWebhook(request, { now: realClock })).toEqual({ ok: false, statusCode: 500, error: "HTTP 500" });
    expect(await sendWebhook(request, { now: realClock })).toEqual({ ok: false, statusCode: 404, error: "HTTP 404" });
  });

  it("gives up after the timeout when the endpoint does not answer", async () => {
    receiver.replyWith({ hang: true });
    const started = Date.now();
    const result = await sendWebhook(request, { now: realClock, timeoutMs: 300 });
    // Bounded only to show the option replaced the 10 s default (a loaded machine may add seconds to the 0.3 s).
    expect(Date.now() - started).toBeLessThan(DEFAULT_SEND_TIMEOUT_MS);
    expect(result.ok).toBe(false);
    expect(result.statusCode).toBeUndefined();
    expect(result.error).toBe("timeout after 0.3s");
    expect(DEFAULT_SEND_TIMEOUT_MS).toBe(10_000);
  });

  it("gives up after the timeout while the connection is still being opened", async () => {
    // A listener that never accepts, its queue filled: the next connect hangs in SYN_SENT,
    // as one to a blackholed address does (Node accepts every connection, so python holds it).
    const listener = spawn("python3", [
      "-c",
      "import socket,time\ns=socket.socket()\ns.bind(('127.0.0.1',0))\ns.listen(0)\nprint(s.getsockname()[1],flush=True)\ntime.sleep(60)",
    ]);
    const fillers: Socket[] = [];
    try {
      const port = await new Promise<number>((resolve, reject) => {
        listener.once("error", reject);
        listener.stdout.once("data", (data) => resolve(Number(String(data).trim())));
      });
      for (let i = 0; i < 3; i++) fillers.push(connect(port, "127.0.0.1").on("error", () => {}));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = Date.now();
      const result = await sendWebhook({ ...request, url: `http://127.0.0.1:${port}/hooks` }, { now: realClock, timeoutMs: 300 });
      expect(result).toEqual({ ok: false, error: "timeout after 0.3s" });
      // Before, the attempt waited for undici's own 10 s connect timeout; a loaded machine may add seconds to the 0.3 s.
      expect(Date.now() - started).toBeLessThan(DEFAULT_SEND_TIMEOUT_MS / 2);
    } finally {
      for (const socket of fillers) socket.destroy();
      listener.kill();
    }
  });

  it("does not follow a redirect, so the signed payload never reaches the other host", async () => {
    receiver.replyWith({ status: 302, location: elsewhere.url("/stolen") });
    const result = await sendWebhook(request, { now: realClock });
    expect(result).toEqual({
      ok: false,
      statusCode: 302,
      error: `redirect 302 to ${elsewhere.url("/stolen")} not followed`,
    });
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("reports a refused connection", async () => {
    // Port 1 (tcpmux): nothing listens there and no test binds it. A port freed by a stopped receiver could be
    // taken meanwhile by another test file's server, and the answer would then be that server's.
    const url = "http://127.0.0.1:1/hooks";
    const result = await sendWebhook({ ...request, url }, { now: realClock });
    expect(result).toEqual({ ok: false, error: "connection refused" });
  });

  it("signs with the clock at send time: a stale clock fails the receiver's 300 s check, a fresh one passes", async () => {
    const stale = () => new Date(Date.now() - 301_000);
    const edge = () => new Date(Date.now() - 290_000);
    await sendWebhook(request, { now: stale });
    await sendWebhook(request, { now: edge });
    expect(receiver.requests.map((r) => r.signatureValid)).toEqual([false, true]);
  });

  describe("an answer whose body misbehaves: its status decides, as soon as it is known", () => {
    let server: Server;
    let url: string;
    let reply: "large" | "stalled" = "large";
    beforeAll(async () => {
      server = createServer((req, res) => {
        req.resume();
        req.on("end", () => {
          res.writeHead(200, { "content-type": "text/plain" });
          // 1 MB, past what is read of a body nobody looks at (the socket is closed instead), or a body that stops mid-way.
          if (reply === "large") res.end("x".repeat(1024 * 1024));
          else res.write("partial");
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    it("a body far larger than anyone reads: a success, the rest not read", async () => {
      reply = "large";
      expect(await sendWebhook({ ...request, url }, { now: realClock })).toEqual({ ok: true, statusCode: 200 });
    });

    it("a body that stalls past the timeout: still the status, not a timeout", async () => {
      reply = "stalled";
      expect(await sendWebhook({ ...request, url }, { now: realClock, timeoutMs: 300 })).toEqual({ ok: true, statusCode: 200 });
    });
  });
});
