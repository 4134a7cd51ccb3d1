// Every method of @clube/browser once, with a participant token, against a
// Prism mock of generated/openapi.json (requests checked against the contract,
// answers are the contract's examples).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ClubeError, createClubeBrowser } from "../../sdk-browser/src/index.js";
import { startPrism, type PrismServer } from "../support/prism.js";
import { responseExample } from "./contract-examples.js";
import { meCalls } from "./me-calls.js";

const participantToken =
  "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyXzg0MTIiLCJjbHViIjoiY2xiXzdIM0s5USIsImVudiI6InRlc3QifQ.c2lnbmF0dXJl";

let prism: PrismServer;
beforeAll(async () => {
  prism = await startPrism({ mode: "mock" });
});
afterAll(() => prism?.stop());

describe("@clube/browser against the Prism mock", () => {
  it.each(Object.entries(meCalls))("%s returns the contract's example", async (operationId, call) => {
    const clube = createClubeBrowser({ baseUrl: prism.url, getToken: async () => participantToken });
    expect(await call(clube.me)).toEqual(responseExample(operationId as never));
  });

  it("when every token is refused, throws the contract's 401 and calls onAuthExpired", async () => {
    const getToken = vi.fn(async () => participantToken);
    const onAuthExpired = vi.fn();
    const clube = createClubeBrowser({
      baseUrl: prism.url,
      getToken,
      onAuthExpired,
      // Prism answers the documented 401 example when asked for it.
      fetch: (request) => {
        const refused = new Request(request);
        refused.headers.set("Prefer", "code=401");
        return fetch(refused);
      },
    });
    const error = await clube.me.profile().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClubeError);
    expect(error).toMatchObject({ status: 401, raw: responseExample("Me_getProfile", "401") });
    expect(getToken).toHaveBeenCalledTimes(2);
    expect(onAuthExpired).toHaveBeenCalledTimes(1);
  });
});
