// Compiles Assay into one executable, dist/assay. The worker entries (extraction, output computation) are extra
// entrypoints: without them a compiled binary silently never loads its workers. The web console is built first
// (dist/console) and embedded as files with --asset; src/modules/console finds it as `console/` beside the bundle.
// --splitting puts what is loaded on first use (renderers, parsers, exceljs) in chunks of their own, so a start neither
// reads nor keeps their code: 3 MB less idle memory and an 8 MB smaller executable (test/e2e/binary.test.ts loads them).
//
// Two more flags are for a start (docs/performance.md has the figures):
// - --compile-jit-policy: the executable starts with JavaScriptCore's tier-up thresholds ×START_JIT_POLICY, so code
//   that runs only while starting (table and route definitions, schema compilation) stays in the interpreter instead
//   of becoming machine code kept for good; src/lib/jit.ts restores the normal policy at the first real work. Worker
//   threads start with the normal policy (measured: their hot code ran at full speed under this flag).
// - --bytecode-order: profile-guided layout. The first build is started once as a server restarts (an existing data
//   folder, a first /v1/health, SIGTERM) with BUN_BYTECODE_ORDER_OUT, which records the functions a start uses; the
//   final build places their bytecode together, so a start reads and keeps less of the executable.
import { existsSync, rmSync } from "node:fs";
import path from "node:path";
import { freePort } from "../src/lib/ports";
import { tempDir } from "../src/lib/temp-dir";
import { buildConsole } from "./build-console";

const START_JIT_POLICY = 1000;
const root = path.resolve(import.meta.dir, "..");
const outfile = path.join(root, "dist/assay");
const profile = path.join(root, "dist/assay.order");

const built = await buildConsole();
console.log(
  `built dist/console: ${built.files} files, ${(built.bytes / 1024).toFixed(1)} KB, ${(built.gzipBytes / 1024).toFixed(1)} KB gzipped (budget 300 KB)`,
);
const entrypoints = ["src/main.ts", "src/extract/worker.ts", "src/engine/compute-worker.ts"].filter((p) => existsSync(path.join(root, p)));

function compile(order: string | null) {
  const args = [
    "build",
    "--compile",
    "--minify",
    "--bytecode",
    "--splitting",
    "--format=esm",
    "--sourcemap=none",
    `--compile-jit-policy=${START_JIT_POLICY}`,
    ...(order ? [`--bytecode-order=${order}`] : []),
    ...entrypoints,
    "--asset=dist/console",
    "--outfile",
    outfile,
  ];
  const proc = Bun.spawnSync([process.execPath, ...args], { cwd: root, stdout: "inherit", stderr: "inherit" });
  if (proc.exitCode !== 0) process.exit(proc.exitCode ?? 1);
}

/** Starts the fresh executable as a restart (its own data folder, none of this shell's ASSAY_* settings) and records a profile. */
async function recordStart() {
  const dir = tempDir("assay-build-profile-");
  const dataDir = path.join(dir, "data");
  const env = { PATH: process.env.PATH ?? "", HOME: dir, ASSAY_LOG_LEVEL: "warn" };
  const admin = ["user", "create", "--email", "build@example.com", "--password", "build-password", "--role", "admin", "--data-dir", dataDir];
  const created = Bun.spawnSync([outfile, ...admin], { cwd: dir, env, stdout: "pipe", stderr: "pipe" });
  if (created.exitCode !== 0) throw new Error(`recording a start: user create failed: ${created.stderr}`);
  rmSync(profile, { force: true });
  const port = freePort();
  const server = Bun.spawn([outfile, "serve", "--port", String(port), "--data-dir", dataDir], {
    cwd: dir,
    env: { ...env, BUN_BYTECODE_ORDER_OUT: profile },
    stdout: "ignore",
    stderr: "pipe",
  });
  try {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/v1/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline || server.exitCode !== null)
        throw new Error(`recording a start: no answer from /v1/health: ${await new Response(server.stderr).text()}`);
      await Bun.sleep(20);
    }
  } finally {
    server.kill("SIGTERM");
    await server.exited;
  }
  // The profile is written when the process exits.
  if (!existsSync(profile)) throw new Error("recording a start: the executable wrote no bytecode profile");
}

compile(null);
await recordStart();
compile(profile);
console.log(`built dist/assay from ${entrypoints.join(", ")} with the console embedded, laid out by a recorded start`);
