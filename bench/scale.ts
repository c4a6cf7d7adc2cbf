// Processes on one PostgreSQL database: what a second Assay process adds on this machine. Three configurations, each
// on a fresh database and data folder: 1 process on SQLite (the reference), 1 and 2 processes on one PostgreSQL
// database (a throwaway cluster from scripts/pg-cluster.sh, stopped at the end, also on error).
//   bun run bench/scale.ts [--seconds 10] [--runs 300] [--connections 64] [--workers N] [--no-build]
// 1. Authenticated GET /v1/products with wrk: one wrk process per Assay process (-t1, the connections split evenly),
//    all started together, each straight at its own process (no proxy); req/s summed, p50/p99 from the wrk latency
//    histograms merged. A 2 s warm-up first.
// 2. Runs: --runs runs created over HTTP on a small text document, evaluated by the built-in local evaluator (no model
//    server), the creating requests spread round robin over the processes; timed from the first creation until every
//    run is `succeeded` (the latest finished_at); p50/p99 creation -> succeeded from the server's timestamps.
// Every process gets the same settings. Their logs go to files, scanned afterwards: warnings, errors and 5xx answers
// are printed, as are wrk's non-2xx answers and socket errors, failed creations and runs that did not succeed.
// Nothing is pinned: on a 2-core machine the servers, PostgreSQL and wrk share both cores.
// Needs wrk (Debian: apt-get install wrk) and PostgreSQL server binaries (Debian: postgresql).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import postgres from "postgres";
import { freePort } from "../src/lib/ports";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    runs: { type: "string", default: "300" },
    connections: { type: "string", default: "64" },
    workers: { type: "string" },
    "no-build": { type: "boolean", default: false },
  },
});
const SECONDS = Number(values.seconds);
const RUNS = Number(values.runs);
const CONNECTIONS = Number(values.connections);
const CREATING = 8; // creating requests in flight, as bench/runs.ts
const WARMUP_RUNS_PER_PROCESS = 10;
const root = path.resolve(import.meta.dir, "..");
const executable = path.join(root, "dist/assay");
const pgScript = path.join(root, "scripts/pg-cluster.sh");

if (!Bun.which("wrk")) {
  console.error("wrk is not installed: apt-get install wrk");
  process.exit(2);
}
if (!values["no-build"]) {
  const built = Bun.spawnSync([process.execPath, "run", "scripts/build.ts"], { cwd: root, stdout: "ignore", stderr: "inherit" });
  if (built.exitCode !== 0) process.exit(1);
} else if (!(await Bun.file(executable).exists())) {
  console.error("dist/assay is missing: run without --no-build (or npm run build) first");
  process.exit(2);
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "assay-scale-bench-"));
/** The load average when the bench started: other work on the machine lowers every figure. */
const loadAtStart = os.loadavg()[0];

// ---- cleanup: servers, the PostgreSQL cluster and the temp folder go whatever happens --------------------------------

const children = new Set<ReturnType<typeof Bun.spawn>>();
/** What `scripts/pg-cluster.sh stop` takes: the cluster's folder when known, else its URL. */
let clusterUrl: string | null = null;
let clusterDir: string | null = null;
let keepLogs = false;
function cleanup() {
  for (const child of children) child.kill("SIGKILL");
  children.clear();
  if (clusterUrl) {
    Bun.spawnSync(["bash", pgScript, "stop", clusterDir ?? clusterUrl], { stdout: "ignore", stderr: "ignore" });
    clusterUrl = null;
  }
  if (!keepLogs) rmSync(tmp, { recursive: true, force: true });
}
process.on("exit", cleanup);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    cleanup();
    process.exit(130);
  });
}

// ---- the machine -----------------------------------------------------------------------------------------------------

const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
const cpuModel = /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1]?.trim() ?? "unknown CPU";
const cores = cpuinfo.split("\n").filter((l) => l.startsWith("processor")).length || os.cpus().length;

