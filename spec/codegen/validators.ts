// Step 4 of `npm run generate`: generated/validators.js + validators.d.ts.
// Ajv standalone code, so the server loads precompiled functions instead of
// compiling hundreds of schemas at start-up, and needs no schema compiler at run time.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Ajv2020, type Options } from "ajv/dist/2020.js";
import standaloneCodeModule from "ajv/dist/standalone/index.js";
import addFormatsModule from "ajv-formats";
import { fullFormats } from "ajv-formats/dist/formats.js";
import { transformSync } from "esbuild";
import ts from "typescript";
import { GENERATED_HEADER } from "./banner.js";
import { planValidators, type OperationPlan, type ValidatorPlan } from "./validator-plan.js";
import type { OpenApiDocument } from "./document.js";

// These CommonJS modules set `module.exports.default` to themselves: `.default` is the
// function both for Node's loader and for TypeScript under NodeNext (TOOLCHAIN gotcha 7).
const standaloneCode = standaloneCodeModule.default;
const addFormats = addFormatsModule.default;

/**
 * Schemas that also get a validator reporting every error (Ajv `allErrors`):
 * documents an operator writes as a whole, where one round trip per mistake
 * would be a chore. Used only once the fast validator has failed, to list the
 * failures; kept to this list because an all-errors copy of every schema
 * would double the file.
 */
const FULL_REPORT_SCHEMAS = ["ClubConfig"];

const FORMAT_ERROR_SOURCE = fileURLToPath(new URL("./runtime/format-ajv-error.ts", import.meta.url));

export interface GeneratedValidators {
  js: string;
  dts: string;
}

export function generateValidators(doc: OpenApiDocument): GeneratedValidators {
  const plan = planValidators(doc);
  const documentCode = compileModule(createAjv(plan, false), plan.documentExports, [plan.dispatchedDocument]);
  // Path, query and header values arrive as strings: this instance coerces them to the
  // declared types ("array" also wraps a single repeated query value) — gotcha 6.
  const parameterCode = compileModule(createAjv(plan, "array"), plan.parameterExports, [plan.document, ...plan.parameterSchemas]);
  // A document without one of them (a test fixture) simply has no twin for it.
  const reported = FULL_REPORT_SCHEMAS.filter((name) => plan.schemaExports[name] !== undefined);
  const reportExports = Object.fromEntries(reported.map((name) => [plan.schemaExports[name], plan.documentExports[plan.schemaExports[name]]]));
  const reportCode = compileModule(createAjv(plan, false, true), reportExports, [plan.document]);
  const helper = readFileSync(FORMAT_ERROR_SOURCE, "utf8");
  return {
    js: validatorsJs(plan, documentCode, parameterCode, reportCode, reported, transformSync(helper, { loader: "ts", format: "esm" }).code),
    dts: validatorsDts(plan, declarationOf(helper)),
  };
}

function createAjv(plan: ValidatorPlan, coerceTypes: Options["coerceTypes"], allErrors = false): Ajv2020 {
  const ajv = new Ajv2020({
    // `lines`: one statement per line, so a contract change shows as a readable diff of the committed file.
    code: { source: true, lines: true },
    useDefaults: true,
    coerceTypes,
    discriminator: true,
    allErrors,
    // Each $ref becomes a call to the referenced validator instead of a copy of it: inlining
    // repeated shared models (colours, names, effects) into every user multiplies the file size.
    inlineRefs: false,
    // Constrained scalars come out as {allOf:[$ref], minLength} without `type` (gotcha 2).
    strictTypes: false,
    keywords: plan.keywords,
  });
  const unknown = plan.formats.filter((f) => !(f in fullFormats));
  if (unknown.length > 0) throw new Error(`No validator for format(s) ${unknown.join(", ")}: add one in spec/codegen/validators.ts`);
  addFormats(ajv, plan.formats as (keyof typeof fullFormats)[]);
  return ajv;
}

/** Standalone CommonJS code for the given exports, wrapped in a function scope so two Ajv instances' identifiers never clash. */
function compileModule(ajv: Ajv2020, exports: Record<string, string>, schemas: object[]): string {
  for (const schema of schemas) ajv.addSchema(schema);
  // ES modules are strict already; Ajv's leading "use strict" would be a stray expression inside the function.
  const code = standaloneCode(ajv, exports).replace(/^"use strict";/, "");
  return `(() => {\nconst exports = {};${code}\nreturn exports;\n})()`;
}

