// What ships for deployment and cannot run here (no Docker engine, no systemd as PID 1) is checked statically: the
// Dockerfile's final stage runs nothing and uses a numeric non-root user; the systemd unit passes systemd-analyze.
import { expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { tempDir } from "./helpers";

const root = path.resolve(import.meta.dir, "..");

test("the Dockerfile's final stage has no RUN step and runs as a numeric non-root user", () => {
  const lines = readFileSync(path.join(root, "Dockerfile"), "utf8")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const finalStage = lines.slice(lines.findLastIndex((l) => /^FROM\s/i.test(l)));
  expect(finalStage.filter((l) => /^RUN\s/i.test(l))).toEqual([]);
  const user = finalStage.find((l) => /^USER\s/i.test(l));
  const [uid, gid] = (user ?? "").split(/\s+/)[1]?.split(":") ?? [];
  expect(uid).toMatch(/^[1-9]\d*$/);
  expect(gid ?? uid).toMatch(/^[1-9]\d*$/);
  // The executable and the data folder come from the build stage; the data folder belongs to that user.
  expect(finalStage.some((l) => /^COPY --from=build \S*dist\/assay /.test(l))).toBe(true);
  expect(finalStage.some((l) => l.startsWith(`COPY --from=build --chown=${uid}:${gid ?? uid}`) && l.endsWith(" /data"))).toBe(true);
});

// systemd-analyze comes with systemd; CI installs it (and fails here without it), elsewhere its absence is a skip.
test.skipIf(!existsSync("/usr/bin/systemd-analyze") && !process.env.ASSAY_CI)(
  "deploy/assay.service passes systemd-analyze verify without a warning",
  () => {
    const dir = tempDir("assay-unit-");
    // verify checks that ExecStart's program exists: point it at one that does.
    const unit = readFileSync(path.join(root, "deploy/assay.service"), "utf8").replace("ExecStart=/usr/local/bin/assay", "ExecStart=/bin/true");
    expect(unit).toContain("ExecStart=/bin/true serve");
    const file = path.join(dir, "assay.service");
    writeFileSync(file, unit);
    const r = Bun.spawnSync(["systemd-analyze", "verify", file], { stdout: "pipe", stderr: "pipe" });
    expect(`${r.stdout}${r.stderr}`.trim()).toBe("");
    expect(r.exitCode).toBe(0);
  },
);