/** Busy and total jiffies of the whole machine (/proc/stat). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((s, x) => s + x, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** utime + stime (+ cutime + cstime with `children`) of a process in seconds; 0 when it is gone. */
function processCpu(pid: number, withChildren = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const own = Number(f[11]) + Number(f[12]);
    return (withChildren ? own + Number(f[13]) + Number(f[14]) : own) / 100;
  } catch {
    return 0;
  }
}

/** The PostgreSQL cluster's CPU seconds: the postmaster, its live children, and its children that exited. */
function postgresCpu(postmaster: number | null): number {
  if (postmaster === null) return 0;
  let sum = processCpu(postmaster, true);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === postmaster) sum += processCpu(Number(entry));
    } catch {}
  }
  return sum;
}

// ---- PostgreSQL ------------------------------------------------------------------------------------------------------

const started = Bun.spawnSync(["bash", pgScript, "start"], { stdout: "pipe", stderr: "pipe" });
const adminUrl = started.stdout.toString().trim();
if (started.exitCode !== 0 || !adminUrl) {
  console.error(`PostgreSQL could not be started (Debian: apt-get install postgresql):\n${started.stderr.toString().trim()}`);
  process.exit(2);
}
clusterUrl = adminUrl;
clusterDir = /started in (\S+)/.exec(started.stderr.toString())?.[1] ?? null;
const postmasterPid = (() => {
  try {
    return clusterDir ? Number(readFileSync(path.join(clusterDir, "data/postmaster.pid"), "utf8").split("\n")[0]) : null;
  } catch {
    return null;
  }
})();
const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
const pgVersion = ((await admin`SHOW server_version`) as unknown as { server_version: string }[])[0]?.server_version ?? "?";

async function freshDatabase(name: string): Promise<string> {
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

// ---- the servers -----------------------------------------------------------------------------------------------------

const EMAIL = "bench@example.com";
const ESSAY = "School uniforms reduce bullying. A 2019 study of 40 schools found reports fell by 23 percent.";
const PASSWORD = "bench-password";

interface Server {
  port: number;
  base: string;
  child: ReturnType<typeof Bun.spawn>;
  log: string;
  stderr: string;
}

/** The settings every process of a configuration shares (only the port differs). */
function settings(dataDir: string, databaseUrl: string | null): Record<string, string> {
  return {
    ASSAY_DATA_DIR: dataDir,
    ...(databaseUrl ? { ASSAY_DATABASE_URL: databaseUrl } : {}),
    ASSAY_ADMIN_EMAIL: EMAIL,
    ASSAY_ADMIN_PASSWORD: PASSWORD,
    ASSAY_DEFAULT_RPM: "1000000000",
    ASSAY_INITIAL_CREDITS: "100000000",
    ASSAY_LOG_LEVEL: "info",
    ...(values.workers ? { ASSAY_WORKERS: values.workers } : {}),
  };
}

async function startServer(env: Record<string, string>, tag: string): Promise<Server> {
  const port = freePort();
  const log = path.join(tmp, `${tag}.log`);
  const stderr = path.join(tmp, `${tag}.stderr`);
  // Nothing of the caller's own Assay settings (a model server, a database URL) leaks into the servers.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("ASSAY_")));
  const child = Bun.spawn([executable, "serve", "--port", String(port)], {
    env: { ...inherited, ...env },
    // The log goes to a file as a real server's does (to a file or a collector), and is read afterwards.
    stdout: Bun.file(log),
    stderr: Bun.file(stderr),
  });
  children.add(child);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/v1/health`)).ok) break;
    } catch {}
    if (child.exitCode !== null || i > 1500) {
      throw new Error(`${tag} never became healthy (exit ${child.exitCode}): ${readFileSync(stderr, "utf8").slice(-2000)}`);
    }
    await Bun.sleep(20);
  }
  return { port, base, child, log, stderr };
}

async function stopServers(servers: Server[]) {
  for (const s of servers) s.child.kill("SIGTERM");
  for (const s of servers) {
    const timer = setTimeout(() => s.child.kill("SIGKILL"), 40_000);
    await s.child.exited;
    clearTimeout(timer);
    children.delete(s.child);
  }
}

interface LogFindings {
  warnings: number;
  errors: number;
  status5xx: number;
  samples: string[];
}

/** Warnings, errors and 5xx request lines in the servers' logs, and anything on stderr. */
function scanLogs(servers: Server[]): LogFindings {
  const found: LogFindings = { warnings: 0, errors: 0, status5xx: 0, samples: [] };
  const seen = new Set<string>();
  servers.forEach((s, i) => {
    for (const line of readFileSync(s.log, "utf8").split("\n")) {
      if (!line) continue;
      const level = /^\{"level":"(\w+)"/.exec(line)?.[1];
      const is5xx = /"status":5\d\d[,}]/.test(line);
      if (level === "warn") found.warnings++;
      else if (level === "error" || level === "fatal") found.errors++;
      if (is5xx) found.status5xx++;
      if ((level && level !== "info" && level !== "debug") || is5xx) {
        // One sample per distinct message (ids and times stripped).
        const shape = line.replace(/"(time|request_id|run_id|id|key_id|user_id|workspace_id)":"[^"]*"/g, "").replace(/\d+/g, "N");
        const msg = /"msg":"([^"]*)"/.exec(line)?.[1] ?? shape.slice(0, 80);
        if (!seen.has(msg) && found.samples.length < 8) {
          seen.add(msg);
          found.samples.push(`process ${i + 1}: ${line.slice(0, 600)}`);
        }
      }
    }
    const err = readFileSync(s.stderr, "utf8").trim();
    if (err) found.samples.push(`process ${i + 1} stderr: ${err.slice(0, 600)}`);
  });
  return found;
}

// ---- HTTP helpers ----------------------------------------------------------------------------------------------------

async function call(base: string, method: string, url: string, token: string | null, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

async function must(base: string, method: string, url: string, token: string | null, body?: unknown) {
  const r = await call(base, method, url, token, body);
  if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${r.text}`);
  return r.body;
}

