// `prism proxy --errors` between the SDK and an upstream: answers that honour
// the contract pass through untouched, answers that break it become errors.
// The same helper puts Prism in front of the real server in the API suites.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Clube, ClubeError } from "../../sdk-node/src/index.js";
import { startPrism, type PrismServer } from "../support/prism.js";
import { responseExample } from "./contract-examples.js";
import { json, type ScriptedServer, startScriptedServer } from "./scripted-server.js";

let upstream: ScriptedServer;
let prism: PrismServer;
let clube: Clube;

beforeAll(async () => {
  upstream = await startScriptedServer([
    (res, req) =>
      req.url === "/v1/key"
        ? // As the service answers an authenticated call: with its rate-limit headers, which the contract requires.
          json(200, responseExample("Keys_get"), { "RateLimit-Limit": "3000", "RateLimit-Remaining": "2999", "RateLimit-Reset": "10" })(res, req)
        : json(200, { enabled: "yes" })(res, req), // /v1/cashback, breaking the contract
  ]);
  prism = await startPrism({ mode: "proxy", upstream: upstream.url });
  clube = new Clube({ apiKey: "cf_test_4eC39HqLyjWDarjtT1zdp7dc", baseUrl: prism.url, maxRetries: 0 });
});
afterAll(async () => {
  await prism?.stop();
  await upstream?.close();
});

describe("Prism proxy with --errors", () => {
  it("passes an answer that honours the contract through, request id included", async () => {
    expect(await clube.key.get()).toEqual(responseExample("Keys_get"));
    expect(upstream.requests.at(-1)?.headers.authorization).toBe("Bearer cf_test_4eC39HqLyjWDarjtT1zdp7dc");
  });

  it("turns an answer that breaks the contract into an error naming the violation", async () => {
    const error = await clube.cashback.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClubeError);
    expect(error).toMatchObject({ status: 500, code: "unexpected_response" });
    expect(JSON.stringify((error as ClubeError).raw)).toContain("required property 'mode'");
  });
});
