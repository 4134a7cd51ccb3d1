import type { ApiResponse } from "../../support/api.js";

/**
 * A club's view of a running Clube server, called over HTTP with fetch
 * exactly as a client's backend would (in-process or child-process server alike).
 */

export interface CallOptions {
  /** The secret key; the club's test key when omitted. */
  key?: string;
  /** `X-Participant` (headless mode on `/v1/me/*`). */
  participant?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The club's secret keys; `live` is unknown for the demo club of a `clube serve` process, which prints only the test key. */
export interface ClubKeys {
  test: string;
  live?: string;
}

export interface ClubClient {
  url: string;
  clubId: string;
  keys: ClubKeys;
  call(method: string, path: string, options?: CallOptions): Promise<ApiResponse>;
}

export function clubClient(url: string, club: { clubId: string; keys: ClubKeys }): ClubClient {
  return {
    url,
    ...club,
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { Authorization: `Bearer ${options.key ?? club.keys.test}` };
      if (options.participant !== undefined) headers["X-Participant"] = options.participant;
      if (options.body !== undefined) headers["Content-Type"] = "application/json";
      Object.assign(headers, options.headers);
      const response = await fetch(`${url}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
      const text = await response.text();
      const isJson = (response.headers.get("Content-Type") ?? "").includes("application/json");
      return { status: response.status, headers: response.headers, body: text === "" ? undefined : isJson ? JSON.parse(text) : text };
    },
  };
}

/** Calls that must succeed: the status is checked and the body returned, with the body in the error otherwise. */
export async function ok(response: Promise<ApiResponse>, status = 200): Promise<any> {
  const answered = await response;
  if (answered.status !== status) {
    throw new Error(`expected HTTP ${status}, got ${answered.status}: ${JSON.stringify(answered.body)}`);
  }
  return answered.body;
}