// ---- 1. GET /v1/products with wrk ------------------------------------------------------------------------------------

// done() writes wrk's latency histogram (value in µs : count), so several wrk processes' percentiles can be merged.
const histogramLua = path.join(tmp, "histogram.lua");
writeFileSync(
  histogramLua,
  `done = function(summary, latency, requests)
  local parts = {}
  for i = 1, #latency do
    local v, c = latency(i)
    parts[#parts + 1] = v .. ":" .. c
  end
  io.write("HISTOGRAM " .. table.concat(parts, ",") .. "\\n")
end
`,
);

interface WrkResult {
  rps: number;
  histogram: Map<number, number>;
  non2xx: number;
  socketErrors: number;
  cpu: number;
  raw: string;
}

async function wrk(url: string, token: string, connections: number, seconds: number): Promise<WrkResult> {
  const proc = Bun.spawn(
    ["wrk", "-t1", `-c${connections}`, `-d${seconds}s`, "--latency", "-H", `Authorization: Bearer ${token}`, "-s", histogramLua, url],
    { stdout: "pipe", stderr: "pipe" },
  );
  children.add(proc);
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  children.delete(proc);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  if (!rps) throw new Error(`wrk printed no Requests/sec: ${out}${err}`);
  const histogram = new Map<number, number>();
  for (const pair of /HISTOGRAM (\S*)/.exec(out)?.[1]?.split(",") ?? []) {
    const [v, c] = pair.split(":").map(Number);
    if (c) histogram.set(v, (histogram.get(v) ?? 0) + c);
  }
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const usage = proc.resourceUsage();
  return {
    rps: Number(rps[1]),
    histogram,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    socketErrors: socket ? socket.slice(1).reduce((s, x) => s + Number(x), 0) : 0,
    cpu: usage ? Number(usage.cpuTime.total) / 1e6 : 0,
    raw: out,
  };
}

/** wrk's own percentile (stats_percentile): the first value whose running count reaches round(p% of n + 0.5). */
function percentileMs(histogram: Map<number, number>, p: number): number {
  const sorted = [...histogram.entries()].sort((a, b) => a[0] - b[0]);
  const n = sorted.reduce((s, [, c]) => s + c, 0);
  const rank = Math.round((p / 100) * n + 0.5);
  let total = 0;
  for (const [v, c] of sorted) {
    total += c;
    if (total >= rank) return v / 1000;
  }
  return Number.NaN;
}

