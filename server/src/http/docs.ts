import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import { brotliCompress, constants as zlib, gzip } from "node:zlib";
import Router from "@koa/router";
import type { Context } from "koa";
import { rootFile } from "../root.js";

/**
 * `GET /openapi.json` (the generated contract, byte for byte, compressed when
 * the client accepts it and readable from any origin, so browser tools load it
 * by URL) and `GET /docs`: the API reference, rendered by Redoc from the
 * redoc package's standalone bundle on this server (no CDN, so the reference
 * works offline and inside a client's private network). Search, code samples
 * and the guides come from the document itself (spec/codegen/reference.ts).
 */
const require = createRequire(import.meta.url);
const REDOC_BUNDLE = require.resolve("redoc/bundles/redoc.standalone.js");
const OPENAPI_PATH = rootFile("generated/openapi.json");
const REDOC_CDN_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg";

const compressBrotli = promisify(brotliCompress);
const compressGzip = promisify(gzip);

/** A static file kept in memory with its compressed forms, made on first request (not at start-up). */
class Served {
  private encoded: Promise<{ br: Buffer; gzip: Buffer }> | undefined;

  constructor(readonly body: Buffer) {}

  async send(ctx: Context, type: string, cacheControl: string): Promise<void> {
    ctx.type = type;
    ctx.set("Cache-Control", cacheControl);
    ctx.vary("Accept-Encoding");
    // Brotli when accepted at all: browsers list gzip first at the same weight, yet brotli is the smaller.
    const encoding = ctx.acceptsEncodings("br") === "br" ? "br" : ctx.acceptsEncodings("gzip") === "gzip" ? "gzip" : "identity";
    if (encoding === "br" || encoding === "gzip") {
      this.encoded ??= Promise.all([
        // A middle brotli quality: close to the best ratio for JSON at a fraction of quality 11's time.
        compressBrotli(this.body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 6, [zlib.BROTLI_PARAM_SIZE_HINT]: this.body.length } }),
        compressGzip(this.body, { level: 6 }),
      ]).then(([br, gz]) => ({ br, gzip: gz }));
      const encoded = await this.encoded;
      ctx.set("Content-Encoding", encoding);
      ctx.body = encoded[encoding];
      return;
    }
    ctx.body = this.body;
  }
}

export async function docsRouter(): Promise<Router> {
  const [document, redoc] = await Promise.all([readFile(OPENAPI_PATH), readFile(REDOC_BUNDLE)]);
  const openapi = new Served(document);
  // The bundle's sidebar credit draws a logo from Redocly's CDN: an empty image instead keeps every request on this server.
  const bundle = new Served(Buffer.from(redoc.toString("utf8").replaceAll(REDOC_CDN_LOGO, "data:,")));
  const router = new Router();
  router.get("/openapi.json", async (ctx) => {
    // Public by nature (it is the reference), and read cross-origin by browser tools (editors, mock servers, generators).
    ctx.set("Access-Control-Allow-Origin", "*");
    await openapi.send(ctx, "application/json", "public, max-age=300");
  });
  router.get("/docs", (ctx) => {
    ctx.type = "text/html";
    ctx.set("Cache-Control", "public, max-age=300");
    ctx.body = DOCS_PAGE;
  });
  router.get("/docs/assets/redoc.standalone.js", async (ctx) => {
    await bundle.send(ctx, "application/javascript", "public, max-age=86400");
  });
  return router;
}

/** Redoc's options: https://redocly.com/docs/redoc/config (the guides are tags, so the menu starts with them). */
const REDOC_OPTIONS = {
  expandResponses: "200,201,202",
  jsonSampleExpandLevel: 2,
  hideDownloadButton: false,
  // Long enumerations (error codes, event names) collapse after this many values.
  maxDisplayedEnumValues: 12,
  // The browser's own scrolling: the custom scrollbars cost time on a large document.
  nativeScrollbars: true,
  pathInMiddlePanel: true,
  sortTagsAlphabetically: false,
  theme: { colors: { primary: { main: "#5b3fd1" } }, sidebar: { width: "280px" } },
};

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Clube API reference</title>
  <link rel="icon" href="data:,">
  <style>body { margin: 0; font-family: system-ui, sans-serif; }</style>
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/redoc.standalone.js"></script>
  <script>
    Redoc.init("/openapi.json", ${JSON.stringify(REDOC_OPTIONS)}, document.getElementById("reference"));
  </script>
</body>
</html>`;
