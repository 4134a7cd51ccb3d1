import { readFile } from "node:fs/promises";
import Router from "@koa/router";
import { rootFile } from "../root.js";
import type { Services } from "../services.js";
import type { DemoClub } from "../demo/ensure-demo-club.js";
import { demoParticipantToken } from "../demo/demo-participant.js";

/**
 * The participant widget, served by this server at `/widget/` (no CDN: it works
 * offline and inside a client's private network):
 * - `/widget/loader.js`: the script a host page includes; `ClubeWidget.mount`
 *   creates the sandboxed iframe and speaks the postMessage protocol;
 * - `/widget/app.html`, `/widget/app.js`, `/widget/app.css`: the app in the iframe;
 * - `/widget/demo` (only when the demo club exists, i.e. `clube serve` on a
 *   fresh database): a host page that mounts the widget for a demo participant.
 *
 * The files are built into widget/dist by `npm run widget:build` (run by
 * `npm start` and `npm test` before they start).
 */
const DIST = rootFile("widget/dist/");
const FILES: Record<string, string> = {
  "loader.js": "application/javascript; charset=utf-8",
  "app.js": "application/javascript; charset=utf-8",
  "app.css": "text/css; charset=utf-8",
  "app.html": "text/html; charset=utf-8",
};

export interface WidgetRouterOptions {
  services: Services;
  /** The demo club, when this server made one: enables `/widget/demo`. */
  demo?: DemoClub | null;
}

export function widgetRouter(options: WidgetRouterOptions): Router {
  const router = new Router();
  router.get("/widget/:file", async (ctx, next) => {
    const type = FILES[ctx.params.file];
    if (!type) return next();
    let content: Buffer;
    try {
      content = await readFile(new URL(ctx.params.file, DIST));
    } catch {
      ctx.status = 503;
      ctx.type = "text/plain";
      ctx.body = "The widget is not built: run `npm run widget:build`.";
      return;
    }
    ctx.type = type;
    // The loader's URL is what host pages embed, so it must pick up a new release soon.
    ctx.set("Cache-Control", "public, max-age=300");
    ctx.set("X-Content-Type-Options", "nosniff");
    if (ctx.params.file === "app.html") {
      // Everything the app loads comes from this server; it may be framed by any page (the app checks the page's origin).
      ctx.set(
        "Content-Security-Policy",
        "default-src 'self'; img-src 'self' data: https: http:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'",
      );
    }
    ctx.body = content;
  });

  const demo = options.demo;
  if (demo) {
    router.get("/widget/demo", (ctx) => {
      ctx.type = "text/html";
      ctx.body = DEMO_PAGE;
    });
    // Only the demo club's demo participant, only in the test environment: a sandbox for newcomers, never real data.
    router.post("/widget/demo/token", async (ctx) => {
      ctx.type = "text/plain";
      ctx.set("Cache-Control", "no-store");
      ctx.body = await demoParticipantToken(options.services, demo);
    });
  }
  return router;
}

const DEMO_PAGE = `<!doctype html>
<html lang="pt-BR">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Clube — demo host page</title>
  <link rel="icon" href="data:,">
  <style>
    body { margin: 0; font-family: system-ui, sans-serif; background: #f1f5f9; color: #0f172a; }
    header { padding: 12px 16px; background: #0f172a; color: #f8fafc; }
    main { max-width: 720px; margin: 0 auto; padding: 16px; }
  </style>
</head>
<body>
  <header><strong>Cassino Sorte Grande</strong> — a host page embedding the Clube widget (demo participant)</header>
  <main><div id="clube"></div></main>
  <script src="/widget/loader.js"></script>
  <script>
    ClubeWidget.mount(document.getElementById("clube"), {
      baseUrl: location.origin,
      // A real host asks its own server, which calls POST /v1/participants/{external_id}/token with the secret key.
      getToken: () => fetch("/widget/demo/token", { method: "POST" }).then((r) => r.text()),
    });
  </script>
</body>
</html>`;
