// Compiles Assay into one executable, dist/assay. The worker entries (extraction, output computation) are extra
// entrypoints: without them a compiled binary silently never loads its workers. The web console is built first
// (dist/console) and embedded as files with --asset; src/modules/console finds it as `console/` beside the bundle.
// --splitting puts what is loaded on first use (renderers, parsers, exceljs) in chunks of their own, so a start neither
// reads nor keeps their code: 3 MB less idle memory and an 8 MB smaller executable (test/e2e/binary.test.ts loads them).
import { existsSync } from "node:fs";
import path from "node:path";
import { buildConsole } from "./build-console";

const root = path.resolve(import.meta.dir, "..");
const built = await buildConsole();
console.log(
  `built dist/console: ${built.files} files, ${(built.bytes / 1024).toFixed(1)} KB, ${(built.gzipBytes / 1024).toFixed(1)} KB gzipped (budget 300 KB)`,
);
const entrypoints = ["src/main.ts", "src/extract/worker.ts", "src/engine/compute-worker.ts"].filter((p) => existsSync(path.join(root, p)));
const args = [
  "build",
  "--compile",
  "--minify",
  "--bytecode",
  "--splitting",
  "--format=esm",
  "--sourcemap=none",
  ...entrypoints,
  "--asset=dist/console",
  "--outfile",
  "dist/assay",
];
const proc = Bun.spawnSync([process.execPath, ...args], { cwd: root, stdout: "inherit", stderr: "inherit" });
if (proc.exitCode !== 0) process.exit(proc.exitCode ?? 1);
console.log(`built dist/assay from ${entrypoints.join(", ")} with the console embedded`);
