// @clube/browser: the participant surface (/v1/me/*) for browsers and apps,
// authenticated with a participant token. No Node built-ins: it runs in any
// environment with the standard fetch API.
import createClient from "openapi-fetch";
import type { paths } from "../../generated/types.js";
import { createMeMethods, type MeMethods } from "./me.js";
import { createTokenFetch } from "./token-fetch.js";

export interface ClubeBrowserOptions {
  /** Where the Clube API listens, e.g. `https://clube.example.com`. */
  baseUrl: string;
  /** Returns a participant token from your server; called on first use and again when the token is refused. */
  getToken: () => Promise<string>;
  /** Called when even a fresh token is refused: sign the participant in again. */
  onAuthExpired?: () => void;
  /** A fetch implementation; defaults to the global `fetch`. */
  fetch?: (request: Request) => Promise<Response>;
}

export interface ClubeBrowser {
  /** The signed-in participant's profile, progress, missions, check-in, wheel, store, rewards, notifications, cashback, referral, leaderboards, badges and tournaments. */
  me: MeMethods;
}

export function createClubeBrowser(options: ClubeBrowserOptions): ClubeBrowser {
  const api = createClient<paths>({
    baseUrl: options.baseUrl,
    fetch: createTokenFetch({
      getToken: options.getToken,
      onAuthExpired: options.onAuthExpired,
      fetch: options.fetch ?? ((request) => fetch(request)),
    }),
  });
  // The browser never retries on its own, so it sends an idempotency key only when the caller gives one.
  return { me: createMeMethods(api, { idempotencyKey: (given) => given }) };
}

export { ClubeError } from "./errors.js";
export type { MeMethods } from "./me.js";
export type * from "./models.js";
export { verifyWheelSpin, wheelDraw, wheelSeedHash, wheelSliceForDraw, type FairSpin, type FairSpinCheck } from "./fair-wheel.js";
