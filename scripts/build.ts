// Compiles Assay into one executable, dist/assay. The worker entries (extraction, output computation) are extra
// entrypoints: without them a compiled binary silently never loads its workers.
import { existsSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dir, "..");
const entrypoints = ["src/main.ts", "src/extract/worker.ts", "src/engine/compute-worker.ts"].filter((p) => existsSync(path.join(root, p)));
const args = ["build", "--compile", "--minify", "--bytecode", "--format=esm", "--sourcemap=none", ...entrypoints, "--outfile", "dist/assay"];
const proc = Bun.spawnSync([process.execPath, ...args], { cwd: root, stdout: "inherit", stderr: "inherit" });
if (proc.exitCode !== 0) process.exit(proc.exitCode ?? 1);
console.log(`built dist/assay from ${entrypoints.join(", ")}`);
