// Authenticated GET /v1/products on Assay vs a raw Bun.serve JSON endpoint, measured in the same run.
// Each server runs in its own process; this process generates the load. Target: ratio ≥ 0.60 (naive: ~0.40).
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { load } from "./load";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const root = path.resolve(import.meta.dir, "..");

async function spawnAndWait(cmd: string[], env: Record<string, string>, ready: RegExp) {
  const proc = Bun.spawn(cmd, { cwd: root, env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let out = "";
  while (!ready.test(out)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${cmd.join(" ")} exited: ${out}`);
    out += new TextDecoder().decode(value);
  }
  return { proc, match: ready.exec(out)! };
}

const raw = await spawnAndWait([process.execPath, "bench/raw-server.ts"], {}, /PORT (\d+)/);
const rawUrl = `http://127.0.0.1:${raw.match[1]}/v1/products`;

const port = 20000 + Math.floor(Math.random() * 20000);
const dataDir = mkdtempSync(path.join(os.tmpdir(), "assay-bench-"));
const assay = await spawnAndWait(
  [process.execPath, "src/main.ts", "serve", "--port", String(port), "--data-dir", dataDir],
  { ASSAY_ADMIN_EMAIL: "bench@example.com", ASSAY_ADMIN_PASSWORD: "bench-password", ASSAY_DEFAULT_RPM: "1000000000" },
  /listening/,
);
const base = `http://127.0.0.1:${port}/v1`;
const session = (await (
  await fetch(`${base}/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "bench@example.com", password: "bench-password" }),
  })
).json()) as { token: string };
const key = (await (
  await fetch(`${base}/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${session.token}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench" }),
  })
).json()) as { token: string };
const headers = { authorization: `Bearer ${key.token}` };

try {
  // Warm both (JIT, caches), then measure each twice, alternating, and keep the better run of each.
  await load(rawUrl, { seconds: 1, concurrency: CONCURRENCY });
  await load(`${base}/products`, { seconds: 1, concurrency: CONCURRENCY, headers });
  const rawRuns = [];
  const assayRuns = [];
  for (let i = 0; i < 2; i++) {
    rawRuns.push(await load(rawUrl, { seconds: SECONDS, concurrency: CONCURRENCY }));
    assayRuns.push(await load(`${base}/products`, { seconds: SECONDS, concurrency: CONCURRENCY, headers }));
  }
  const best = (runs: Awaited<ReturnType<typeof load>>[]) => runs.reduce((a, b) => (b.rps > a.rps ? b : a));
  const r = best(rawRuns);
  const a = best(assayRuns);
  if (a.errors) console.warn(`warning: ${a.errors} non-2xx answers from Assay`);
  const fmt = (x: typeof r) => `${x.rps.toFixed(0).padStart(7)} req/s   p50 ${x.p50.toFixed(2)} ms   p99 ${x.p99.toFixed(2)} ms`;
  console.log(`concurrency ${CONCURRENCY}, ${SECONDS}s per run, best of 2`);
  console.log(`raw Bun.serve JSON          ${fmt(r)}`);
  console.log(`Assay GET /v1/products+key  ${fmt(a)}`);
  console.log(`ratio req/s ${(a.rps / r.rps).toFixed(2)} (target ≥ 0.60)   ratio p99 ${(a.p99 / r.p99).toFixed(2)}`);
} finally {
  raw.proc.kill();
  assay.proc.kill();
}
