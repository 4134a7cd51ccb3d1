import { describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError } from "../../sdk-node/src/webhooks.js";
import { signPayload, verifySignature } from "../../server/src/webhooks/signature.js";

const secret = "whsec_test_secret";
const body = '{"id":"evt_1","type":"level.up"}';
const t = 1_700_000_000;
const now = new Date(t * 1000);
// Computed outside this code base: printf '%s' "1700000000.$body" | openssl dgst -sha256 -hmac whsec_test_secret
const opensslHex = "b17782ab87ec4bd0ac6e4c0122f973fd86984e6f96a0bdb43c025160935d5fac";

/** A second, independent HMAC implementation (WebCrypto) to compare against. */
async function webCryptoHex(key: string, message: string): Promise<string> {
  const encoder = new TextEncoder();
  const cryptoKey = await crypto.subtle.importKey("raw", encoder.encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(message));
  return Buffer.from(mac).toString("hex");
}

describe("signPayload", () => {
  it("matches an openssl computation of HMAC-SHA256 over t.body keyed by the secret string as given", () => {
    expect(signPayload(secret, body, t)).toBe(`t=${t},v1=${opensslHex}`);
  });

  it("matches WebCrypto for other secrets, bodies and times, including non-ASCII bodies", async () => {
    const cases = [
      { key: "whsec_Zm9vYmFy", raw: "{}", at: 0 },
      { key: "whsec_ÿ€", raw: '{"name":"João","amount":10.5}', at: 1_234_567_890 },
      { key: "whsec_" + "x".repeat(64), raw: " \n", at: 4_102_444_800 },
    ];
    for (const c of cases) {
      expect(signPayload(c.key, c.raw, c.at)).toBe(`t=${c.at},v1=${await webCryptoHex(c.key, `${c.at}.${c.raw}`)}`);
    }
  });

  it("signs bytes the same as the equal string", () => {
    expect(signPayload(secret, Buffer.from(body, "utf8"), t)).toBe(signPayload(secret, body, t));
  });

  it("refuses a timestamp that is not a non-negative integer", () => {
    expect(() => signPayload(secret, body, 1.5)).toThrow(RangeError);
    expect(() => signPayload(secret, body, -1)).toThrow(RangeError);
  });
});

