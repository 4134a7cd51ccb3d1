import { isClubeMessage, type HostMessage, type ModuleName, type WidgetMessage } from "./protocol";

/**
 * `loader.js`: included by the host page, defines `window.ClubeWidget`.
 * `ClubeWidget.mount(element, options)` puts the widget in a sandboxed iframe
 * served by the Clube server and answers its requests for a token.
 */
export interface MountOptions {
  /** The Clube server, e.g. `https://club.example.com`. */
  baseUrl: string;
  /** A participant token from the host's own server. Called when the widget starts and when the token expires. */
  getToken: () => Promise<string> | string;
  /** `pt-BR` (default) or `en`. */
  locale?: string;
  /** Colours: `theme` (default) uses the club's palette; `light`/`dark` force one; `auto` follows the visitor's system setting. */
  scheme?: "theme" | "light" | "dark" | "auto";
  /** The module shown first (default: the home screen). */
  module?: ModuleName;
  /** Participant actions (`event` messages) and navigation, for the host's analytics. */
  onEvent?: (message: WidgetMessage) => void;
}

export interface WidgetHandle {
  open(module: ModuleName): void;
  setToken(token: string): void;
  destroy(): void;
}

function mount(element: HTMLElement, options: MountOptions): WidgetHandle {
  const origin = new URL(options.baseUrl).origin;
  const iframe = document.createElement("iframe");
  const params = new URLSearchParams({ locale: options.locale || "pt-BR", module: options.module || "home", scheme: options.scheme || "theme" });
  iframe.src = `${origin}/widget/app.html#${params}`;
  iframe.title = "Clube";
  // Scripts and same-origin (its calls to the Clube server); popups for share links. No top navigation.
  // Only for a page of another origin: framed by a page of the Clube server itself (the demo page), a frame with
  // scripts and its own origin could lift the sandbox anyway, which browsers warn about on the page's console.
  if (origin !== location.origin) iframe.setAttribute("sandbox", "allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox allow-forms");
  iframe.setAttribute("allow", "clipboard-write");
  iframe.style.cssText = "border:0;width:100%;min-width:320px;height:480px;display:block;color-scheme:normal";
  element.appendChild(iframe);

  const post = (message: HostMessage) => iframe.contentWindow?.postMessage(message, origin);
  const sendToken = async () => {
    try {
      post({ clube: 1, type: "identify", token: await options.getToken() });
    } catch {
      // The host could not get a token: the widget keeps waiting and shows it is signed out.
    }
  };

  const onMessage = (event: MessageEvent) => {
    if (event.origin !== origin || event.source !== iframe.contentWindow || !isClubeMessage(event.data)) return;
    const message = event.data as WidgetMessage;
    if (message.type === "ready" || message.type === "auth.expired") void sendToken();
    else if (message.type === "resize" && typeof message.height === "number") iframe.style.height = `${Math.max(200, Math.ceil(message.height))}px`;
    else options.onEvent?.(message);
  };
  window.addEventListener("message", onMessage);

  return {
    open: (module) => post({ clube: 1, type: "navigate", module }),
    setToken: (token) => post({ clube: 1, type: "identify", token }),
    destroy: () => {
      window.removeEventListener("message", onMessage);
      iframe.remove();
    },
  };
}

(window as unknown as { ClubeWidget: { mount: typeof mount } }).ClubeWidget = { mount };