interface HttpFigures {
  rps: number;
  perProcess: number[];
  p50: number;
  p99: number;
  non2xx: number;
  socketErrors: number;
  cpu: { assay: number; postgres: number; wrk: number; machine: number };
}

async function measureProducts(servers: Server[], key: string, onPostgres: boolean): Promise<HttpFigures> {
  const perTarget = Math.max(1, Math.round(CONNECTIONS / servers.length));
  const all = (seconds: number) => Promise.all(servers.map((s) => wrk(`${s.base}/v1/products`, key, perTarget, seconds)));
  await all(2); // warm-up: the JIT, the key cache, the pool's connections
  const pg = onPostgres ? postgresCpu(postmasterPid) : 0;
  const assay = servers.map((s) => processCpu(s.child.pid));
  const m0 = machineTicks();
  const results = await all(SECONDS);
  const m1 = machineTicks();
  const histogram = new Map<number, number>();
  for (const r of results) for (const [v, c] of r.histogram) histogram.set(v, (histogram.get(v) ?? 0) + c);
  return {
    rps: results.reduce((s, r) => s + r.rps, 0),
    perProcess: results.map((r) => r.rps),
    p50: percentileMs(histogram, 50),
    p99: percentileMs(histogram, 99),
    non2xx: results.reduce((s, r) => s + r.non2xx, 0),
    socketErrors: results.reduce((s, r) => s + r.socketErrors, 0),
    cpu: {
      assay: servers.reduce((s, srv, i) => s + processCpu(srv.child.pid) - assay[i], 0) / SECONDS,
      postgres: onPostgres ? (postgresCpu(postmasterPid) - pg) / SECONDS : 0,
      wrk: results.reduce((s, r) => s + r.cpu, 0) / SECONDS,
      machine: (m1.busy - m0.busy) / (m1.total - m0.total),
    },
  };
}

// ---- 2. runs -----------------------------------------------------------------------------------------------------------

interface RunFigures {
  runsPerSec: number;
  createdSec: number;
  allDoneSec: number;
  p50: number;
  p99: number;
  succeeded: number;
  createFailures: number;
  createSamples: string[];
  notSucceeded: Map<string, number>;
  notSucceededSamples: string[];
  timedOut: boolean;
  cpu: { assay: number; postgres: number; machine: number };
}

const pct = (xs: number[], p: number) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : Number.NaN);

let idem = 0;
/** Creates n runs, CREATING requests in flight, the k-th sent to process k mod P; answers the created ids. */
async function createRuns(servers: Server[], key: string, workflowId: string, documentId: string, n: number) {
  const ids: string[] = [];
  const failures: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CREATING }, async () => {
      while (next < n) {
        const k = next++;
        const server = servers[k % servers.length];
        try {
          const r = await call(
            server.base,
            "POST",
            `/v1/workflows/${workflowId}/runs`,
            key,
            { input_documents: [documentId] },
            {
              "idempotency-key": `scale-${idem++}`,
            },
          );
          if (r.status === 202) ids.push(r.body.id);
          else failures.push(`process ${(k % servers.length) + 1}: ${r.status} ${r.text.slice(0, 300)}`);
        } catch (err) {
          failures.push(`process ${(k % servers.length) + 1}: ${String(err).slice(0, 300)}`);
        }
      }
    }),
  );
  return { ids, failures };
}

/** Polls (alternating processes) until no run is queued or running; false at the deadline. */
async function waitIdle(servers: Server[], key: string, deadline: number): Promise<boolean> {
  for (let i = 0; Date.now() < deadline; i++) {
    const base = servers[i % servers.length].base;
    const [queued, running] = await Promise.all(["queued", "running"].map((status) => call(base, "GET", `/v1/runs?status=${status}&limit=1`, key)));
    if (queued.status !== 200 || running.status !== 200) throw new Error(`listing runs: ${queued.status} ${running.status} ${queued.text}`);
    if (queued.body.data.length === 0 && running.body.data.length === 0) return true;
    await Bun.sleep(100);
  }
  return false;
}

