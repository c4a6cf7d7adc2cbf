// `npm run check`: the type checker, Biome, dependency-cruiser and knip, each run even when an earlier one failed, so
// one run shows every finding; exits 1 when any failed.
import process from "node:process";

const steps: [string, string[]][] = [
  ["typecheck (tsc)", ["npx", "tsc", "--noEmit"]],
  // The console is browser code (DOM types, Preact's JSX): its own tsconfig.
  ["typecheck console (tsc)", ["npx", "tsc", "--noEmit", "-p", "console"]],
  ["lint + format (Biome)", ["npx", "biome", "check", "--error-on-warnings", "."]],
  ["import rules (dependency-cruiser)", ["npx", "depcruise", "src", "test", "bench", "scripts", "console", "--output-type", "err-long"]],
  ["dead code (knip)", ["npx", "knip", "--no-progress"]],
];

const results: [string, boolean, number][] = [];
for (const [name, cmd] of steps) {
  console.log(`\n== ${name}`);
  const started = performance.now();
  const proc = Bun.spawn(cmd, { stdout: "inherit", stderr: "inherit" });
  results.push([name, (await proc.exited) === 0, performance.now() - started]);
}
console.log("");
for (const [name, ok, ms] of results) console.log(`${ok ? "ok  " : "FAIL"}  ${name} (${(ms / 1000).toFixed(1)} s)`);
process.exit(results.every(([, ok]) => ok) ? 0 : 1);
