#!/usr/bin/env node
// The `clube` command. It runs the service compiled to plain JavaScript
// (compile.mjs: rebuilt on the first start after a source changed), so there
// is no build step between a checkout and a running server.
import { compiledCli } from "./compile.mjs";

await import(await compiledCli());
