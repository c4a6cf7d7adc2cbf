// The whole tree type-checks under the strict tsconfig: a type error is a failed test, not a surprise at run time.
import { expect, test } from "bun:test";
import path from "node:path";

test("tsc --noEmit passes", () => {
  const root = path.resolve(import.meta.dir, "..");
  const tsc = path.join(root, "node_modules/.bin/tsc");
  const res = Bun.spawnSync([tsc, "--noEmit", "-p", root], { cwd: root, stdout: "pipe", stderr: "pipe" });
  const out = res.stdout.toString() + res.stderr.toString();
  if (res.exitCode !== 0) console.error(out);
  expect(res.exitCode).toBe(0);
}, 120_000);
