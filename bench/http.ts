// The request path, measured honestly (issues 12.2 and 13.1): wrk drives the load from its own process pinned to
// core 1, the server under test is pinned to core 0 (taskset), and each Assay endpoint is compared with a raw Bun.serve
// answering the very same bytes, and with Elysia alone (bench/elysia-floor.ts: the framework as Assay configures it, the
// same bodies, nothing of ours), measured in the same run.
//   bun run bench/http.ts [--seconds 10] [--repeats 3] [--connections 64] [--no-build]
// Endpoints: authenticated GET /v1/products, GET /v1/runs/<id> (a finished run), GET /v1/workflows?limit=20, and
// POST /v1/workflows/<id>/runs with a fresh Idempotency-Key per request. Then the cost of the request log: GET
// /v1/products on pairs of fresh servers, one at ASSAY_LOG_LEVEL=info (the default) and one at warn (no request
// lines), in alternating runs, as req/s and as server CPU per request. Medians of the repeats.
// Needs wrk and taskset (Debian: apt-get install wrk util-linux).
import { readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { freePort } from "../src/lib/ports";
import { tempDir } from "../src/lib/temp-dir";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    repeats: { type: "string", default: "3" },
    connections: { type: "string", default: "64" },
    "no-build": { type: "boolean", default: false },
  },
});
const SECONDS = Number(values.seconds);
const REPEATS = Number(values.repeats);
const CONNECTIONS = Number(values.connections);
const root = path.resolve(import.meta.dir, "..");
const tmp = tempDir("assay-http-bench-");

for (const tool of ["wrk", "taskset"]) {
  if (!Bun.which(tool)) {
    console.error(`${tool} is not installed: apt-get install ${tool === "wrk" ? "wrk" : "util-linux"}`);
    process.exit(2);
  }
}
if (!values["no-build"]) {
  const built = Bun.spawnSync([process.execPath, "run", "scripts/build.ts"], { cwd: root, stdout: "ignore", stderr: "inherit" });
  if (built.exitCode !== 0) process.exit(1);
}

async function healthy(url: string) {
  for (let i = 0; i < 500; i++) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {}
    await Bun.sleep(20);
  }
  throw new Error(`${url} never answered`);
}

async function startAssay(port: number, dataDir: string, logLevel: string) {
  const proc = Bun.spawn(["taskset", "-c", "0", path.join(root, "dist/assay"), "serve", "--port", String(port), "--data-dir", dataDir], {
    env: {
      ...process.env,
      ASSAY_ADMIN_EMAIL: "bench@example.com",
      ASSAY_ADMIN_PASSWORD: "bench-password",
      ASSAY_DEFAULT_RPM: "1000000000",
      ASSAY_INITIAL_CREDITS: "100000000",
      ASSAY_LOG_LEVEL: logLevel,
    },
    stdout: "ignore", // the log goes somewhere real servers send it: a pipe read by nobody is not that, /dev/null is close
    stderr: "inherit",
  });
  await healthy(`http://127.0.0.1:${port}/v1/health`);
  return proc;
}

interface Endpoint {
  name: string;
  method: "GET" | "POST";
  path: string;
  body?: string;
  status: number;
  bytes: Uint8Array;
}

/** A workspace's run creation: its key, its workflow's runs path, a completed document to run on. */
interface Creator {
  token: string;
  path: string;
  body: string;
}

/**
 * Wrk's Lua script: the method, headers and body. POSTs get a unique Idempotency-Key each and go round the creators
 * (one workspace each), so the per-workspace cap on waiting runs (1,000) never answers 429 instead of creating.
 */
function script(endpoint: Endpoint, token: string, tag: string, creators: Creator[] = []): string {
  const file = path.join(tmp, `${tag}.lua`);
  const list = creators.map((c) => `{ token = "${c.token}", path = "${c.path}", body = [[${c.body}]] }`).join(",\n  ");
  const lua =
    endpoint.method === "GET"
      ? `wrk.method = "GET"\nwrk.headers["Authorization"] = "Bearer ${token}"\n`
      : `local n = 0\nlocal creators = {\n  ${list}\n}\nrequest = function()\n  n = n + 1\n  local c = creators[(n % #creators) + 1]\n  local h = { ["Authorization"] = "Bearer " .. c.token, ["Content-Type"] = "application/json", ["Idempotency-Key"] = "${tag}-" .. n }\n  return wrk.format("POST", c.path, h, c.body)\nend\n`;
  writeFileSync(file, lua);
  return file;
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  bad: number;
}

