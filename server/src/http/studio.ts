import { readFile } from "node:fs/promises";
import Router from "@koa/router";
import type { Context, Middleware } from "koa";
import { rootFile } from "../root.js";

/**
 * Clube Studio, the staff console, served by this server at `/studio/` (no
 * CDN; `GET /` leads there). Built into studio/dist by `npm run studio:build`
 * (run by `npm start` and `npm test`). Every path under /studio/ that is not
 * a built file answers the app's page, so each screen's URL can be opened
 * directly; the app calls the API with the staff session cookie.
 */
const DIST = rootFile("studio/dist/");
const TYPES: Record<string, string> = {
  js: "application/javascript; charset=utf-8",
  css: "text/css; charset=utf-8",
  html: "text/html; charset=utf-8",
};
const FILE = /^(?:chunks\/)?[A-Za-z0-9_-]+\.(js|css)$|^preview\.html$/;

// Only this server's scripts; CodeMirror sets inline styles on the editor; the preview page frames the widget.
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https: http:; connect-src 'self'; frame-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

async function send(ctx: Context, file: string, type: string, cache: string): Promise<void> {
  let content: Buffer;
  try {
    content = await readFile(new URL(file, DIST));
  } catch {
    ctx.status = 503;
    ctx.type = "text/plain";
    ctx.body = "Clube Studio is not built: run `npm run studio:build`.";
    return;
  }
  ctx.type = type;
  ctx.set("Cache-Control", cache);
  ctx.set("X-Content-Type-Options", "nosniff");
  ctx.set("Referrer-Policy", "same-origin");
  if (type.startsWith("text/html")) {
    ctx.set("Content-Security-Policy", CSP);
    ctx.set("X-Frame-Options", "DENY");
  }
  ctx.body = content;
}

/**
 * The console's middleware: `GET /` and `GET /studio` lead to `/studio/`
 * (plain redirects, not routes, so other methods on `/` stay unknown routes),
 * then the files and pages under `/studio/`.
 */
export function studio(): Middleware {
  const routes = studioRouter().routes();
  return (ctx, next) => {
    if ((ctx.method === "GET" || ctx.method === "HEAD") && (ctx.path === "/" || ctx.path === "/studio")) {
      ctx.redirect("/studio/");
      return Promise.resolve();
    }
    return routes(ctx as never, next);
  };
}

function studioRouter(): Router {
  const router = new Router();
  router.get(/^\/studio\/.*$/, async (ctx) => {
    const path = ctx.path.slice("/studio/".length);
    const match = FILE.exec(path);
    if (match) {
      // Chunk names carry a content hash; the entry files keep their names, so they are revalidated soon.
      const cache = path.startsWith("chunks/") ? "public, max-age=31536000, immutable" : "public, max-age=60";
      await send(ctx, path, TYPES[match[1] ?? "html"], cache);
      return;
    }
    if (/\.[a-z0-9]+$/i.test(path)) {
      ctx.status = 404;
      ctx.type = "text/plain";
      ctx.body = "Not found.";
      return;
    }
    await send(ctx, "index.html", TYPES.html, "no-cache");
  });
  return router;
}
