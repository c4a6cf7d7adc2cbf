// The design's import rules (docs/architecture.md), checked by `npm run check`. Change a rule only together with
// that page.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "A circle makes load order matter and hides which layer owns a thing; type-only imports count too.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "http-knows-no-module",
      comment: "http/ is plumbing every module shares; a module's rules reach it through the context, never by import.",
      severity: "error",
      from: { path: "^src/http/" },
      to: { path: "^src/modules/" },
    },
    {
      name: "jobs-not-to-http",
      comment: "Background work calls services; HTTP plumbing belongs to requests.",
      severity: "error",
      from: { path: "^src/jobs/" },
      to: { path: "^src/http/" },
    },
    {
      name: "engine-stands-alone",
      comment: "The engine returns an evaluation; rendering, API rules and HTTP belong to the run worker and the modules.",
      severity: "error",
      from: { path: "^src/engine/" },
      to: { path: "^src/(render|modules|http)/" },
    },
    {
      name: "extract-stands-alone",
      comment: "Extraction turns bytes into text in a worker; it must not reach the database, the API rules or the engine.",
      severity: "error",
      from: { path: "^src/extract/" },
      to: { path: "^src/(db|modules|engine)/" },
    },
    {
      name: "storage-and-retrieval-below-modules",
      comment: "Storage and retrieval are layers the modules use, so they cannot depend on a module.",
      severity: "error",
      from: { path: "^src/(storage|retrieval)/" },
      to: { path: "^src/modules/" },
    },
    {
      name: "module-index-only-from-app",
      comment: "A module's index.ts is its routes; only app.ts mounts them (services call services, never routes).",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/app\\.ts$" },
      to: { path: "^src/modules/[^/]+/index\\.ts$" },
    },
    {
      name: "console-talks-to-v1-only",
      comment: "The web console uses the public /v1 API like any script, so it imports nothing from the server.",
      severity: "error",
      from: { path: "^console/" },
      to: { path: "^src/" },
    },
    {
      name: "src-not-to-tests",
      comment: "Shipped code never depends on tests, benches or scripts.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench|scripts)/" },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that cannot be resolved fails at run time (in the compiled binary, only there).",
      severity: "error",
      from: {},
      to: { couldNotResolve: true, pathNot: "^bun(:|$)" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "^(node_modules|dist|data)/" },
    // Type-only imports are dependencies too (a type circle is still a circle).
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
