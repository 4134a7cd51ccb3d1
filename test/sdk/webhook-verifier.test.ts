import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signPayload, verifySignature } from "../../server/src/webhooks/signature.js";
import { parseSignatureHeader, verifyWebhook, WebhookVerificationError, type WebhookVerificationReason } from "../../sdk-node/src/webhooks.js";

const secret = "whsec_3f9a0c1d5e7b2a4c6e8f0a1b3c5d7e9f";
const now = new Date("2025-03-14T18:30:00Z");
const nowSeconds = Math.floor(now.getTime() / 1000);

const envelope = {
  id: "evt_01JPA7Q4M2ZK8T5N3R6W9Y1B4C",
  type: "level.up",
  created_at: "2025-03-14T18:29:58Z",
  club_id: "club_cassino_sol",
  env: "live",
  data: { participant: { id: "par_8c1f2a", external_id: "user_8412" }, level: 5, from: 4 },
};
const body = JSON.stringify(envelope);

/** The seed's algorithm, written independently of the SDK: HMAC-SHA256(secret, t + "." + body) as hex. */
function sign(rawBody: string | Uint8Array, t: number | string, key = secret): string {
  return createHmac("sha256", key).update(`${t}.`).update(rawBody).digest("hex");
}

function header(t: number | string, ...signatures: string[]): string {
  return [`t=${t}`, ...signatures.map((s) => `v1=${s}`)].join(",");
}

function reasonOf(run: () => unknown): WebhookVerificationReason {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return (err as WebhookVerificationError).reason;
  }
  throw new Error("verification unexpectedly passed");
}

describe("verifyWebhook", () => {
  it("returns the parsed envelope of a correctly signed body", () => {
    const event = verifyWebhook(body, header(nowSeconds, sign(body, nowSeconds)), secret, { now });
    expect(event).toEqual(envelope);
  });

  it("accepts the raw body as a Buffer or a Uint8Array, with non-ASCII text", () => {
    const text = JSON.stringify({ ...envelope, data: { ...envelope.data, display_name: "João Ção" } });
    const bytes = new TextEncoder().encode(text);
    const signed = header(nowSeconds, sign(bytes, nowSeconds));
    expect(verifyWebhook(Buffer.from(bytes), signed, secret, { now })).toEqual(JSON.parse(text));
    expect(verifyWebhook(bytes, signed, secret, { now })).toEqual(JSON.parse(text));
  });

  it("accepts a header with several v1 signatures when one of them matches", () => {
    const wrong = sign(body, nowSeconds, "whsec_old_secret");
    expect(verifyWebhook(body, header(nowSeconds, wrong, sign(body, nowSeconds)), secret, { now })).toEqual(envelope);
  });

  it.each([undefined, null, ""])("refuses a missing header (%j) with missing_header", (value) => {
    expect(reasonOf(() => verifyWebhook(body, value, secret, { now }))).toBe("missing_header");
  });

  const good = sign(body, nowSeconds);
  it.each([
    ['a space after the comma (Stripe reads the scheme as " v1")', `t=${nowSeconds}, v1=${good}`],
    ["no timestamp", `v1=${good}`],
    ["no signature", `t=${nowSeconds}`],
    ["only an unknown scheme", `t=${nowSeconds},v0=${good}`],
    ["a non-numeric timestamp", header("2025-03-14", good)],
  ])("refuses %s with bad_format", (_, value) => {
    expect(reasonOf(() => verifyWebhook(body, value, secret, { now }))).toBe("bad_format");
  });

  it.each([
    ["the signature before the timestamp", `v1=${good},t=${nowSeconds}`],
    ["an unknown scheme after", `${header(nowSeconds, good)},v0=${good}`],
    ["a future scheme before", `t=${nowSeconds},v2=${"f".repeat(128)},v1=${good}`],
    ["a trailing comma", `${header(nowSeconds, good)},`],
    ["the matching v1 last of three", header(nowSeconds, "0".repeat(64), "1".repeat(64), good)],
  ])("accepts, as Stripe's verifier does, %s", (_, value) => {
    expect(verifyWebhook(body, value, secret, { now })).toEqual(envelope);
  });

  it.each([
    ["uppercase hex", header(nowSeconds, good.toUpperCase())],
    ["63 hex digits", header(nowSeconds, good.slice(1))],
    ["65 hex digits", header(nowSeconds, `${good}0`)],
  ])("refuses %s with no_match", (_, value) => {
    expect(reasonOf(() => verifyWebhook(body, value, secret, { now }))).toBe("no_match");
  });

  it.each([
    ["another secret", header(nowSeconds, sign(body, nowSeconds, "whsec_another"))],
    ["a changed body", header(nowSeconds, sign(body.replace('"level":5', '"level":6'), nowSeconds))],
    ["a signature made for another timestamp", header(nowSeconds, sign(body, nowSeconds - 1))],
  ])("refuses %s with no_match", (_, value) => {
    expect(reasonOf(() => verifyWebhook(body, value, secret, { now }))).toBe("no_match");
  });

  it("refuses a body re-serialised after parsing (whitespace differs) with no_match", () => {
    const pretty = JSON.stringify(envelope, null, 2);
    expect(reasonOf(() => verifyWebhook(pretty, header(nowSeconds, good), secret, { now }))).toBe("no_match");
  });

  it.each([
    [-300, true],
    [-301, false],
    [300, true],
    [301, false],
  ])("with the default 300-second tolerance, a timestamp %i s from now passes: %s", (offset, passes) => {
    const t = nowSeconds + offset;
    const run = () => verifyWebhook(body, header(t, sign(body, t)), secret, { now });
    if (passes) expect(run()).toEqual(envelope);
    else expect(reasonOf(run)).toBe(offset > 0 ? "too_new" : "too_old");
  });

  it("honours a custom tolerance at its edge", () => {
    const at = (offset: number) => () =>
      verifyWebhook(body, header(nowSeconds - offset, sign(body, nowSeconds - offset)), secret, { now, toleranceSeconds: 10 });
    expect(at(10)()).toEqual(envelope);
    expect(reasonOf(at(11))).toBe("too_old");
  });

  it("uses the system clock when no `now` is given", () => {
    const t = Math.floor(Date.now() / 1000);
    expect(verifyWebhook(body, header(t, sign(body, t)), secret)).toEqual(envelope);
    expect(reasonOf(() => verifyWebhook(body, header(t - 3600, sign(body, t - 3600)), secret))).toBe("too_old");
  });

  it.each([
    ["text that is not JSON", "not json"],
    ["a JSON array", "[1,2]"],
    ["a JSON string", '"evt"'],
    ["invalid UTF-8", new Uint8Array([0x7b, 0xff, 0x7d])],
  ])("refuses a correctly signed body that is %s with invalid_json", (_, raw) => {
    expect(reasonOf(() => verifyWebhook(raw, header(nowSeconds, sign(raw, nowSeconds)), secret, { now }))).toBe("invalid_json");
  });

  it("refuses a body that was already parsed, and an empty secret, as programming errors", () => {
    const signed = header(nowSeconds, good);
    expect(() => verifyWebhook(envelope as unknown as string, signed, secret, { now })).toThrow(TypeError);
    expect(() => verifyWebhook(body, signed, "", { now })).toThrow(TypeError);
  });
});

