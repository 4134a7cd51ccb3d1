import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";

/**
 * Which addresses a live webhook may reach.
 *
 * A live endpoint must not point into the network Clube runs in (a club key
 * could otherwise probe it: loopback, private, link-local, the cloud metadata
 * services at 169.254.169.254 and 100.100.100.200, ...). Addresses are parsed
 * and normalised by ipaddr.js, never by string slicing: IPv4-mapped IPv6
 * (`::ffff:127.0.0.1`, which the URL parser writes as `::ffff:7f00:1`) is
 * judged as the IPv4 address it carries; the WHATWG URL parser has already
 * turned decimal/octal/hex IPv4 hosts (`2130706433`, `0x7f.1`) into dotted form.
 *
 * Only global unicast is allowed: every range ipaddr.js names other than
 * `unicast` (private, loopback, linkLocal, carrierGradeNat, multicast,
 * reserved, unspecified, broadcast, uniqueLocal, ipv4Mapped, rfc6145, rfc6052,
 * 6to4, teredo, ...) is refused, plus the special-purpose blocks below that it
 * counts as unicast. Test endpoints are not checked (developers receive
 * webhooks on their machines), nor anything when the server runs with
 * `CLUBE_ALLOW_PRIVATE_WEBHOOKS=1`.
 */
const EXTRA_REFUSED: [ipaddr.IPv4 | ipaddr.IPv6, number][] = [
  // IPv4 (IANA special-purpose registry entries ipaddr.js may call unicast).
  "0.0.0.0/8",
  "100.64.0.0/10",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "240.0.0.0/4",
  // IPv6: IPv4-compatible (deprecated, `::127.0.0.1`), NAT64 (global and local-use),
  // discard-only, IETF protocol assignments (Teredo, ORCHID, ...), documentation, SRv6 SIDs.
  "::/96",
  "64:ff9b::/96",
  "64:ff9b:1::/48",
  "100::/64",
  "2001::/23",
  "2001:db8::/32",
  "2002::/16",
  "3fff::/20",
  "5f00::/16",
  "fc00::/7",
  "fe80::/10",
  "fec0::/10",
  "ff00::/8",
].map((cidr) => ipaddr.parseCIDR(cidr));

/** True when a live webhook may not connect to `address` (an IP literal; anything unparsable is refused). */
export function isRefusedAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ""));
  } catch {
    return true;
  }
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.range() !== "unicast") return true;
  return EXTRA_REFUSED.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
}

/**
 * The URL as the sender will use it, or null when it is not an absolute
 * http(s) URL the WHATWG parser accepts (e.g. `http://127.0.0.1%09/`, which
 * passes the JSON Schema `uri` format but no HTTP client can send to).
 */
export function parseWebhookUrl(url: string): URL | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
  if (!parsed.hostname || parsed.username || parsed.password) return null;
  return parsed;
}

/** The host without IPv6 brackets, and whether it is an IP literal. */
function hostOf(url: URL): { host: string; literal: boolean } {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  return { host, literal: ipaddr.isValid(host) };
}

/** A refused-by-name host: `localhost` and `*.localhost` always mean this machine. */
function isLocalName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/**
 * The first refused address `url`'s host is or resolves to, or null when every
 * address is allowed. Used when an endpoint is saved (a fast, friendly 422);
 * the address actually connected to is checked again by `guardedLookup`.
 */
export async function refusedAddressOf(url: URL): Promise<string | null> {
  const { host, literal } = hostOf(url);
  if (isLocalName(host)) return host;
  if (literal) return isRefusedAddress(host) ? host : null;
  const addresses = await resolve(host);
  return addresses.find((address) => isRefusedAddress(address.address))?.address ?? null;
}

/** True when the URL's host is an IP literal that is refused (no lookup happens for those at connect time). */
export function isRefusedLiteralHost(url: URL): boolean {
  const { host, literal } = hostOf(url);
  return isLocalName(host) || (literal && isRefusedAddress(host));
}

async function resolve(host: string): Promise<LookupAddress[]> {
  try {
    return await lookup(host, { all: true });
  } catch {
    // An unresolvable host is not refused here; the sending fails (and is retried) if it stays so.
    return [];
  }
}

/** The error code a refused connection fails with; the sender maps it to one generic message. */
export const ADDRESS_REFUSED = "CLUBE_ADDRESS_REFUSED";

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for `net.connect`/`tls.connect` that resolves like `dns.lookup`
 * and fails with `ADDRESS_REFUSED` when any resolved address is refused. The
 * socket connects only to addresses this function returned, so a DNS answer
 * that changes between the save-time check and the connection (DNS rebinding)
 * cannot reach a refused address.
 */
export function guardedLookup(hostname: string, options: { all?: boolean; family?: number | string }, callback: LookupCallback): void {
  if (isLocalName(hostname)) return callback(refusedError(), []);
  dnsLookup(hostname, { ...options, all: true } as { all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    if (addresses.length === 0 || addresses.some((address) => isRefusedAddress(address.address))) return callback(refusedError(), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

function refusedError(): NodeJS.ErrnoException {
  return Object.assign(new Error("address refused for live webhooks"), { code: ADDRESS_REFUSED });
}
