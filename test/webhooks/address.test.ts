import { lookup } from "node:dns/promises";
import { hostname } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isRefusedAddress, parseWebhookUrl, refusedAddressOf } from "../../server/src/usecases/webhooks/address.js";
import { REFUSED_MESSAGE, sendWebhook } from "../../server/src/webhooks/sender.js";
import { Receiver } from "./support/receiver.js";

/**
 * Live webhooks never reach a special-purpose address, whatever its spelling,
 * and the address checked is the one actually connected to (DNS names are
 * resolved by the guarded lookup at connect time, closing DNS rebinding).
 */

const secret = "whsec_address_test";
const body = '{"id":"evt_1","type":"reward.granted","created_at":"2025-03-01T12:00:00.000Z","club_id":"club_1","env":"live","data":{}}';

/** Every spelling of loopback and metadata addresses the probe found or could find. */
const loopbackHosts = [
  "127.0.0.1",
  "[::ffff:127.0.0.1]",
  "[::ffff:7f00:1]",
  "[0:0:0:0:0:ffff:127.0.0.1]",
  "[0:0:0:0:0:ffff:7f00:0001]",
  "[::127.0.0.1]",
  "[::7f00:1]",
  "[0000::1]",
  "[::1]",
  "2130706433",
  "0x7f.1",
  "017700000001",
  "127.1",
  "localhost",
  "LOCALHOST.",
  "app.localhost",
];

const refusedAddresses = [
  "0.0.0.0",
  "10.1.2.3",
  "100.64.0.1",
  "100.100.100.200",
  "127.0.0.1",
  "169.254.169.254",
  "172.16.4.2",
  "192.0.0.170",
  "192.0.2.10",
  "192.168.1.20",
  "198.18.0.1",
  "198.51.100.7",
  "203.0.113.10",
  "224.0.0.1",
  "240.0.0.1",
  "255.255.255.255",
  "::",
  "::1",
  "::ffff:169.254.169.254",
  "::ffff:a9fe:a9fe",
  "::ffff:10.0.0.1",
  "::127.0.0.1",
  "::a9fe:a9fe",
  "64:ff9b::7f00:1",
  "64:ff9b:1::1",
  "100::1",
  "2001::1",
  "2001:db8::1",
  "2002:7f00:1::1",
  "3fff::1",
  "fc00::1",
  "fd12:3456::1",
  "fe80::1",
  "fec0::1",
  "ff02::1",
  "not an address",
];

const allowedAddresses = ["8.8.8.8", "1.1.1.1", "93.184.215.14", "2606:4700:4700::1111", "2a00:1450:4001::200e", "::ffff:8.8.8.8"];

describe("webhook address policy", () => {
  it("refuses every special-purpose address and allows global unicast", () => {
    for (const address of refusedAddresses) expect(isRefusedAddress(address), address).toBe(true);
    for (const address of allowedAddresses) expect(isRefusedAddress(address), address).toBe(false);
  });

  it("finds the refused address of every loopback spelling, normalised by the URL parser and ipaddr.js", async () => {
    for (const host of loopbackHosts) {
      const url = parseWebhookUrl(`http://${host}:8080/x`);
      expect(url, host).not.toBeNull();
      expect(await refusedAddressOf(url!), host).not.toBeNull();
    }
    expect(await refusedAddressOf(new URL("https://8.8.8.8/hooks"))).toBeNull();
  });

  it("treats URLs no client can send to as malformed", () => {
    for (const url of ["http://127.0.0.1%09:80/", "http://[fe80::1%25eth0]/", "ftp://example.com/", "http://user:pw@example.com/", "not a url", "http://"]) {
      expect(parseWebhookUrl(url), url).toBeNull();
    }
    expect(parseWebhookUrl("https://hooks.cassino.example/clube?x=1")?.hostname).toBe("hooks.cassino.example");
  });
});

describe("guarded sending (live)", () => {
  const receiver = new Receiver(secret);
  const closed = new Receiver(secret);
  let closedPort: number;

  beforeAll(async () => {
    await receiver.start();
    await closed.start();
    closedPort = closed.port;
    await closed.stop();
  });
  afterAll(() => receiver.stop());

  const send = (url: string, guard = true) =>
    sendWebhook({ url, secret, eventType: "reward.granted", sendingId: "whd_guard", body }, { now: () => new Date(), guard });

  it("refuses every mapped/compatible IPv6 and numeric spelling of 127.0.0.1 before connecting, with one message", async () => {
    for (const host of loopbackHosts) {
      expect(await send(`http://${host}:${receiver.port}/x`), host).toEqual({ ok: false, error: REFUSED_MESSAGE });
    }
    expect(receiver.requests).toHaveLength(0);
    // Unguarded (test endpoints, CLUBE_ALLOW_PRIVATE_WEBHOOKS=1) the same receiver is reached.
    expect(await send(receiver.url(), false)).toEqual({ ok: true, statusCode: 200 });
    expect(receiver.requests).toHaveLength(1);
  });

  it("refuses a DNS name that resolves to 127.0.0.1 at connect time", async () => {
    // The machine's own name resolves to loopback here (/etc/hosts); fall back to a resolver-free check otherwise.
    const name = hostname();
    const resolved = await lookup(name, { all: true }).catch(() => []);
    const loopbackName = resolved.length > 0 && resolved.every((address) => isRefusedAddress(address.address));
    if (!loopbackName) return;
    receiver.requests.length = 0;
    expect(await send(`http://${name}:${receiver.port}/x`)).toEqual({ ok: false, error: REFUSED_MESSAGE });
    expect(receiver.requests).toHaveLength(0);
    // Unguarded, the name reaches the receiver, so the refusal above came from the guard.
    expect(await send(`http://${name}:${receiver.port}/x`, false)).toMatchObject({ ok: true });
  });

  it("answers the same for an open and a closed port (no port-scan oracle)", async () => {
    const open = await send(`http://[::ffff:127.0.0.1]:${receiver.port}/`);
    const shut = await send(`http://[::ffff:127.0.0.1]:${closedPort}/`);
    expect(open).toEqual(shut);
    expect(await send(`http://10.255.255.1:${closedPort}/`)).toEqual(open);
  });
});
