/**
 * The postMessage protocol between the host page (loader.js) and the widget
 * (app.html in a sandboxed iframe). Every message is an object with
 * `clube: 1` and a `type`; each side accepts messages only from the other
 * window and the expected origin:
 * - the loader accepts messages only from its iframe's window and the
 *   Clube server's origin (`baseUrl`);
 * - the widget accepts messages only from `window.parent`, and after the
 *   first `identify` only from that same origin. That origin is checked by
 *   the server against the club's `allowedOrigins`
 *   (`GET /v1/me/config?embedder=`): a page not allowed sees an error in the
 *   widget instead of the club.
 *
 * Host → widget:
 * - `identify {token}`: a participant token (never in a URL). Sent in answer
 *   to `ready` and to `auth.expired`, or at any time by `handle.setToken`.
 * - `navigate {module}`: open a module (`handle.open`); `home` for the home screen.
 *
 * Widget → host (sent to the host's origin once known; `ready` to any
 * origin, since it carries nothing):
 * - `ready`: the widget loaded and waits for `identify`.
 * - `auth.expired`: the token was refused; answer with a new `identify`.
 * - `resize {height}`: the content height in CSS pixels (the loader sizes the iframe).
 * - `navigate {module}`: the participant opened a module.
 * - `event {name, data}`: a participant action the host may track
 *   (`checkin.claimed`, `mission.claimed`, `wheel.spun`, `store.redeemed`,
 *   `cashback.claimed`, `referral.copied`, `notifications.read`).
 * - `error {code, message}`: the widget cannot show the club (`origin_not_allowed`, ...).
 */
export type ModuleName =
  | "home"
  | "profile"
  | "currencies"
  | "missions"
  | "checkin"
  | "wheel"
  | "store"
  | "rewards"
  | "leaderboard"
  | "notifications"
  | "cashback"
  | "referral"
  | "badges"
  | "faq"
  | "codes";

export type HostMessage = { clube: 1; type: "identify"; token: string } | { clube: 1; type: "navigate"; module: ModuleName };

export type WidgetMessage =
  | { clube: 1; type: "ready" }
  | { clube: 1; type: "auth.expired" }
  | { clube: 1; type: "resize"; height: number }
  | { clube: 1; type: "navigate"; module: ModuleName }
  | { clube: 1; type: "event"; name: string; data?: Record<string, unknown> }
  | { clube: 1; type: "error"; code: string; message: string };

export function isClubeMessage(data: unknown): data is { clube: 1; type: string } {
  return typeof data === "object" && data !== null && (data as { clube?: unknown }).clube === 1 && typeof (data as { type?: unknown }).type === "string";
}
