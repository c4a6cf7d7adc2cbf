// The request path, measured honestly (issues 12.2 and 13.1): wrk drives the load from its own process pinned to
// core 1, the server under test is pinned to core 0 (taskset), and each Assay endpoint is compared with a raw Bun.serve
// answering the very same bytes, measured in the same run.
//   bun run bench/http.ts [--seconds 10] [--repeats 3] [--connections 64] [--no-build]
// Endpoints: authenticated GET /v1/products, GET /v1/runs/<id> (a finished run), GET /v1/workflows?limit=20, and
// POST /v1/workflows/<id>/runs with a fresh Idempotency-Key per request. Then the cost of the request log: GET
// /v1/products with ASSAY_LOG_LEVEL=info (the default) against warn (no request lines). Medians of the repeats.
// Needs wrk and taskset (Debian: apt-get install wrk util-linux).
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

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
const tmp = mkdtempSync(path.join(os.tmpdir(), "assay-http-bench-"));

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

const freePort = () => 20000 + Math.floor(Math.random() * 20000);

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

/** Wrk's Lua script: the method, headers and body; POSTs get a unique Idempotency-Key each. */
function script(endpoint: Endpoint, token: string, tag: string): string {
  const file = path.join(tmp, `${tag}.lua`);
  const headers = `{ ["Authorization"] = "Bearer ${token}", ["Content-Type"] = "application/json" }`;
  const lua =
    endpoint.method === "GET"
      ? `wrk.method = "GET"\nwrk.headers["Authorization"] = "Bearer ${token}"\n`
      : `local n = 0\nlocal body = [[${endpoint.body}]]\nrequest = function()\n  n = n + 1\n  local h = ${headers}\n  h["Idempotency-Key"] = "${tag}-" .. n\n  return wrk.format("POST", nil, h, body)\nend\n`;
  writeFileSync(
    file,
    `${lua}local bad = 0\nresponse = function(status) if status ~= ${endpoint.status} then bad = bad + 1 end end\ndone = function() io.write("BAD " .. bad .. "\\n") end\n`,
  );
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
  // wrk counts responses it could not read (socket errors) separately; the Lua counter sees every wrong status.
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const bad = Number(/BAD (\d+)/.exec(out)?.[1] ?? 0) + (errors ? errors.slice(1).reduce((s, x) => s + Number(x), 0) : 0);
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0), p50: ms("50%"), p99: ms("99%"), bad };
}

const median = (xs: Figures[]): Figures => {
  const sorted = [...xs].sort((a, b) => a.rps - b.rps);
  const mid = sorted[Math.floor(sorted.length / 2)];
  return { ...mid, bad: xs.reduce((s, x) => s + x.bad, 0) };
};

// One Assay with data: a key, 25 workflows, a finished run, a document to run on.
const dataDir = path.join(tmp, "data");
let port = freePort();
let assay = await startAssay(port, dataDir, "info");
let base = `http://127.0.0.1:${port}`;
const call = async (method: string, url: string, token: string | null, body?: unknown) => {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, bytes: new Uint8Array(await res.arrayBuffer()) };
};
const json = (r: { bytes: Uint8Array }) => JSON.parse(new TextDecoder().decode(r.bytes));
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

// The ceiling: raw Bun.serve answering each endpoint's bytes, on the same core.
const rawPort = freePort();
writeFileSync(
  path.join(tmp, "raw.ts"),
  `const files = ${JSON.stringify(endpoints.map((e) => ({ path: e.path.split("?")[0], status: e.status, body: new TextDecoder().decode(e.bytes) })))};
const map = new Map(files.map((f) => [f.path, f]));
Bun.serve({ port: ${rawPort}, hostname: "127.0.0.1", fetch(req) {
  const f = map.get(new URL(req.url).pathname);
  return f ? new Response(f.body, { status: f.status, headers: { "content-type": "application/json" } }) : new Response("no", { status: 404 });
} });`,
);
const raw = Bun.spawn(["taskset", "-c", "0", process.execPath, path.join(tmp, "raw.ts")], { stdout: "ignore", stderr: "inherit" });
await healthy(`http://127.0.0.1:${rawPort}/v1/products`);

// The request log's cost first (before run creation fills the queue): GET /v1/products with warn (no request
// lines), then the same data dir restarted at info, where every figure below is measured.
assay.kill();
await assay.exited;
port = freePort();
assay = await startAssay(port, dataDir, "warn");
base = `http://127.0.0.1:${port}`;
wrk(`${base}/v1/products`, script(endpoints[0], key, "quietwarm"), 2);
const quiet = median(Array.from({ length: REPEATS }, (_, r) => wrk(`${base}/v1/products`, script(endpoints[0], key, `quiet${r}`))));
assay.kill();
await assay.exited;
port = freePort();
assay = await startAssay(port, dataDir, "info");
base = `http://127.0.0.1:${port}`;

const results: { name: string; assay: Figures; raw: Figures }[] = [];
try {
  for (const [i, e] of endpoints.entries()) {
    const assayRuns: Figures[] = [];
    const rawRuns: Figures[] = [];
    wrk(`${base}${e.path}`, script(e, key, `warm${i}`), 2);
    wrk(`http://127.0.0.1:${rawPort}${e.path}`, script(e, key, `rawwarm${i}`), 2);
    for (let r = 0; r < REPEATS; r++) {
      assayRuns.push(wrk(`${base}${e.path}`, script(e, key, `a${i}r${r}${Date.now()}`)));
      rawRuns.push(wrk(`http://127.0.0.1:${rawPort}${e.path}`, script(e, key, `w${i}r${r}`)));
    }
    results.push({ name: e.name, assay: median(assayRuns), raw: median(rawRuns) });
  }
} finally {
  raw.kill();
  assay.kill();
}
const info = results[0].assay;

const cpu = os.cpus();
console.log(`machine: ${cpu.length} × ${cpu[0]?.model ?? "cpu"}, Bun ${Bun.version}; server on core 0, wrk -t1 -c${CONNECTIONS} on core 1`);
console.log(`${SECONDS} s per measurement, median of ${REPEATS}; Assay = the compiled executable with ASSAY_LOG_LEVEL=info\n`);
const f = (x: Figures) => `${x.rps.toFixed(0).padStart(7)} req/s  p50 ${x.p50.toFixed(2).padStart(6)} ms  p99 ${x.p99.toFixed(2).padStart(6)} ms`;
for (const r of results) {
  console.log(`${r.name.padEnd(32)} Assay ${f(r.assay)}${r.assay.bad ? `  (${r.assay.bad} wrong answers!)` : ""}`);
  console.log(`${"".padEnd(32)} raw   ${f(r.raw)}   ratio ${(r.assay.rps / r.raw.rps).toFixed(2)}`);
}
console.log(
  `\nrequest log: GET /v1/products ${info.rps.toFixed(0)} req/s at info, ${quiet.rps.toFixed(0)} at warn: logging costs ${(100 * (1 - info.rps / quiet.rps)).toFixed(1)} % (goal < 10 %)`,
);