interface RunJson {
  id: string;
  status: string;
  created_at: string;
  finished_at: string | null;
  error: unknown;
}

async function allRuns(base: string, key: string): Promise<Map<string, RunJson>> {
  const out = new Map<string, RunJson>();
  let cursor: string | null = null;
  do {
    const page: { data: RunJson[]; next_cursor: string | null } = await must(
      base,
      "GET",
      `/v1/runs?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
      key,
    );
    for (const r of page.data) out.set(r.id, r);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

async function measureRuns(servers: Server[], key: string, workflowId: string, documentId: string, onPostgres: boolean): Promise<RunFigures> {
  // Warm-up: every process's run path, compute workers and JIT.
  const warmup = await createRuns(servers, key, workflowId, documentId, WARMUP_RUNS_PER_PROCESS * servers.length);
  if (!(await waitIdle(servers, key, Date.now() + 120_000))) throw new Error("the warm-up runs never finished");

  const pg = onPostgres ? postgresCpu(postmasterPid) : 0;
  const assay = servers.map((s) => processCpu(s.child.pid));
  const m0 = machineTicks();
  const t0 = Date.now();
  const { ids, failures } = await createRuns(servers, key, workflowId, documentId, RUNS);
  const createdSec = (Date.now() - t0) / 1000;
  const finishedInTime = await waitIdle(servers, key, Date.now() + 120_000 + RUNS * 500);
  const elapsed = (Date.now() - t0) / 1000;
  const m1 = machineTicks();
  const cpu = {
    machine: (m1.busy - m0.busy) / (m1.total - m0.total),
    assay: servers.reduce((sum, srv, i) => sum + processCpu(srv.child.pid) - assay[i], 0) / elapsed,
    postgres: onPostgres ? (postgresCpu(postmasterPid) - pg) / elapsed : 0,
  };
  const listed = await allRuns(servers[0].base, key);
  const latencies: number[] = [];
  const notSucceeded = new Map<string, number>();
  const notSucceededSamples: string[] = [];
  let lastFinish = t0;
  for (const id of ids) {
    const run = listed.get(id);
    const status = run?.status ?? "missing from the list";
    if (run?.finished_at) lastFinish = Math.max(lastFinish, Date.parse(run.finished_at));
    if (run && status === "succeeded" && run.finished_at) {
      latencies.push(Date.parse(run.finished_at) - Date.parse(run.created_at));
    } else {
      notSucceeded.set(status, (notSucceeded.get(status) ?? 0) + 1);
      if (notSucceededSamples.length < 5) notSucceededSamples.push(`${id} ${status} ${JSON.stringify(run?.error ?? null).slice(0, 300)}`);
    }
  }
  latencies.sort((a, b) => a - b);
  const allDoneSec = (lastFinish - t0) / 1000;
  return {
    runsPerSec: latencies.length / allDoneSec,
    createdSec,
    allDoneSec,
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    succeeded: latencies.length,
    createFailures: warmup.failures.length + failures.length,
    createSamples: [...warmup.failures.map((f) => `warm-up ${f}`), ...failures].slice(0, 5),
    notSucceeded,
    notSucceededSamples,
    timedOut: !finishedInTime,
    cpu,
  };
}

// ---- one configuration -----------------------------------------------------------------------------------------------

interface Outcome {
  name: string;
  processes: number;
  http: HttpFigures;
  runs: RunFigures;
  logs: LogFindings;
}

async function configuration(name: string, processes: number, onPostgres: boolean, index: number): Promise<Outcome> {
  const dataDir = path.join(tmp, `data-${index}`);
  const databaseUrl = onPostgres ? await freshDatabase(`assay_scale_${index}_${process.pid}`) : null;
  const env = settings(dataDir, databaseUrl);
  const servers: Server[] = [];
  try {
    // The first process migrates and creates the admin; the others find both done.
    servers.push(await startServer(env, `c${index}-p1`));
    servers.push(...(await Promise.all(Array.from({ length: processes - 1 }, (_, i) => startServer(env, `c${index}-p${i + 2}`)))));
    const base = servers[0].base;
    const session = (await must(base, "POST", "/v1/auth/login", null, { email: EMAIL, password: PASSWORD })).token as string;
    const key = (await must(base, "POST", "/v1/keys", session, { name: "scale-bench" })).token as string;
    const upload = await must(base, "POST", "/v1/documents", key, { filename: "essay.txt", mime_type: "text/plain" });
    const put = await fetch((upload.upload_url as string).replace(/^https?:\/\/[^/]+/, base), {
      method: "PUT",
      headers: { "content-type": "text/plain" },
      body: ESSAY,
    });
    if (put.status >= 300) throw new Error(`upload: ${put.status} ${await put.text()}`);
    await must(base, "POST", `/v1/documents/${upload.id}/complete`, key);
    const workflow = await must(base, "POST", "/v1/workflows", key, { product_code: "education", name: "Essays", user_prompt: "Grade the essay." });

    process.stderr.write(`${name}: GET /v1/products …\n`);
    const http = await measureProducts(servers, key, onPostgres);
    process.stderr.write(`${name}: ${RUNS} runs …\n`);
    const runs = await measureRuns(servers, key, workflow.id, upload.id, onPostgres);
    await stopServers(servers);
    const logs = scanLogs(servers);
    if (logs.samples.length) keepLogs = true;
    return { name, processes, http, runs, logs };
  } catch (err) {
    await stopServers(servers);
    keepLogs = true;
    for (const s of scanLogs(servers).samples) console.error(s);
    console.error(`the servers' logs are kept in ${tmp}`);
    throw err;
  }
}

// ---- main ------------------------------------------------------------------------------------------------------------

const outcomes: Outcome[] = [];
try {
  outcomes.push(await configuration("sqlite, 1 process", 1, false, 0));
  outcomes.push(await configuration("postgres, 1 process", 1, true, 1));
  outcomes.push(await configuration("postgres, 2 processes", 2, true, 2));
} finally {
  await admin.end({ timeout: 5 });
  cleanup();
}

const workers = values.workers ?? "2 (default)";
const n0 = (x: number) => Math.round(x).toLocaleString("en-US");
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(2));
console.log(
  `machine: ${cores} cores, ${cpuModel} (/proc/cpuinfo), ${Math.round(os.totalmem() / 2 ** 30)} GB; Bun ${Bun.version}; PostgreSQL ${pgVersion}; load average ${loadAtStart.toFixed(2)} at the start`,
);
console.log(
  `note: ${cores} cores: with 2 processes, PostgreSQL and wrk all share them; the ratio shows contention, not the scaling of a larger machine`,
);
console.log(
  `servers: dist/assay serve, the same settings for every process (ASSAY_LOG_LEVEL=info to a file, ASSAY_DEFAULT_RPM=1000000000, ASSAY_WORKERS=${workers}, ASSAY_DATABASE_POOL=10 (default), one data folder per configuration, shared by its processes); a fresh database each; nothing pinned (no taskset)`,
);
console.log(
  `PostgreSQL: scripts/pg-cluster.sh (loopback TCP, fsync/synchronous_commit/full_page_writes off). CPU figures below are in cores (1.00 = one core busy) over the measured ${SECONDS} s`,
);
console.log(
  `GET /v1/products: one \`wrk -t1 -c${CONNECTIONS}/P -d${SECONDS}s --latency\` per process (P = processes), all started together, each straight at its own process (no proxy), one API key; req/s summed, p50/p99 from the merged wrk latency histograms; after a 2 s warm-up`,
);
console.log(
  `runs: ${RUNS} runs over HTTP on a ${ESSAY.length}-character text document, local evaluator (no model server), ${CREATING} creating requests in flight, the k-th to process k mod P, after ${WARMUP_RUNS_PER_PROCESS} warm-up runs per process; runs/s = runs / (first creation -> last finished_at); p50/p99 creation -> succeeded from the runs' created_at/finished_at\n`,
);

