export interface TokenAuthOptions {
  /** Returns a participant token, normally fetched from your own server (which gets it from `POST /v1/participants/{external_id}/token`). */
  getToken: () => Promise<string>;
  /** Called when a freshly fetched token is refused too: the participant must sign in again. */
  onAuthExpired?: () => void;
  fetch: (request: Request) => Promise<Response>;
}

/**
 * A `fetch` that sends `Authorization: Bearer <participant token>`. The token
 * is fetched once and reused; a 401 means it expired, so it is replaced by a
 * new `getToken()` and the request is sent once more. Concurrent requests
 * that fail with the same token share a single refresh. A second 401 calls
 * `onAuthExpired` and resolves with that 401 (the caller turns it into a
 * `ClubeError`).
 */
export function createTokenFetch(options: TokenAuthOptions): (request: Request) => Promise<Response> {
  let current: Promise<string> | null = null;

  const refresh = (): Promise<string> => {
    const pending = options.getToken();
    current = pending;
    // A failed getToken() must not be cached: the next request asks again.
    pending.catch(() => {
      if (current === pending) current = null;
    });
    return pending;
  };

  return async (request) => {
    const used = current ?? refresh();
    const retryCopy = request.clone();
    const first = await options.fetch(withBearer(request, await used));
    if (first.status !== 401) return first;
    await first.body?.cancel(); // release the connection; the answer is replaced by the retry's

    const fresh = current === used ? refresh() : (current ?? refresh());
    const second = await options.fetch(withBearer(retryCopy, await fresh));
    if (second.status === 401) {
      if (current === fresh) current = null;
      options.onAuthExpired?.();
    }
    return second;
  };
}

function withBearer(request: Request, token: string): Request {
  const authorized = new Request(request);
  authorized.headers.set("Authorization", `Bearer ${token}`);
  return authorized;
}
