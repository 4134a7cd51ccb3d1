#!/usr/bin/env node
// Fails when a use case holds SQL text or picks a database dialect: both belong in server/src/db/
// (docs/architecture.md, "Boundaries"). Runs ESLint with one local rule over server/src/usecases/.
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";

const SQL_START = [
  /^\s*select\b[\s\S]*\bfrom\b/i,
  /^\s*insert\s+(or\s+\w+\s+)?into\b/i,
  /^\s*update\s+["\w.]+\s+set\b/i,
  /^\s*delete\s+from\b/i,
  /^\s*with\s+(recursive\s+)?\w+\s+as\s*\(/i,
];
// Calls that hand SQL text to the driver or the ORM.
const SQL_CALLS = new Set(["execute", "raw"]);
const QB_METHODS = new Set(["all", "get", "run"]);

const DIALECT_NAMES = new Set(["postgresql", "sqlite"]);
const isDialectName = (node) => node.type === "Literal" && DIALECT_NAMES.has(node.value);
// `x.dialect` is reported on its own; a comparison of it is not reported twice.
const isDialectMember = (node) => node.type === "MemberExpression" && !node.computed && node.property.name === "dialect";

const noSqlInUsecases = {
  meta: { type: "problem", schema: [] },
  create(context) {
    const sqlText = (node, text) => {
      if (SQL_START.some((re) => re.test(text)))
        context.report({ node, message: `SQL text in a use case: "${text.trim().slice(0, 40)}…" (move it to server/src/db/)` });
    };
    return {
      Literal(node) {
        if (typeof node.value === "string") sqlText(node, node.value);
      },
      TemplateLiteral(node) {
        sqlText(node, node.quasis.map((q) => q.value.cooked ?? q.value.raw).join("?"));
      },
      MemberExpression(node) {
        if (!node.computed && node.property.name === "dialect")
          context.report({ node, message: "a dialect test in a use case (choose the dialect in server/src/db/)" });
      },
      "ObjectPattern > Property"(node) {
        if (!node.computed && node.key.type === "Identifier" && node.key.name === "dialect")
          context.report({ node, message: "a dialect read in a use case (choose the dialect in server/src/db/)" });
      },
      // `dialect === "sqlite"`, `case "postgresql":` and the like, whatever the variable is called.
      BinaryExpression(node) {
        if (["===", "!==", "==", "!="].includes(node.operator) && [node.left, node.right].some(isDialectName) && ![node.left, node.right].some(isDialectMember))
          context.report({ node, message: "a dialect test in a use case (choose the dialect in server/src/db/)" });
      },
      SwitchCase(node) {
        if (node.test && isDialectName(node.test)) context.report({ node, message: "a dialect test in a use case (choose the dialect in server/src/db/)" });
      },
      // `{ postgresql: …, sqlite: … }`: one statement per dialect.
      ObjectExpression(node) {
        const keys = new Set(node.properties.map((p) => (p.type === "Property" && !p.computed ? (p.key.name ?? p.key.value) : null)));
        if (keys.has("postgresql") && keys.has("sqlite"))
          context.report({ node, message: "a per-dialect statement in a use case (it belongs in server/src/db/)" });
      },
      CallExpression(node) {
        const callee = node.callee;
        const name = callee.type === "Identifier" ? callee.name : callee.type === "MemberExpression" && !callee.computed ? callee.property.name : null;
        // A query builder's own `.execute()` / `.execute("run")` runs what the ORM wrote, not SQL text.
        const builderRun =
          name === "execute" && (node.arguments.length === 0 || (node.arguments[0].type === "Literal" && QB_METHODS.has(node.arguments[0].value)));
        if (SQL_CALLS.has(name) && !builderRun) context.report({ node, message: `${name}(…) runs SQL text from a use case (move it to server/src/db/)` });
      },
    };
  },
};

const eslint = new ESLint({
  overrideConfigFile: true,
  overrideConfig: [
    {
      files: ["**/*.ts"],
      languageOptions: { parser: tseslint.parser, ecmaVersion: 2023, sourceType: "module" },
      plugins: { clube: { rules: { "no-sql-in-usecases": noSqlInUsecases } } },
      rules: { "clube/no-sql-in-usecases": "error" },
    },
  ],
});
const results = await eslint.lintFiles(["server/src/usecases/**/*.ts"]);
const formatter = await eslint.loadFormatter("stylish");
const output = await formatter.format(results);
if (output) console.log(output);
const count = results.reduce((sum, r) => sum + r.errorCount, 0);
console.log(
  count === 0 ? "usecases: no SQL text, no dialect test" : `usecases: ${count} SQL/dialect finding(s) in ${results.filter((r) => r.errorCount).length} file(s)`,
);
process.exitCode = count === 0 ? 0 : 1;
