import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import Router from "@koa/router";
import { rootFile } from "../root.js";

/**
 * `GET /openapi.json` (the generated contract, byte for byte) and `GET /docs`
 * (Swagger UI, served from the swagger-ui-dist package on this server: no CDN,
 * so the reference works offline and inside a client's private network).
 */
const require = createRequire(import.meta.url);
// Only the path: the package's main module evaluates its 3 MB browser bundle
// in this process (tens of MB of heap for nothing).
const swaggerDir: string = require("swagger-ui-dist/absolute-path.js")();
const ASSETS = new Set(["swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "favicon-32x32.png"]);
const OPENAPI_PATH = rootFile("generated/openapi.json");

export async function docsRouter(): Promise<Router> {
  const document = await readFile(OPENAPI_PATH);
  const router = new Router();
  router.get("/openapi.json", (ctx) => {
    ctx.type = "application/json";
    ctx.set("Cache-Control", "public, max-age=300");
    ctx.body = document;
  });
  router.get("/docs", (ctx) => {
    ctx.type = "text/html";
    ctx.body = DOCS_PAGE;
  });
  router.get("/docs/assets/:file", async (ctx) => {
    const file = ctx.params.file;
    if (!ASSETS.has(file)) return; // falls through to the 404 error body
    ctx.type = file.split(".").pop()!;
    ctx.set("Cache-Control", "public, max-age=86400");
    ctx.body = await readFile(join(swaggerDir, file));
  });
  return router;
}

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Clube API reference</title>
  <link rel="icon" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script>
    // "Try it out" calls this server: the document's {base_url} default is only an example.
    fetch("/openapi.json").then((response) => response.json()).then((spec) => {
      spec.servers = [{ url: location.origin, description: "This server" }, ...(spec.servers || [])];
      window.ui = SwaggerUIBundle({
        spec,
        dom_id: "#reference",
        deepLinking: true,
        presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
        layout: "StandaloneLayout",
        validatorUrl: null
      });
    });
  </script>
</body>
</html>`;