describe("parseSignatureHeader", () => {
  it("keeps the timestamp as sent and every v1 signature in order", () => {
    const a = "a".repeat(64);
    const b = "0123456789abcdef".repeat(4);
    expect(parseSignatureHeader(`t=0017,v1=${a},v1=${b}`)).toEqual({ timestamp: "0017", signatures: [a, b] });
    expect(parseSignatureHeader(`v1=${b},v0=${a},t=0017,v1=${a}`)).toEqual({ timestamp: "0017", signatures: [b, a] });
    expect(parseSignatureHeader(`t=17 ,v1=${a}`)).toBeNull();
    expect(parseSignatureHeader(`t=17,v2=${a}`)).toBeNull();
  });
});

describe("against the server's signer and verifier (server/src/webhooks/signature.ts)", () => {
  it("verifies what the server signs, as string and as bytes", () => {
    const signed = signPayload(secret, body, nowSeconds);
    expect(signed).toBe(header(nowSeconds, sign(body, nowSeconds)));
    expect(verifyWebhook(body, signed, secret, { now })).toEqual(envelope);
    expect(verifyWebhook(Buffer.from(body), signPayload(secret, Buffer.from(body), nowSeconds), secret, { now })).toEqual(envelope);
  });

  const good = sign(body, nowSeconds);
  it.each([
    ["valid", header(nowSeconds, good)],
    ["valid among several", header(nowSeconds, "0".repeat(64), good)],
    ["missing", undefined],
    ["empty", ""],
    ["space", `t=${nowSeconds}, v1=${good}`],
    ["uppercase", header(nowSeconds, good.toUpperCase())],
    ["v1 first", `v1=${good},t=${nowSeconds}`],
    ["unknown scheme", `${header(nowSeconds, good)},v0=${good}`],
    ["301 s old", header(nowSeconds - 301, sign(body, nowSeconds - 301))],
    ["300 s old", header(nowSeconds - 300, sign(body, nowSeconds - 300))],
    ["301 s ahead", header(nowSeconds + 301, sign(body, nowSeconds + 301))],
    ["old and forged", header(nowSeconds - 301, good)],
    ["wrong secret", header(nowSeconds, sign(body, nowSeconds, "whsec_another"))],
  ])("reaches the same verdict as the server's verifySignature: %s", (_, value) => {
    const server = verifySignature(body, value, secret, { now });
    let sdk: { ok: true } | { ok: false; reason: WebhookVerificationReason };
    try {
      verifyWebhook(body, value, secret, { now });
      sdk = { ok: true };
    } catch (err) {
      sdk = { ok: false, reason: (err as WebhookVerificationError).reason };
    }
    expect(sdk).toEqual(server);
  });
});
