import { afterEach, describe, expect, it, vi } from "vitest";
import { ClubeError, createClubeBrowser } from "../../sdk-browser/src/index.js";
import { failure, json, type ScriptedServer, startScriptedServer, type Step } from "./scripted-server.js";

const profile = { id: "par_01JQ3Z8K4M2W6T9V", external_id: "user_8412", display_name: "Ana S.", level: 3 };
const invalidToken = failure(401, "invalid_token", "The participant token has expired");

/** Answers 200 to the tokens listed as valid, 401 `invalid_token` to any other. */
function acceptTokens(...valid: string[]): Step {
  return (res, req) => {
    const token = req.headers.authorization?.replace(/^Bearer /, "") ?? "";
    (valid.includes(token) ? json(200, profile) : invalidToken)(res, req);
  };
}

/** A getToken that hands out tok_1, tok_2, … */
function tokenSource() {
  let issued = 0;
  return vi.fn(async () => `tok_${++issued}`);
}

describe("browser client: participant token and 401 refresh", () => {
  let server: ScriptedServer;
  afterEach(() => server?.close());

  const bearers = () => server.requests.map((r) => r.headers.authorization);

  it("fetches the token once and reuses it", async () => {
    server = await startScriptedServer([acceptTokens("tok_1")]);
    const getToken = tokenSource();
    const clube = createClubeBrowser({ baseUrl: server.url, getToken });
    expect(await clube.me.profile()).toEqual(profile);
    expect(await clube.me.profile()).toEqual(profile);
    expect(getToken).toHaveBeenCalledTimes(1);
    expect(bearers()).toEqual(["Bearer tok_1", "Bearer tok_1"]);
  });

  it("on a 401 gets a new token and retries once", async () => {
    server = await startScriptedServer([acceptTokens("tok_2")]);
    const getToken = tokenSource();
    const onAuthExpired = vi.fn();
    const clube = createClubeBrowser({ baseUrl: server.url, getToken, onAuthExpired });
    expect(await clube.me.profile()).toEqual(profile);
    expect(getToken).toHaveBeenCalledTimes(2);
    expect(bearers()).toEqual(["Bearer tok_1", "Bearer tok_2"]);
    expect(onAuthExpired).not.toHaveBeenCalled();
  });

  it("resends the same request (path, method, idempotency key) on the retry", async () => {
    server = await startScriptedServer([invalidToken, json(200, { spin_id: "spn_1" })]);
    const clube = createClubeBrowser({ baseUrl: server.url, getToken: tokenSource() });
    await clube.me.spin({ idempotencyKey: "spin-2025-03-14-user_8412" });
    expect(server.requests.map((r) => [r.method, r.url, r.headers["idempotency-key"]])).toEqual([
      ["POST", "/v1/me/wheel/spin", "spin-2025-03-14-user_8412"],
      ["POST", "/v1/me/wheel/spin", "spin-2025-03-14-user_8412"],
    ]);
  });

  it("when the fresh token is refused too, calls onAuthExpired and throws the 401", async () => {
    server = await startScriptedServer([acceptTokens()]);
    const getToken = tokenSource();
    const onAuthExpired = vi.fn();
    const clube = createClubeBrowser({ baseUrl: server.url, getToken, onAuthExpired });
    const error = await clube.me.profile().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClubeError);
    expect(error).toMatchObject({ status: 401, code: "invalid_token", requestId: "req_test_1" });
    expect(onAuthExpired).toHaveBeenCalledTimes(1);
    expect(server.requests).toHaveLength(2);

    // The refused token is forgotten: the next call starts with a new one.
    await clube.me.profile().catch(() => undefined);
    expect(bearers()[2]).toBe("Bearer tok_3");
  });

  it("refreshes once for concurrent calls that fail with the same token", async () => {
    server = await startScriptedServer([acceptTokens("tok_2")]);
    const getToken = tokenSource();
    const clube = createClubeBrowser({ baseUrl: server.url, getToken });
    await Promise.all([clube.me.profile(), clube.me.profile(), clube.me.profile()]);
    expect(getToken).toHaveBeenCalledTimes(2);
    expect(bearers().filter((b) => b === "Bearer tok_2")).toHaveLength(3);
  });

  it("does not cache a failed getToken", async () => {
    server = await startScriptedServer([acceptTokens("tok_ok")]);
    const getToken = vi.fn<() => Promise<string>>().mockRejectedValueOnce(new Error("session lost")).mockResolvedValue("tok_ok");
    const clube = createClubeBrowser({ baseUrl: server.url, getToken });
    await expect(clube.me.profile()).rejects.toThrow("session lost");
    expect(await clube.me.profile()).toEqual(profile);
    expect(server.requests).toHaveLength(1);
  });

  it("passes other errors through as ClubeError without refreshing", async () => {
    server = await startScriptedServer([failure(409, "already_claimed", "Today's check-in is already claimed")]);
    const getToken = tokenSource();
    const clube = createClubeBrowser({ baseUrl: server.url, getToken });
    await expect(clube.me.claimCheckin()).rejects.toMatchObject({ status: 409, code: "already_claimed", message: "Today's check-in is already claimed" });
    expect(getToken).toHaveBeenCalledTimes(1);
  });
});