function wrk(url: string, lua: string, seconds = SECONDS): Figures {
  const r = Bun.spawnSync(["taskset", "-c", "1", "wrk", "-t1", `-c${CONNECTIONS}`, `-d${seconds}s`, "--latency", "-s", lua, url], {
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = r.stdout.toString();
  const ms = (label: string) => {
    const m = new RegExp(`\\s${label}\\s+([\\d.]+)(us|ms|s)`).exec(out);
    if (!m) throw new Error(`wrk output without ${label}: ${out}${r.stderr}`);
    return Number(m[1]) * (m[2] === "us" ? 0.001 : m[2] === "s" ? 1000 : 1);
  };
  // Answers that were not 2xx, and responses wrk could not read (socket errors): req/s counts only the others, so a
  // fast error (a 429, a 5xx) never passes for throughput.
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const bad = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) + (errors ? errors.slice(1).reduce((s, x) => s + Number(x), 0) : 0);
  const total = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  return { rps: total > 0 ? (rps * Math.max(0, total - bad)) / total : 0, p50: ms("50%"), p99: ms("99%"), bad };
}

/** The middle item by `by` (the upper one of an even count). */
const middle = <T>(xs: T[], by: (x: T) => number): T => [...xs].sort((a, b) => by(a) - by(b))[Math.floor(xs.length / 2)];
const med = (xs: number[]) => middle(xs, (x) => x);
/** The run with the median req/s, with the bad answers of all runs. */
const median = (xs: Figures[]): Figures => ({ ...middle(xs, (x) => x.rps), bad: xs.reduce((s, x) => s + x.bad, 0) });

// One Assay with data: a key, 25 workflows, a finished run, a document to run on.
const dataDir = path.join(tmp, "data");
const port = freePort();
const assay = await startAssay(port, dataDir, "info");
const base = `http://127.0.0.1:${port}`;
/** A JSON call to the server at `origin`; `call` is the main server's. */
const callAt = (origin: string) => async (method: string, url: string, token: string | null, body?: unknown) => {
  const res = await fetch(`${origin}${url}`, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
};
const call = callAt(base);
const json = (r: { bytes: Uint8Array }) => JSON.parse(new TextDecoder().decode(r.bytes));
/** A fresh key on the server at `origin`, whose admin startAssay created. */
const keyAt = async (origin: string) => {
  const at = callAt(origin);
  const login = json(await at("POST", "/v1/auth/login", null, { email: "bench@example.com", password: "bench-password" })).token;
  return json(await at("POST", "/v1/keys", login, { name: "bench" })).token as string;
};
const session = json(await call("POST", "/v1/auth/login", null, { email: "bench@example.com", password: "bench-password" })).token;
const key = json(await call("POST", "/v1/keys", session, { name: "bench" })).token;
let workflowId = "";
for (let i = 0; i < 25; i++) {
  workflowId = json(await call("POST", "/v1/workflows", key, { product_code: "education", name: `Essays ${i}`, user_prompt: "Grade the essay." })).id;
}
const upload = json(await call("POST", "/v1/documents", key, { filename: "essay.txt", mime_type: "text/plain" }));
const essay = "School uniforms reduce bullying. A 2019 study of 40 schools found reports fell by 23 percent.";
await fetch(upload.upload_url.replace(/^https?:\/\/[^/]+/, base), { method: "PUT", headers: { "content-type": "text/plain" }, body: essay });
await call("POST", `/v1/documents/${upload.id}/complete`, key);
const runBody = JSON.stringify({ input_documents: [upload.id] });
const run = json(await call("POST", `/v1/workflows/${workflowId}/runs`, key, JSON.parse(runBody)));
for (let i = 0; i < 200 && json(await call("GET", `/v1/runs/${run.id}`, key)).status !== "succeeded"; i++) await Bun.sleep(50);

const endpoints: Endpoint[] = [];
for (const [name, method, url, status] of [
  ["GET /v1/products", "GET", "/v1/products", 200],
  ["GET /v1/runs/<id>", "GET", `/v1/runs/${run.id}`, 200],
  ["GET /v1/workflows?limit=20", "GET", "/v1/workflows?limit=20", 200],
  ["POST …/runs + Idempotency-Key", "POST", `/v1/workflows/${workflowId}/runs`, 202],
] as const) {
  const sample = await call(method, url, key, method === "POST" ? JSON.parse(runBody) : undefined);
  if (sample.status !== status) throw new Error(`${name}: ${sample.status} ${new TextDecoder().decode(sample.bytes)}`);
  endpoints.push({ name, method, path: url, status, bytes: sample.bytes, ...(method === "POST" ? { body: runBody } : {}) });
}

// Run creation goes round many workspaces (each with a key, a workflow and a completed document), so that no
// workspace reaches its cap of 1,000 waiting runs while the server's workers evaluate them on the same core.
const CREATORS = 100;
const creators: Creator[] = [];
for (let i = 0; i < CREATORS; i++) {
  const email = `creator${i}@example.com`;
  const made = await call("POST", "/v1/admin/users", session, { email, password: "bench-password", role: "member" });
  if (made.status !== 201) throw new Error(`admin/users: ${made.status} ${new TextDecoder().decode(made.bytes)}`);
  const s = json(await call("POST", "/v1/auth/login", null, { email, password: "bench-password" })).token;
  const k = json(await call("POST", "/v1/keys", s, { name: "bench" })).token;
  const wf = json(await call("POST", "/v1/workflows", k, { product_code: "education", name: "Essays", user_prompt: "Grade the essay." })).id;
  const up = json(await call("POST", "/v1/documents", k, { filename: "essay.txt", mime_type: "text/plain" }));
  await fetch(up.upload_url.replace(/^https?:\/\/[^/]+/, base), { method: "PUT", headers: { "content-type": "text/plain" }, body: essay });
  await call("POST", `/v1/documents/${up.id}/complete`, k);
  creators.push({ token: k, path: `/v1/workflows/${wf}/runs`, body: JSON.stringify({ input_documents: [up.id] }) });
}

// The ceilings, on the same core, answering each endpoint's very bytes (read from one file): raw Bun.serve, and Elysia
// alone (bench/elysia-floor.ts: the framework's own ceiling).
const endpointsFile = path.join(tmp, "endpoints.json");
writeFileSync(
  endpointsFile,
  JSON.stringify(endpoints.map((e) => ({ method: e.method, path: e.path, status: e.status, body: new TextDecoder().decode(e.bytes) }))),
);
const rawPort = freePort();
writeFileSync(
  path.join(tmp, "raw.ts"),
  `const files = (await Bun.file(${JSON.stringify(endpointsFile)}).json()).map((f) => ({ ...f, path: f.path.split("?")[0] }));
const map = new Map(files.map((f) => [f.path, f]));
const post = files.find((f) => f.method === "POST");
Bun.serve({ port: ${rawPort}, hostname: "127.0.0.1", fetch(req) {
  const f = req.method === "POST" ? post : map.get(new URL(req.url).pathname);
  return f ? new Response(f.body, { status: f.status, headers: { "content-type": "application/json" } }) : new Response("no", { status: 404 });
} });`,
);
const floorPort = freePort();
const raw = Bun.spawn(["taskset", "-c", "0", process.execPath, path.join(tmp, "raw.ts")], { stdout: "ignore", stderr: "inherit" });
const floor = Bun.spawn(["taskset", "-c", "0", process.execPath, path.join(root, "bench/elysia-floor.ts"), String(floorPort), endpointsFile], {
  stdout: "ignore",
  stderr: "inherit",
});
await healthy(`http://127.0.0.1:${rawPort}/v1/products`);
await healthy(`http://127.0.0.1:${floorPort}/v1/products`);

type Level = { rps: number[]; cpu: number[] };
/** User plus system CPU time of a process so far, in µs (from /proc: clock ticks of 10 ms). */
const cpuMicros = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
};

/**
 * The request log's cost: GET /v1/products on two fresh servers with the same history (an admin and a key, then this
 * load), one at info (a line a request) and one at warn (no request lines), in alternating runs so a slow moment of the
 * VM hits both; req/s and each server's CPU time per request (taskset execs the server, so its pid is the server's).
 * One process differs from another by several percent whatever its level, and one run from the next by more on this
 * VM: so `repeats` pairs of fresh servers, four runs of each level per pair, and the medians over all of them.
 */
async function measureLogCost(): Promise<{ info: Level; warn: Level }> {
  const out = { info: { rps: [], cpu: [] } as Level, warn: { rps: [], cpu: [] } as Level };
  for (let pair = 0; pair < REPEATS; pair++) {
    const started: Bun.Subprocess[] = [];
    try {
      const servers = [];
      for (const level of ["info", "warn"] as const) {
        const serverPort = freePort();
        const proc = await startAssay(serverPort, path.join(tmp, `log-${level}-${pair}`), level);
        started.push(proc);
        const token = await keyAt(`http://127.0.0.1:${serverPort}`);
        servers.push({
          level,
          url: `http://127.0.0.1:${serverPort}/v1/products`,
          pid: proc.pid,
          lua: script(endpoints[0], token, `log${level}${pair}`),
        });
      }
      for (const s of servers) wrk(s.url, s.lua, 2);
      for (let r = 0; r < 4; r++) {
        for (const s of r % 2 === 0 ? servers : [...servers].reverse()) {
          const before = cpuMicros(s.pid);
          const f = wrk(s.url, s.lua);
          out[s.level].rps.push(f.rps);
          out[s.level].cpu.push((cpuMicros(s.pid) - before) / Math.max(1, f.rps * SECONDS));
        }
      }
    } finally {
      for (const proc of started) proc.kill();
      await Promise.all(started.map((proc) => proc.exited));
    }
  }
  return out;
}

type Target = "assay" | "floor" | "raw";
const urlOf: Record<Target, string> = { assay: base, floor: `http://127.0.0.1:${floorPort}`, raw: `http://127.0.0.1:${rawPort}` };
const TARGETS = Object.keys(urlOf) as Target[];
const results: ({ name: string } & Record<Target, Figures>)[] = [];
let logCost: { info: Level; warn: Level } | null = null;
try {
  logCost = await measureLogCost();
  for (const [i, e] of endpoints.entries()) {
    const runs: Record<Target, Figures[]> = { assay: [], floor: [], raw: [] };
    for (const t of TARGETS) wrk(`${urlOf[t]}${e.path}`, script(e, key, `${t}warm${i}`, creators), 2);
    for (let r = 0; r < REPEATS; r++) {
      // The tag names the script and prefixes its Idempotency-Keys: unique per server, endpoint and repeat.
      for (const t of TARGETS) runs[t].push(wrk(`${urlOf[t]}${e.path}`, script(e, key, `${t}${i}r${r}`, creators)));
    }
    results.push({ name: e.name, assay: median(runs.assay), floor: median(runs.floor), raw: median(runs.raw) });
  }
} finally {
  raw.kill();
  floor.kill();
  assay.kill();
}

const cpu = os.cpus();
console.log(`machine: ${cpu.length} × ${cpu[0]?.model ?? "cpu"}, Bun ${Bun.version}; server on core 0, wrk -t1 -c${CONNECTIONS} on core 1`);
console.log(`${SECONDS} s per measurement, median of ${REPEATS}; Assay = the compiled executable with ASSAY_LOG_LEVEL=info\n`);
const f = (x: Figures) => `${x.rps.toFixed(0).padStart(7)} req/s  p50 ${x.p50.toFixed(2).padStart(6)} ms  p99 ${x.p99.toFixed(2).padStart(6)} ms`;
for (const r of results) {
  console.log(`${r.name.padEnd(32)} Assay        ${f(r.assay)}${r.assay.bad ? `  (${r.assay.bad} answers not 2xx or unread, not counted!)` : ""}`);
  console.log(`${"".padEnd(32)} Elysia alone ${f(r.floor)}   ratio ${(r.floor.rps / r.raw.rps).toFixed(2)} of raw`);
  console.log(
    `${"".padEnd(32)} raw          ${f(r.raw)}   Assay ratio ${(r.assay.rps / r.raw.rps).toFixed(2)} of raw, ${(r.assay.rps / r.floor.rps).toFixed(2)} of Elysia alone`,
  );
}
if (logCost) {
  const { info, warn } = logCost;
  const pct = (a: number, b: number) => (100 * (1 - a / b)).toFixed(1);
  console.log(
    `\nrequest log: GET /v1/products, ${info.rps.length} runs of each level, alternating between pairs of fresh servers (one at info, one at warn)`,
  );
  console.log(
    `  req/s ${med(info.rps).toFixed(0)} at info, ${med(warn.rps).toFixed(0)} at warn: logging costs ${pct(med(info.rps), med(warn.rps))} % of throughput (goal < 10 %)`,
  );
  console.log(
    `  server CPU ${med(info.cpu).toFixed(2)} µs a request at info, ${med(warn.cpu).toFixed(2)} at warn: ${pct(med(warn.cpu), med(info.cpu))} % of the CPU a request costs`,
  );
}
