// Step 1 of `npm run generate`: TypeSpec → OpenAPI 3.1 JSON.
// Runs the compiler in-process (no child `tsp`) so diagnostics come back as
// data and a failure stops the generator before anything else is rewritten.
import path from "node:path";
import { compile, formatDiagnostic, NodeHost, resolveCompilerOptions } from "@typespec/compiler";
import type { Diagnostic } from "@typespec/compiler";

export interface CompileOptions {
  /** The .tsp entry file (spec/main.tsp, or a scratch entry while parts are missing). */
  entry: string;
  /** tspconfig.yaml: emitter, OpenAPI version, warn-as-error. */
  config: string;
  /** Where the emitter writes openapi.json. */
  outputDir: string;
}

/** Compiles the contract; returns the path of the emitted openapi.json or throws with every diagnostic. */
export async function compileSpec(options: CompileOptions): Promise<string> {
  const entry = path.resolve(options.entry);
  const [compilerOptions, configDiagnostics] = await resolveCompilerOptions(NodeHost, {
    entrypoint: entry,
    configPath: path.resolve(options.config),
    cwd: process.cwd(),
    // `output-dir` is overridable so a scratch entry can compile next to the real output without touching it.
    overrides: { outputDir: path.resolve(options.outputDir) },
  });
  failOn(configDiagnostics);
  const program = await compile(NodeHost, entry, compilerOptions);
  // warn-as-error in tspconfig.yaml turns warnings into errors; either way any diagnostic stops the run.
  failOn(program.diagnostics);
  return path.join(path.resolve(options.outputDir), "openapi.json");
}

function failOn(diagnostics: readonly Diagnostic[]): void {
  if (diagnostics.length === 0) return;
  const text = diagnostics.map((d) => formatDiagnostic(d, { pretty: false })).join("\n");
  throw new Error(`TypeSpec compilation failed with ${diagnostics.length} diagnostic(s):\n${text}`);
}
