import createClient, { type Middleware } from "openapi-fetch";
import type { components, paths } from "../../generated/types.js";
import { getState } from "./store.js";

export type Schemas = components["schemas"];
export type ApiError = Schemas["ErrorDetail"];

/** Where an expired session sends the member: the sign-in page, then back to `next`. */
export function signInUrl(next = location.pathname + location.search): string {
  return `/studio/sign-in?next=${encodeURIComponent(next)}`;
}

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * Every call carries the staff session (the HttpOnly cookie, sent by the
 * browser), the chosen environment as `Clube-Env`, and on state-changing
 * calls the session's CSRF token. A 401 on anything but the sign-in calls
 * ends the session in the console: back to sign-in, then to this page.
 */
const session: Middleware = {
  onRequest({ request }) {
    const { env, session } = getState();
    request.headers.set("Clube-Env", env);
    if (STATE_CHANGING.has(request.method) && session) request.headers.set("X-CSRF-Token", session.csrf_token);
    return request;
  },
  onResponse({ request, response }) {
    if (response.status === 401 && !new URL(request.url).pathname.startsWith("/v1/staff/sessions")) {
      onExpired?.();
    }
    return response;
  },
};

let onExpired: (() => void) | undefined;
export function whenSessionExpires(handler: () => void): void {
  onExpired = handler;
}

export const api = createClient<paths>({ baseUrl: location.origin, credentials: "include" });
api.use(session);

/** The error of a failed call, as the contract shapes it (`{error: {code, message}}`), or a network failure. */
export function errorOf(error: unknown): ApiError {
  if (error && typeof error === "object" && "error" in error) return (error as Schemas["ErrorBody"]).error;
  return { code: "internal_error" as ApiError["code"], message: String(error) };
}

/** Unwraps an openapi-fetch answer: its data, or throws its contract error. */
export async function call<T>(promise: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await promise;
  } catch (err) {
    throw { code: "network", message: String(err) } as unknown as ApiError;
  }
  if (result.error !== undefined || !result.response.ok) throw errorOf(result.error);
  return result.data as T;
}
