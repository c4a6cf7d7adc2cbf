// `bun build --compile` as Assay's executable is built, for scripts/build.ts and for the floors of bench/startup.ts
// (built the same way, so the bench compares like with like). Two flags are for a start (docs/performance.md):
// - --compile-jit-policy: the executable starts with JavaScriptCore's tier-up thresholds ×START_JIT_POLICY, so code
//   that runs only while starting (table and route definitions, schema compilation) stays in the interpreter instead
//   of becoming machine code kept for good; src/lib/jit.ts restores the normal policy at the first real work. Worker
//   threads start with the normal policy (measured: their hot code ran at full speed under this flag).
// - --bytecode-order: profile-guided layout. The first build is started once as a server starts, with
//   BUN_BYTECODE_ORDER_OUT, which records the functions a start uses; the final build places their bytecode together,
//   so a start reads and keeps less of the executable.
import { existsSync, rmSync } from "node:fs";
import { freePort, untilHealthy } from "../src/lib/ports";

const START_JIT_POLICY = 1000;

export interface Compilation {
  /** Entry points and any other flags (--splitting, --asset …), as given to `bun build`. */
  args: string[];
  outfile: string;
  cwd: string;
  /** Where the recorded profile is kept (beside the executable). */
  profile: string;
  /**
   * The command line that starts the first build (it exists by now) as a server on `port`, after any preparing it
   * needs. The server must answer GET /v1/health and exit on SIGTERM.
   */
  start(port: number): string[];
  /** Settings for that start (a clean environment: none of this shell's ASSAY_* settings). */
  env?: Record<string, string>;
}

function build(c: Compilation, order: string | null) {
  const flags = ["build", "--compile", "--minify", "--bytecode", `--compile-jit-policy=${START_JIT_POLICY}`];
  if (order) flags.push(`--bytecode-order=${order}`);
  const proc = Bun.spawnSync([process.execPath, ...flags, ...c.args, "--outfile", c.outfile], { cwd: c.cwd, stdout: "pipe", stderr: "pipe" });
  if (proc.exitCode !== 0) throw new Error(`bun build ${c.outfile}: ${proc.stderr}`);
}

/** Starts the first build as a server, waits for its first healthy answer, stops it with SIGTERM: the profile is written on exit. */
async function recordStart(c: Compilation) {
  rmSync(c.profile, { force: true });
  const port = freePort();
  const env = { PATH: process.env.PATH ?? "", ...c.env, BUN_BYTECODE_ORDER_OUT: c.profile };
  const server = Bun.spawn(c.start(port), { cwd: c.cwd, env, stdout: "ignore", stderr: "pipe" });
  try {
    if (!(await untilHealthy(port, server, 30_000))) {
      throw new Error(`recording a start of ${c.outfile}: no answer from /v1/health: ${await new Response(server.stderr).text()}`);
    }
  } finally {
    server.kill("SIGTERM");
    await server.exited;
  }
  if (!existsSync(c.profile)) throw new Error(`recording a start of ${c.outfile}: the executable wrote no bytecode profile`);
}

/** Compiles, records a start of what was compiled, and compiles again laid out by it. */
export async function compileLaidOut(c: Compilation): Promise<void> {
  build(c, null);
  await recordStart(c);
  build(c, c.profile);
}