describe("verifySignature", () => {
  const valid = `t=${t},v1=${opensslHex}`;
  const verify = (header: string | null | undefined, at: Date = now, raw: string | Buffer = body) => verifySignature(raw, header, secret, { now: at });

  it("accepts a valid header, for a string or a Buffer body", () => {
    expect(verify(valid)).toEqual({ ok: true });
    expect(verify(valid, now, Buffer.from(body))).toEqual({ ok: true });
  });

  it("reports a missing header", () => {
    for (const header of [undefined, null, ""]) expect(verify(header)).toEqual({ ok: false, reason: "missing_header" });
  });

  const badFormats: Array<[string, string]> = [
    ["a space after the comma", `t=${t}, v1=${opensslHex}`],
    ["no v1", `t=${t}`],
    ["no t", `v1=${opensslHex}`],
    ["another scheme only", `t=${t},v0=${opensslHex}`],
    ["a non-numeric t", `t=17e8,v1=${opensslHex}`],
    ["a negative t", `t=-${t},v1=${opensslHex}`],
    ["surrounding whitespace", ` ${valid}`],
  ];
  it.each(badFormats)("reports bad_format for %s", (_what, header) => {
    expect(verify(header)).toEqual({ ok: false, reason: "bad_format" });
  });

  // As Stripe's verifier: pairs in any order, unknown schemes and empty items ignored.
  it.each([
    ["v1 before t", `v1=${opensslHex},t=${t}`],
    ["a trailing comma", `${valid},`],
    ["another scheme next to v1", `${valid},v0=${opensslHex},v2=abc`],
  ])("accepts %s", (_what, header) => {
    expect(verify(header)).toEqual({ ok: true });
  });

  it.each([
    ["upper-case hex", `t=${t},v1=${opensslHex.toUpperCase()}`],
    ["a short signature", `t=${t},v1=${opensslHex.slice(1)}`],
    ["a long signature", `t=${t},v1=${opensslHex}0`],
  ])("reports no_match for %s (compared as lower-case hex, like Stripe)", (_what, header) => {
    expect(verify(header)).toEqual({ ok: false, reason: "no_match" });
  });

  it("accepts a timestamp exactly 300 s away in either direction and refuses 301 s", () => {
    expect(verify(valid, new Date((t + 300) * 1000))).toEqual({ ok: true });
    expect(verify(valid, new Date((t - 300) * 1000))).toEqual({ ok: true });
    expect(verify(valid, new Date((t + 301) * 1000))).toEqual({ ok: false, reason: "too_old" });
    expect(verify(valid, new Date((t - 301) * 1000))).toEqual({ ok: false, reason: "too_new" });
  });

  it("honours a custom tolerance at its edge", () => {
    const at = new Date((t + 10) * 1000);
    expect(verifySignature(body, valid, secret, { now: at, toleranceSeconds: 10 })).toEqual({ ok: true });
    expect(verifySignature(body, valid, secret, { now: at, toleranceSeconds: 9 })).toEqual({ ok: false, reason: "too_old" });
  });

  it("reports no_match for another secret, a changed body or a changed timestamp", () => {
    expect(verifySignature(body, valid, "whsec_other", { now })).toEqual({ ok: false, reason: "no_match" });
    expect(verify(valid, now, body.replace("level.up", "level.down"))).toEqual({ ok: false, reason: "no_match" });
    expect(verify(`t=${t + 1},v1=${opensslHex}`)).toEqual({ ok: false, reason: "no_match" });
  });

  it("accepts several v1 values when any one of them is valid", () => {
    const wrong = "0".repeat(64);
    expect(verify(`t=${t},v1=${wrong},v1=${opensslHex}`)).toEqual({ ok: true });
    expect(verify(`t=${t},v1=${opensslHex},v1=${wrong}`)).toEqual({ ok: true });
    expect(verify(`t=${t},v1=${wrong},v1=${"f".repeat(64)}`)).toEqual({ ok: false, reason: "no_match" });
  });

  it("covers t exactly as sent: a zero-padded t signed as such verifies, the unpadded signature does not", async () => {
    const padded = `0${t}`;
    const paddedHex = await webCryptoHex(secret, `${padded}.${body}`);
    expect(verify(`t=${padded},v1=${paddedHex}`)).toEqual({ ok: true });
    expect(verify(`t=${padded},v1=${opensslHex}`)).toEqual({ ok: false, reason: "no_match" });
  });

  it("round-trips with signPayload", () => {
    const header = signPayload("whsec_round", "payload", t);
    expect(verifySignature("payload", header, "whsec_round", { now })).toEqual({ ok: true });
  });

  it("gives the same verdict as the SDK's verifier on every case", () => {
    const sdkVerdict = (raw: string, header: string | undefined, key: string, at: Date) => {
      try {
        verifyWebhook(raw, header, key, { now: at });
        return { ok: true };
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        return { ok: false, reason: error.reason };
      }
    };
    const cases: Array<{ header: string | undefined; key?: string; at?: Date; raw?: string }> = [
      { header: valid },
      { header: undefined },
      { header: "" },
      ...badFormats.map(([, header]) => ({ header })),
      { header: valid, at: new Date((t + 300) * 1000) },
      { header: valid, at: new Date((t + 301) * 1000) },
      { header: valid, at: new Date((t - 301) * 1000) },
      { header: valid, key: "whsec_other" },
      { header: valid, raw: body.replace("1", "2") },
      { header: `t=${t},v1=${"0".repeat(64)},v1=${opensslHex}` },
      { header: `t=0${t},v1=${opensslHex}` },
    ];
    for (const c of cases) {
      const [raw, key, at] = [c.raw ?? body, c.key ?? secret, c.at ?? now];
      expect(verifySignature(raw, c.header, key, { now: at }), JSON.stringify(c)).toEqual(sdkVerdict(raw, c.header, key, at));
    }
  });
});
