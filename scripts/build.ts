// Compiles Assay into one executable, dist/assay. The extraction worker is an extra entrypoint: without it a
// compiled binary silently never loads the worker (STACK-NOTES.md).
import { existsSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dir, "..");
const entrypoints = ["src/main.ts", "src/extract/worker.ts"].filter((p) => existsSync(path.join(root, p)));
const args = ["build", "--compile", "--minify", "--bytecode", "--format=esm", "--sourcemap=none", ...entrypoints, "--outfile", "dist/assay"];
const proc = Bun.spawnSync([process.execPath, ...args], { cwd: root, stdout: "inherit", stderr: "inherit" });
if (proc.exitCode !== 0) process.exit(proc.exitCode ?? 1);
console.log(`built dist/assay from ${entrypoints.join(", ")}`);
