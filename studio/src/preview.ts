/**
 * "See as participant": the widget mounted with the short-lived participant
 * token the console issued, passed in this page's fragment (never sent to a
 * server by the browser).
 */
declare const ClubeWidget: { mount(element: HTMLElement, options: { baseUrl: string; getToken: () => Promise<string> }): unknown };

const token = new URLSearchParams(location.hash.slice(1)).get("token") ?? "";
history.replaceState(null, "", location.pathname);
ClubeWidget.mount(document.getElementById("clube")!, { baseUrl: location.origin, getToken: () => Promise.resolve(token) });
