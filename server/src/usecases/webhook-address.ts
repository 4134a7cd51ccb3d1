import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/**
 * Private, loopback and link-local networks. A live webhook endpoint must not
 * point into them (it would let a club key probe the network Clube runs in);
 * test endpoints may, so developers can receive webhooks on their machines.
 */
const PRIVATE = new BlockList();
PRIVATE.addSubnet("10.0.0.0", 8, "ipv4");
PRIVATE.addSubnet("172.16.0.0", 12, "ipv4");
PRIVATE.addSubnet("192.168.0.0", 16, "ipv4");
PRIVATE.addSubnet("127.0.0.0", 8, "ipv4");
PRIVATE.addSubnet("169.254.0.0", 16, "ipv4");
PRIVATE.addSubnet("0.0.0.0", 8, "ipv4");
PRIVATE.addAddress("::1", "ipv6");
PRIVATE.addAddress("::", "ipv6");
PRIVATE.addSubnet("fc00::", 7, "ipv6");
PRIVATE.addSubnet("fe80::", 10, "ipv6");

/** The first private address `url`'s host resolves to, or null when every address is public. */
export async function privateAddressOf(url: string): Promise<string | null> {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
  if (host === "localhost" || host.endsWith(".localhost")) return host;
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
  for (const { address, family } of addresses) {
    const mapped = family === 6 && address.startsWith("::ffff:") ? address.slice(7) : address;
    if (PRIVATE.check(mapped, isIP(mapped) === 6 ? "ipv6" : "ipv4")) return address;
  }
  return null;
}

async function resolve(host: string): Promise<{ address: string; family: number }[]> {
  try {
    return await lookup(host, { all: true });
  } catch {
    // An unresolvable host is not private; the sending will fail and be retried.
    return [];
  }
}
