// Import boundaries of the server (docs/architecture.md, "Boundaries"). Run: npm run lint:boundaries
const USECASES = "^server/src/usecases/";
// A domain's public face, and the non-domain helpers every folder may import directly.
const PUBLIC_FACE = [`${USECASES}[^/]+/index\\.ts$`, `${USECASES}shared/`];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "domain-via-index",
      severity: "error",
      comment: "Server code outside server/src/usecases/ imports a domain only through its index.ts (usecases/shared/ is imported directly).",
      from: { path: "^server/", pathNot: USECASES },
      to: { path: USECASES, pathNot: PUBLIC_FACE },
    },
    {
      name: "domain-to-domain-via-index",
      severity: "error",
      comment: "A domain imports another domain only through that domain's index.ts; siblings inside one domain import each other directly.",
      from: { path: `${USECASES}([^/]+)/` },
      to: { path: USECASES, pathNot: [`${USECASES}$1/`, ...PUBLIC_FACE] },
    },
    {
      name: "evaluation-imports-no-domain",
      severity: "error",
      comment: "The evaluation kernel (usecases/evaluation/) imports no other domain, only usecases/shared/.",
      from: { path: `${USECASES}evaluation/` },
      to: { path: USECASES, pathNot: [`${USECASES}evaluation/`, `${USECASES}shared/`] },
    },
    {
      name: "engine-is-pure",
      severity: "error",
      comment: "server/src/engine/ is the pure domain: it imports nothing from usecases, db, http or handlers.",
      from: { path: "^server/src/engine/" },
      to: { path: "^server/src/(usecases|db|http|handlers)/" },
    },
    {
      name: "db-imports-no-usecase",
      severity: "error",
      comment: "The data layer (server/src/db/) imports no use case.",
      from: { path: "^server/src/db/" },
      to: { path: USECASES },
    },
    {
      name: "no-domain-cycles",
      severity: "error",
      comment:
        "No cycle between domain folders (a domain that needs another's verb and is needed back by it is one domain, or the shared part belongs in evaluation/ or shared/).",
      scope: "folder",
      from: { path: `${USECASES}[^/]+$` },
      to: { path: `${USECASES}[^/]+$`, circular: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: "^server/",
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    // The NodeNext sources import "./x.js" for ./x.ts.
    enhancedResolveOptions: { extensions: [".ts", ".tsx", ".js", ".mjs", ".json"], conditionNames: ["clube-source", "import", "node", "default"] },
    cache: false,
  },
};