for (const o of outcomes) {
  const h = o.http;
  const per = o.processes > 1 ? ` (${h.perProcess.map(n0).join(" + ")})` : "";
  const pg = o.name.startsWith("postgres");
  console.log(`${o.name} (${o.processes} × wrk -t1 -c${Math.max(1, Math.round(CONNECTIONS / o.processes))})`);
  console.log(`  GET /v1/products ${n0(h.rps).padStart(7)} req/s${per}  p50 ${ms(h.p50)} ms  p99 ${ms(h.p99)} ms`);
  console.log(
    `    CPU: assay ${h.cpu.assay.toFixed(2)}${pg ? `, postgres ${h.cpu.postgres.toFixed(2)}` : ""}, wrk ${h.cpu.wrk.toFixed(2)}, anything else ${Math.max(0, h.cpu.machine * cores - h.cpu.assay - h.cpu.postgres - h.cpu.wrk).toFixed(2)}; machine ${(100 * h.cpu.machine).toFixed(0)} % busy`,
  );
  const r = o.runs;
  console.log(
    `  runs             ${r.runsPerSec.toFixed(1).padStart(7)} runs/s  creation -> succeeded p50 ${n0(r.p50)} ms  p99 ${n0(r.p99)} ms  (${r.succeeded}/${RUNS} succeeded; created in ${r.createdSec.toFixed(1)} s, all finished after ${r.allDoneSec.toFixed(1)} s)`,
  );
  console.log(
    `    CPU: assay ${r.cpu.assay.toFixed(2)}${pg ? `, postgres ${r.cpu.postgres.toFixed(2)}` : ""}, anything else (the bench itself included) ${Math.max(0, r.cpu.machine * cores - r.cpu.assay - r.cpu.postgres).toFixed(2)}; machine ${(100 * r.cpu.machine).toFixed(0)} % busy`,
  );
  const problems: string[] = [];
  if (h.non2xx) problems.push(`wrk: ${h.non2xx} non-2xx answers`);
  if (h.socketErrors) problems.push(`wrk: ${h.socketErrors} socket errors`);
  if (r.createFailures) problems.push(`${r.createFailures} run creations failed: ${r.createSamples.join(" | ")}`);
  if (r.notSucceeded.size) {
    problems.push(`runs not succeeded: ${[...r.notSucceeded].map(([s, c]) => `${c} ${s}`).join(", ")}: ${r.notSucceededSamples.join(" | ")}`);
  }
  if (r.timedOut) problems.push("runs still queued or running at the deadline");
  if (o.logs.warnings || o.logs.errors || o.logs.status5xx) {
    problems.push(`server logs: ${o.logs.warnings} warn, ${o.logs.errors} error lines, ${o.logs.status5xx} 5xx answers`);
  }
  for (const s of o.logs.samples) problems.push(`  ${s}`);
  console.log(problems.length ? `  ERRORS:\n    ${problems.join("\n    ")}` : "  errors: none (wrk, creations, runs, server logs)");
}

const [, pg1, pg2] = outcomes;
console.log(
  `\nratio 2 processes / 1 process (PostgreSQL): GET /v1/products ${(pg2.http.rps / pg1.http.rps).toFixed(2)}x req/s, p99 ${(pg2.http.p99 / pg1.http.p99).toFixed(2)}x; runs ${(pg2.runs.runsPerSec / pg1.runs.runsPerSec).toFixed(2)}x runs/s`,
);
console.log(
  `PostgreSQL 1 process / SQLite 1 process: GET /v1/products ${(pg1.http.rps / outcomes[0].http.rps).toFixed(2)}x req/s; runs ${(pg1.runs.runsPerSec / outcomes[0].runs.runsPerSec).toFixed(2)}x runs/s`,
);
if (keepLogs) console.log(`\nthe servers' logs are kept in ${tmp}`);
const failed = outcomes.some(
  (o) =>
    o.http.non2xx || o.http.socketErrors || o.runs.createFailures || o.runs.notSucceeded.size || o.runs.timedOut || o.logs.errors || o.logs.status5xx,
);
process.exit(failed ? 1 : 0);
