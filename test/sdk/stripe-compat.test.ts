// Cross-verification with Stripe's own webhook code (the `stripe` package, a
// dev dependency of this test only): a header Stripe's generateTestHeaderString
// makes verifies with clube.webhooks.verify, and a header clube.webhooks.signTest
// makes verifies with Stripe's constructEvent. Also the server's signer, with
// two secrets during a rotation, against Stripe's verifier.
import Stripe from "stripe";
import { describe, expect, it } from "vitest";
import { signPayload } from "../../server/src/webhooks/signature.js";
import { Clube } from "../../sdk-node/src/index.js";
import { paramOf } from "../../server/src/http/errors.js";

const stripe = new Stripe("sk_test_unused");
const clube = new Clube({ apiKey: "cf_test_unused" });
const secret = "whsec_3f9a0c1d5e7b2a4c6e8f0a1b3c5d7e9f";
const payload = JSON.stringify({ id: "evt_01JPA7Q4M2ZK8T5N3R6W9Y1B4C", type: "level.up", data: { level: 5, name: "João" } });

describe("webhook signatures agree with Stripe's", () => {
  it("a header from Stripe's generateTestHeaderString verifies with clube.webhooks.verify", () => {
    const header = stripe.webhooks.generateTestHeaderString({ payload, secret });
    expect(clube.webhooks.verify(payload, header, secret)).toEqual(JSON.parse(payload));
    expect(clube.webhooks.verify(Buffer.from(payload), header, secret)).toEqual(JSON.parse(payload));
  });

  it("a header from clube.webhooks.signTest verifies with Stripe's constructEvent", () => {
    const header = clube.webhooks.signTest(payload, secret);
    expect(stripe.webhooks.constructEvent(payload, header, secret)).toEqual(JSON.parse(payload));
    const fromObject = clube.webhooks.signTest(JSON.parse(payload), secret);
    expect(stripe.webhooks.constructEvent(JSON.stringify(JSON.parse(payload)), fromObject, secret)).toEqual(JSON.parse(payload));
  });

  it("both accept the same odd-but-valid headers: v1 first, unknown schemes, several v1", () => {
    const t = Math.floor(Date.now() / 1000);
    const good = clube.webhooks.signTest(payload, secret, { timestamp: t }).split(",v1=")[1];
    for (const header of [`v1=${good},t=${t}`, `t=${t},v0=abc,v1=${good},v2=def`, `t=${t},v1=${"0".repeat(64)},v1=${good}`, `t=${t},v1=${good},`]) {
      expect(stripe.webhooks.constructEvent(payload, header, secret)).toBeTruthy();
      expect(clube.webhooks.verify(payload, header, secret)).toBeTruthy();
    }
  });

  it("both refuse a wrong secret and an old timestamp; Clube also refuses one too far ahead", () => {
    const t = Math.floor(Date.now() / 1000);
    for (const header of [
      clube.webhooks.signTest(payload, "whsec_other", { timestamp: t }),
      clube.webhooks.signTest(payload, secret, { timestamp: t - 301 }),
    ]) {
      expect(() => stripe.webhooks.constructEvent(payload, header, secret)).toThrow();
      expect(() => clube.webhooks.verify(payload, header, secret)).toThrow();
    }
    expect(() => clube.webhooks.verify(payload, clube.webhooks.signTest(payload, secret, { timestamp: t + 301 }), secret)).toThrow(/future/);
  });

  it("during a rotation the server's two v1 signatures verify with the old and the new secret, here and in Stripe", () => {
    const t = Math.floor(Date.now() / 1000);
    const header = signPayload(["whsec_new_one", "whsec_old_one"], payload, t);
    expect(header.split(",")).toHaveLength(3);
    for (const key of ["whsec_new_one", "whsec_old_one"]) {
      expect(stripe.webhooks.constructEvent(payload, header, key)).toBeTruthy();
      expect(clube.webhooks.verify(payload, header, key)).toBeTruthy();
    }
  });
});

describe("error param", () => {
  it.each([
    ["body.events[3].type must match pattern", "body.events[3].type"],
    ["query.limit must be <= 100", "query.limit"],
    ['body["odd key"] is not an allowed field', 'body["odd key"]'],
    ["path.id must have at most 64 characters", "path.id"],
    ["body is required", "body"],
  ])("the 422 message %j names param %j", (message, param) => {
    expect(paramOf("validation_failed", message)).toBe(param);
  });

  it("is absent on other errors and on free-form messages", () => {
    expect(paramOf("not_found", "body.x was not found")).toBeUndefined();
    expect(paramOf("validation_failed", "Reward 'x' has no price")).toBeUndefined();
  });
});
