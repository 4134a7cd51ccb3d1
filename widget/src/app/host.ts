import { isClubeMessage, type ModuleName, type WidgetMessage } from "../protocol";

/**
 * The widget's side of the postMessage protocol (see ../protocol.ts): only
 * `window.parent` is listened to, and only from the origin of the first
 * `identify` (the page that handed over the first token).
 */
export interface HostBridge {
  /** The host page's origin, known after the first `identify`. */
  origin(): Promise<string>;
  /** The token to use now (waits for the first `identify`). */
  token(): Promise<string>;
  /** A new token: one the host already pushed (`setToken`), else asks with `auth.expired`. */
  freshToken(): Promise<string>;
  send(message: WidgetMessage): void;
  onNavigate(listener: (module: ModuleName) => void): void;
}

export function connectHost(): HostBridge {
  let hostOrigin: string | null = null;
  let latest: string | null = null;
  let handedOut: string | null = null;
  let waiters: Array<(token: string) => void> = [];
  let originWaiters: Array<(origin: string) => void> = [];
  let navigate: (module: ModuleName) => void = () => {};

  window.addEventListener("message", (event) => {
    if (event.source !== window.parent || !isClubeMessage(event.data)) return;
    if (hostOrigin !== null && event.origin !== hostOrigin) return; // another page in between: ignored
    const message = event.data as { type: string; token?: unknown; module?: unknown };
    if (message.type === "identify" && typeof message.token === "string" && message.token) {
      if (hostOrigin === null) {
        hostOrigin = event.origin;
        originWaiters.forEach((resolve) => resolve(event.origin));
        originWaiters = [];
      }
      latest = message.token;
      const pending = waiters;
      waiters = [];
      pending.forEach((resolve) => resolve(message.token as string));
    } else if (message.type === "navigate" && typeof message.module === "string") {
      navigate(message.module as ModuleName);
    }
  });

  const send = (message: WidgetMessage) => {
    // `ready` carries nothing, so it may go to any origin; everything else only to the identified host.
    if (message.type === "ready") window.parent.postMessage(message, "*");
    else if (hostOrigin !== null) window.parent.postMessage(message, hostOrigin);
  };
  const nextToken = () => new Promise<string>((resolve) => waiters.push(resolve));

  return {
    origin: () => (hostOrigin !== null ? Promise.resolve(hostOrigin) : new Promise((resolve) => originWaiters.push(resolve))),
    async token() {
      const token = latest ?? (await nextToken());
      handedOut = token;
      return token;
    },
    async freshToken() {
      if (latest !== null && latest !== handedOut) {
        handedOut = latest;
        return latest;
      }
      const waiting = nextToken();
      send({ clube: 1, type: "auth.expired" });
      handedOut = await waiting;
      return handedOut;
    },
    send,
    onNavigate: (listener) => {
      navigate = listener;
    },
  };
}
