// Step 1 of `npm run generate`: TypeSpec → OpenAPI 3.1 document.
// Runs the compiler in-process (no child `tsp`) so diagnostics come back as
// data, and emits into a temporary directory: generated/ is only written once
// every later step has succeeded, never left half-updated.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { compile, formatDiagnostic, NodeHost, resolveCompilerOptions } from "@typespec/compiler";
import type { Diagnostic } from "@typespec/compiler";
import type { OpenApiDocument } from "./document.js";

export interface CompileOptions {
  /** The .tsp entry file (spec/main.tsp, or a scratch entry while parts are missing). */
  entry: string;
  /** tspconfig.yaml: emitter, OpenAPI version, output file name, warn-as-error. */
  config: string;
}

/** Compiles the contract and returns the emitted document, or throws with every diagnostic. */
export async function compileSpec(options: CompileOptions): Promise<OpenApiDocument> {
  const entry = path.resolve(options.entry);
  const outputDir = mkdtempSync(path.join(os.tmpdir(), "clube-tsp-"));
  try {
    const [compilerOptions, configDiagnostics] = await resolveCompilerOptions(NodeHost, {
      entrypoint: entry,
      configPath: path.resolve(options.config),
      cwd: process.cwd(),
      overrides: { outputDir },
    });
    failOn(configDiagnostics);
    const program = await compile(NodeHost, entry, compilerOptions);
    // warn-as-error in tspconfig.yaml turns warnings into errors; either way any diagnostic stops the run.
    failOn(program.diagnostics);
    return JSON.parse(readFileSync(path.join(outputDir, "openapi.json"), "utf8")) as OpenApiDocument;
  } finally {
    rmSync(outputDir, { recursive: true, force: true });
  }
}

function failOn(diagnostics: readonly Diagnostic[]): void {
  if (diagnostics.length === 0) return;
  const text = diagnostics.map((d) => formatDiagnostic(d, { pretty: false })).join("\n");
  throw new Error(`TypeSpec compilation failed with ${diagnostics.length} diagnostic(s):\n${text}`);
}
