// The API fuzzer for longer: many more cases than CI runs, with a random seed (printed, so a failure can be replayed
// with FUZZ_SEED=<seed> bun test test/http/fuzz.test.ts). Run by hand: `bun run bench/fuzz.ts [--runs N] [--seed S]`.
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { runs: { type: "string", default: "20000" }, seed: { type: "string" } } });
const seed = values.seed ?? String(Math.floor(Math.random() * 2 ** 31));
console.log(`fuzzing with FUZZ_SEED=${seed} FUZZ_RUNS=${values.runs}`);
const child = Bun.spawn([process.execPath, "test", path.join(import.meta.dir, "../test/http/fuzz.test.ts"), "--timeout", "3600000"], {
  env: { ...process.env, FUZZ_SEED: seed, FUZZ_RUNS: values.runs },
  stdout: "inherit",
  stderr: "inherit",
});
process.exit(await child.exited);
