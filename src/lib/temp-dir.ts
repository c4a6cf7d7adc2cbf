// A scratch folder for tests and benchmarks, removed at the end: a suite run starts dozens of servers (and copies a
// 150 MB executable), and left behind they filled a developer's /tmp by gigabytes a day. A script removes them when
// its process exits; `bun test` fires no exit event, so test/preload.ts removes them after the last test.
// ASSAY_KEEP_TEMP=1 keeps them, to look at a failed run's data.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const made: string[] = [];

export function tempDir(prefix = "assay-test-"): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  if (process.env.ASSAY_KEEP_TEMP !== "1") made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {} // a child process still writing there: what is left is the OS's to clean
  }
}

process.on("exit", removeTempDirs);
