#!/usr/bin/env node
// The `clube` command. The service runs from TypeScript sources through tsx's
// loader, so there is no build step between a checkout and a running server.
import { register } from "tsx/esm/api";
register();
await import("../src/cli.ts");
