/**
 * The repository root, for the files the service reads at run time
 * (package.json, generated/openapi.json, widget/dist, the demo config).
 * This module sits two levels below the root (server/src/), and so does the
 * compiled bundle that inlines it (server/dist/, see server/bin/compile.mjs):
 * paths taken from here are right both from the sources and from the bundle,
 * whereas `new URL("../../..", import.meta.url)` in a deeper module is not.
 */
export const ROOT = new URL("../../", import.meta.url);

/** A file of the repository, by its path from the root. */
export const rootFile = (path: string): URL => new URL(path, ROOT);
