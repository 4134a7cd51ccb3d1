import { connect } from "node:net";
import { randomBytes } from "node:crypto";
import { gzipSync } from "node:zlib";
import { Client } from "undici";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

/**
 * A body refused before it is read to the end (a gzip body inflating past the
 * limit) leaves no half-read request on its connection: the answer closes the
 * connection at once, so a kept-alive client's next request is answered at
 * once on a new one instead of stalling behind the unread body.
 */
describeEachDatabase("refused bodies and kept-alive connections", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await openTestClub(kind, { api: true });
  });
  afterAll(() => api?.close());

  // Over the 1 MiB limit only once inflated: 3 MB of blanks that gzip to a few KB, and 3 MB of
  // random text whose gzip (about 2.3 MB) is still arriving when the limit is reached.
  const bomb = gzipSync(JSON.stringify({ participant: "gz-ana", type: "deposit.confirmed", amount: 1, meta: { pad: " ".repeat(3 * 1024 * 1024) } }));
  const noisy = gzipSync(
    JSON.stringify({ participant: "gz-ana", type: "deposit.confirmed", amount: 1, meta: { pad: randomBytes(2.25 * 1024 * 1024).toString("base64") } }),
  );
  const headers = () => ({ authorization: `Bearer ${api.keys.test}`, "content-type": "application/json", "content-encoding": "gzip" });

  it("answers the next request on the same kept-alive client at once after a 413", async () => {
    const client = new Client(api.url, { pipelining: 1, connections: 1 } as ConstructorParameters<typeof Client>[1]);
    try {
      const refused = await client.request({ method: "POST", path: "/v1/events", headers: headers(), body: noisy });
      expect(refused.statusCode).toBe(413);
      expect(((await refused.body.json()) as any).error.code).toBe("payload_too_large");
      const started = performance.now();
      const next = await client.request({
        method: "GET",
        path: "/v1/participants/gz-nobody",
        headers: { authorization: `Bearer ${api.keys.test}` },
        headersTimeout: 3_000,
      });
      expect(next.statusCode).toBe(404);
      await next.body.dump();
      expect(performance.now() - started).toBeLessThan(1_500);
    } finally {
      await client.close();
    }
  });

  it("ends a raw connection whose gzip body is still arriving right after its 413, instead of leaving the request queued behind it hanging", async () => {
    const request = Buffer.concat([
      Buffer.from(
        `POST /v1/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${api.keys.test}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${noisy.length}\r\n\r\n`,
      ),
      noisy,
      Buffer.from(`GET /v1/participants/gz-nobody HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${api.keys.test}\r\n\r\n`),
    ]);
    const started = performance.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port: Number(new URL(api.url).port) });
      let received = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (received += chunk));
      socket.on("error", reject);
      socket.on("end", () => {
        resolve(received);
        socket.destroy();
      });
      socket.on("connect", () => socket.write(request));
    });
    // At once, not after the keep-alive or request timeout; the client knows to send the next request on a new connection.
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
    expect(answer).toContain('"payload_too_large"');
  });

  it("answers a request queued behind a refused small gzip body on the same connection at once", async () => {
    const request = Buffer.concat([
      Buffer.from(
        `POST /v1/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${api.keys.test}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: ${bomb.length}\r\n\r\n`,
      ),
      bomb,
      Buffer.from(`GET /v1/participants/gz-nobody HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${api.keys.test}\r\n\r\n`),
    ]);
    const started = performance.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port: Number(new URL(api.url).port) });
      let received = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => {
        received += chunk;
        if (/HTTP\/1\.1 404 [^]*"not_found"[^]*}$/.test(received)) socket.end();
      });
      socket.on("error", reject);
      socket.on("close", () => resolve(received));
      socket.on("connect", () => socket.write(request));
    });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(answer).toMatch(/^HTTP\/1\.1 413 [^]*HTTP\/1\.1 404 /);
  });

  it("closes the connection after refusing a body still arriving (announced over the limit)", async () => {
    const head = `POST /v1/events HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${api.keys.test}\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n{"pad":"`;
    const started = performance.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: "127.0.0.1", port: Number(new URL(api.url).port) });
      let received = "";
      socket.setEncoding("utf8");
      socket.on("data", (chunk: string) => (received += chunk));
      socket.on("error", reject);
      // The server's end of the connection: nothing more will come on it.
      socket.on("end", () => {
        resolve(received);
        socket.destroy();
      });
      socket.on("connect", () => socket.write(head + " ".repeat(16 * 1024)));
    });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toMatch(/\r\nconnection: close\r\n/i);
  });
});
