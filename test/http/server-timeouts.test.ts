import { connect } from "node:net";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpServer, DEFAULT_SERVER_TIMEOUTS } from "../../server/src/http/http-server.js";

/**
 * A client that sends `head` (and nothing more) and then waits: what the server
 * wrote before closing the connection. Resolves only when the server closes it.
 */
function sendAndWaitForClose(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port });
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (received += chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(received));
    socket.on("connect", () => socket.write(head));
  });
}

describe("HTTP server timeouts", () => {
  let server: Server;
  let port: number;
  const completeBodies: string[] = [];

  beforeAll(async () => {
    // Short bounds so the test is quick; the bounds themselves are Node's, configured by createHttpServer.
    server = createHttpServer(
      (req, res) => {
        let body = "";
        req.setEncoding("utf8");
        req.on("data", (chunk: string) => (body += chunk));
        req.on("end", () => {
          completeBodies.push(body);
          res.end("received");
        });
      },
      { headersMs: 1_500, requestMs: 3_000, keepAliveMs: 1_000, checkEveryMs: 100 },
    );
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it("defaults: headers within 10 s, the whole request within 30 s, checked every second", () => {
    expect(DEFAULT_SERVER_TIMEOUTS).toMatchObject({ headersMs: 10_000, requestMs: 30_000, checkEveryMs: 1_000 });
    expect(DEFAULT_SERVER_TIMEOUTS.headersMs).toBeLessThanOrEqual(DEFAULT_SERVER_TIMEOUTS.requestMs);
  });

  it("cuts off a slow body (Content-Length 1000, a few bytes sent): 408 and the connection closed, the handler never gets the body", async () => {
    const answer = await sendAndWaitForClose(
      port,
      'POST /v1/events HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"type"',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(completeBodies).toEqual([]);
  }, 30_000);

  it("cuts off headers that never finish", async () => {
    const answer = await sendAndWaitForClose(port, "GET /v1/health HTTP/1.1\r\nHost: localhost\r\nX-Slow: ");
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  }, 30_000);

  it("still serves a request sent at once", async () => {
    const response = await fetch(`http://127.0.0.1:${port}/v1/events`, { method: "POST", body: '{"type":"x"}' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("received");
    expect(completeBodies).toEqual(['{"type":"x"}']);
  });
});
