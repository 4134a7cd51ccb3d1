import { createClubeBrowser } from "@clube/browser";
import type { components } from "../../../generated/types.js";
import type { HostBridge } from "./host";

export type Schemas = components["schemas"];
export type MeConfig = Schemas["MeConfig"];

/**
 * Every call goes through @clube/browser. Its token hook asks the host page:
 * the first token comes with `identify`, a refused one triggers `auth.expired`.
 * `GET /v1/me/config` is not (yet) a method of @clube/browser, so it has a
 * small generic call path here, with the same token handling.
 */
export function createApi(host: HostBridge) {
  let first = true;
  const client = createClubeBrowser({
    baseUrl: location.origin,
    getToken: () => {
      // The SDK asks once at start, then only after a 401: that is when the token expired.
      if (first) {
        first = false;
        return host.token();
      }
      return host.freshToken();
    },
  });

  async function config(embedder: string): Promise<MeConfig> {
    const call = (token: string) => fetch(`/v1/me/config?embedder=${encodeURIComponent(embedder)}`, { headers: { Authorization: `Bearer ${token}` } });
    let response = await call(await host.token());
    if (response.status === 401) response = await call(await host.freshToken());
    const body = await response.json().catch(() => null);
    if (!response.ok) {
      const error = body?.error ?? { code: "unexpected_response", message: `HTTP ${response.status}` };
      throw new CallError(response.status, error.code, error.message);
    }
    return body as MeConfig;
  }

  return { me: client.me, config };
}

export type Api = ReturnType<typeof createApi>;

/** A refused call of the widget's own call path, with the server's stable error `code` (like the SDK's errors). */
export class CallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