function validatorsJs(plan: ValidatorPlan, documentCode: string, parameterCode: string, reportCode: string, reported: string[], helperJs: string): string {
  const schemaEntries = Object.entries(plan.schemaExports).map(([name, exp]) => `  ${JSON.stringify(name)}: documentModule.${exp},`);
  const operationEntries = plan.operations.map((op) => `  ${op.operationId}: ${operationObjectJs(op)},`);
  return [
    GENERATED_HEADER.trimEnd(),
    "// Ajv standalone validators (useDefaults: they fill defaults into the value they check).",
    // Ajv's standalone output calls require() for its runtime helpers even in ESM (gotcha 5).
    'import { createRequire } from "node:module";',
    "const require = createRequire(import.meta.url);",
    "",
    `const documentModule = ${documentCode};`,
    "",
    `const parameterModule = ${parameterCode};`,
    "",
    `const reportModule = ${reportCode};`,
    "",
    "export const schemaValidators = {",
    ...schemaEntries,
    "};",
    "",
    "export const operationValidators = {",
    ...operationEntries,
    "};",
    "",
    "// Each schema's fast validator → its all-errors twin (FULL_REPORT_SCHEMAS in spec/codegen/validators.ts).",
    "export const fullReportValidators = new Map([",
    ...reported.map((name) => `  [documentModule.${plan.schemaExports[name]}, reportModule.${plan.schemaExports[name]}],`),
    "]);",
    "",
    "// formatAjvError: from spec/codegen/runtime/format-ajv-error.ts",
    helperJs.trimEnd(),
    "",
  ].join("\n");
}

function operationObjectJs(op: OperationPlan): string {
  const parts: string[] = [];
  if (op.body) parts.push(`body: documentModule.${op.body}`);
  for (const [part, exp] of Object.entries(op.params)) parts.push(`${part}: parameterModule.${exp}`);
  const responses = Object.entries(op.responses).map(([status, exp]) => `${JSON.stringify(status)}: documentModule.${exp}`);
  parts.push(`responses: { ${responses.join(", ")} }`);
  return `{ ${parts.join(", ")} }`;
}

function validatorsDts(plan: ValidatorPlan, helperDts: string): string {
  const operationTypes = plan.operations.map((op) => {
    const present = [...(op.body ? ["body"] : []), ...Object.keys(op.params)].map((k) => `${k}: ValidateFunction`);
    const responses = Object.keys(op.responses).map((status) => `${JSON.stringify(status)}: ValidateFunction`);
    return `  readonly ${op.operationId}: OperationValidators & { ${[...present, `responses: { ${responses.join("; ")} }`].join("; ")} };`;
  });
  return [
    GENERATED_HEADER.trimEnd(),
    'import type { ValidateFunction } from "ajv";',
    'import type { components } from "./types.js";',
    "",
    'export type SchemaName = keyof components["schemas"];',
    "/** One validator per components.schemas entry; it fills defaults into the value it checks. */",
    'export declare const schemaValidators: { readonly [Name in SchemaName]: ValidateFunction<components["schemas"][Name]> };',
    "",
    "/** path/query/headers take an object of raw strings keyed by parameter name (headers lower-case); they coerce and fill defaults. */",
    "export interface OperationValidators {",
    "  body?: ValidateFunction;",
    "  path?: ValidateFunction;",
    "  query?: ValidateFunction;",
    "  headers?: ValidateFunction;",
    "  /** Keyed by status code; validates the JSON body of that response. */",
    "  responses: Readonly<Record<string, ValidateFunction>>;",
    "}",
    "export declare const operationValidators: {",
    ...operationTypes,
    "};",
    "",
    "/** A validator of `schemaValidators`/`operationValidators` → the same check reporting every error (Ajv allErrors), for the few documents that have one. */",
    "export declare const fullReportValidators: ReadonlyMap<ValidateFunction, ValidateFunction>;",
    "",
    helperDts.trimEnd(),
    "",
  ].join("\n");
}

/** The helper's declarations, derived from its source so the .d.ts cannot drift from the code. */
function declarationOf(source: string): string {
  const result = ts.transpileDeclaration(source, { compilerOptions: { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022 } });
  const errors = result.diagnostics ?? [];
  if (errors.length > 0) throw new Error(`format-ajv-error.ts: ${errors.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n")).join("; ")}`);
  return result.outputText;
}
