// The run pipeline end to end (issue 13.4): runs created over HTTP against the compiled server, on a 10-page PDF input
// and a rubric reference, evaluated by the built-in local evaluator and driven to `succeeded`.
//   bun run bench/runs.ts [--runs 1000] [--concurrency 8] [--sequential 50] [--no-build]
// Prints: runs/s with every run created at once (the queue full), p50/p99 from creation to `succeeded` (server
// timestamps), the same for runs made one at a time (no queue), the server's own split of a run's time by stage
// (assay_run_stage_seconds from /metrics: the evaluator's share against claim, reads, rendering and writes), the
// server's CPU per run and its main thread's share of it (/proc), and the ceiling measured in the same run: the same
// evaluation called in this process, without HTTP, queue, database or rendering.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { evaluate } from "../src/engine/index.ts";
import type { ModelPolicy } from "../src/engine/types.ts";
import { extract } from "../src/extract/index.ts";
import { freePort } from "../src/lib/ports";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "8" },
    sequential: { type: "string", default: "50" },
    "no-build": { type: "boolean", default: false },
  },
});
const RUNS = Number(values.runs);
const CONCURRENCY = Number(values.concurrency);
const SEQUENTIAL = Number(values.sequential);
const root = path.resolve(import.meta.dir, "..");
const tmp = mkdtempSync(path.join(os.tmpdir(), "assay-runs-bench-"));

if (!values["no-build"]) {
  const built = Bun.spawnSync([process.execPath, "run", "scripts/build.ts"], { cwd: root, stdout: "ignore", stderr: "inherit" });
  if (built.exitCode !== 0) process.exit(1);
}

// --- The input: a 10-page essay PDF, generated deterministically (one Helvetica text block per page). ---
const SUBJECTS = ["School uniforms", "Homework", "Screen time", "Public transport", "Urban gardens", "Recycling", "Exams", "Sport"];
const CLAIMS = ["reduce bullying", "improve focus", "save families money", "build community", "cut emissions", "teach responsibility"];
function essayPage(page: number): string[] {
  const lines: string[] = [`Page ${page + 1}: argument ${page + 1}`];
  for (let i = 0; i < 28; i++) {
    const s = SUBJECTS[(page * 7 + i) % SUBJECTS.length];
    const c = CLAIMS[(page * 3 + i * 5) % CLAIMS.length];
    lines.push(`${s} ${c}. A ${2010 + ((page + i) % 14)} study of ${10 + ((page * i) % 90)} schools found a change of ${(i * 7) % 40} percent.`);
  }
  return lines;
}
function tenPagePdf(): Uint8Array {
  const objects: string[] = ["<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"];
  const kids: string[] = [];
  for (let p = 0; p < 10; p++) {
    const body = essayPage(p)
      .map((l) => `(${l.replace(/[()\\]/g, "")}) Tj T*`)
      .join("\n");
    const content = `BT /F1 10 Tf 13 TL 50 760 Td\n${body}\nET`;
    kids.push(`${objects.length + 1} 0 R`);
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${objects.length + 2} 0 R >>`,
    );
    objects.push(`<< /Length ${content.length} >>\nstream\n${content}\nendstream`);
  }
  objects[1] = `<< /Type /Pages /Kids [${kids.join(" ")}] /Count 10 >>`;
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}
const RUBRIC = [
  "Essay rubric",
  "1. Thesis (20 points): the essay states a clear position on the subject.",
  "2. Evidence (30 points): claims are supported by studies, figures and sources.",
  "3. Organisation (20 points): each page develops one argument in order.",
  "4. Counterarguments (15 points): the essay answers the strongest objection.",
  "5. Style (15 points): sentences are clear, concise and free of errors.",
].join("\n");
const pdf = tenPagePdf();

// --- The server: the compiled executable, its log at info like a real deployment (to /dev/null), /metrics on. ---
const port = freePort();
const base = `http://127.0.0.1:${port}`;
const server = Bun.spawn([path.join(root, "dist/assay"), "serve", "--port", String(port), "--data-dir", path.join(tmp, "data")], {
  env: {
    ...process.env,
    ASSAY_ADMIN_EMAIL: "bench@example.com",
    ASSAY_ADMIN_PASSWORD: "bench-password",
    ASSAY_DEFAULT_RPM: "1000000000",
    ASSAY_INITIAL_CREDITS: "100000000",
    ASSAY_METRICS: "1",
  },
  stdout: "ignore",
  stderr: "inherit",
});
const stop = () => server.kill();
process.on("exit", stop);
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${base}/v1/health`)).ok) break;
  } catch {}
  if (i > 500) throw new Error("the server never answered");
  await Bun.sleep(20);
}

async function call(method: string, url: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body instanceof FormData ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : body instanceof FormData ? body : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}
const login = await fetch(`${base}/v1/auth/login`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ email: "bench@example.com", password: "bench-password" }),
});
const session = ((await login.json()) as { token: string }).token;
const key = (await call("POST", "/v1/keys", session, { name: "bench" })).token as string;

const form = new FormData();
form.set("name", "Essay rubric");
form.set("file", new File([RUBRIC], "rubric.txt", { type: "text/plain" }));
const ref = await call("POST", "/v1/reference-documents", key, form);
while ((await call("GET", `/v1/reference-documents/${ref.id}`, key)).status !== "ready") await Bun.sleep(50);
const upload = await call("POST", "/v1/documents", key, { filename: "essay.pdf", mime_type: "application/pdf" });
await fetch(upload.upload_url.replace(/^https?:\/\/[^/]+/, base), { method: "PUT", headers: { "content-type": "application/pdf" }, body: pdf });
const completed = await call("POST", `/v1/documents/${upload.id}/complete`, key);
if (completed.page_count !== 10) throw new Error(`the input has ${completed.page_count} pages, not 10`);
const workflow = await call("POST", "/v1/workflows", key, {
  product_code: "education",
  name: "Essays",
  reference_document_ids: [ref.id],
  output_format: "docx",
  user_prompt: "Grade the essay against the rubric; quote it as evidence.",
});
const runBody = { input_documents: [upload.id] };

let made = 0;
async function createRuns(n: number, concurrency: number): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        next++;
        const run = await call("POST", `/v1/workflows/${workflow.id}/runs`, key, runBody, { "idempotency-key": `bench-${made++}` });
        ids.push(run.id);
      }
    }),
  );
  return ids;
}

async function metrics(): Promise<Map<string, number>> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${session}` } })).text();
  const m = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = /^(assay_run_stage_seconds_(?:sum|count)\{stage="\w+"\}|assay_runs_finished_total\{[^}]*status="\w+"[^}]*\}) (\S+)$/.exec(line);
    if (match) m.set(match[1].replace(/,?product="\w+"/, ""), Number(match[2]));
  }
  return m;
}
const succeeded = async () => (await metrics()).get('assay_runs_finished_total{status="succeeded"}') ?? 0;

/** CPU seconds of the server process and of its main thread (the one whose tid is the pid). */
function cpu(): { total: number; main: number } {
  const ticks = (stat: string) => {
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in clock ticks of 1/100 s
  };
  const pid = server.pid;
  const total = ticks(readFileSync(`/proc/${pid}/stat`, "utf8"));
  const main = ticks(readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8"));
  return { total, main };
}
const threads = () => readdirSync(`/proc/${server.pid}/task`).length;

async function waitFor(target: number) {
  while ((await succeeded()) < target) await Bun.sleep(100);
}

/** Creation to `succeeded` per run, in ms, from the server's own timestamps. */
async function latencies(ids: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const id of ids) {
    const run = await call("GET", `/v1/runs/${id}`, key);
    if (run.status !== "succeeded") throw new Error(`run ${id} is ${run.status}: ${JSON.stringify(run.error)}`);
    out.push(Date.parse(run.finished_at) - Date.parse(run.created_at));
  }
  return out.sort((a, b) => a - b);
}
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

// Warm-up: the server's code paths, its extraction and compute workers, and the JIT.
let done = await succeeded();
await createRuns(30, 4);
done += 30;
await waitFor(done);

// 1. One at a time: the latency of a run that never waits in the queue.
const seqIds: string[] = [];
for (let i = 0; i < SEQUENTIAL; i++) {
  seqIds.push(...(await createRuns(1, 1)));
  done++;
  await waitFor(done);
}
const seq = await latencies(seqIds);

// 2. The flood: every run created at once (CONCURRENCY requests in flight), the server working through the queue.
const m0 = await metrics();
const c0 = cpu();
const t0 = performance.now();
const ids = await createRuns(RUNS, CONCURRENCY);
const createdMs = performance.now() - t0;
done += RUNS;
await waitFor(done);
const wallMs = performance.now() - t0;
const c1 = cpu();
const m1 = await metrics();
const flood = await latencies(ids);
const threadCount = threads();
stop();
await server.exited;
rmSync(tmp, { recursive: true, force: true });

// 3. The ceiling, in this process: the same evaluation without HTTP, queue, database, rendering or storage.
const input = await extract(pdf, { filename: "essay.pdf" });
const rubric = await extract(new TextEncoder().encode(RUBRIC), { filename: "rubric.txt" });
const evalInput = {
  workspaceId: "ws_bench",
  mode: "live" as const,
  workflow: {
    userPrompt: workflow.user_prompt as string,
    outputSchema: null,
    modelPolicy: workflow.default_model_policy as ModelPolicy,
    productCode: "education",
  },
  references: [{ id: ref.id as string, documentId: ref.id as string, name: "rubric.txt", content: rubric }],
  inputs: [{ id: upload.id as string, documentId: upload.id as string, name: "essay.pdf", content: input }],
  llm: null,
  contextBudgetChars: 400_000,
};
for (let i = 0; i < 50; i++) await evaluate(evalInput);
const e0 = performance.now();
const eCpu0 = process.cpuUsage();
let evals = 0;
while (performance.now() - e0 < 3000) {
  await evaluate(evalInput);
  evals++;
}
const evalMs = (performance.now() - e0) / evals;
const evalCpu = process.cpuUsage(eCpu0);
const evalCpuMs = (evalCpu.user + evalCpu.system) / 1000 / evals;

// --- Report. ---
const cores = os.availableParallelism();
const runsPerSec = RUNS / (wallMs / 1000);
const stage = (name: string, m: Map<string, number>) => m.get(`assay_run_stage_seconds_sum{stage="${name}"}`) ?? 0;
const stages = ["claim", "read", "evaluate", "render", "write"];
const stageSec = Object.fromEntries(stages.map((s) => [s, stage(s, m1) - stage(s, m0)]));
const stageTotal = stages.reduce((sum, s) => sum + stageSec[s], 0);
const serverCpu = c1.total - c0.total;
const mainCpu = c1.main - c0.main;
console.log(`machine: ${cores} × ${os.cpus()[0]?.model ?? "cpu"}, Bun ${Bun.version}; server: dist/assay, ASSAY_WORKERS default, not pinned`);
console.log(`input: a 10-page PDF (${pdf.length} bytes, ${input.text.length} characters), a ${RUBRIC.length}-character rubric; output docx\n`);
console.log(`${SEQUENTIAL} runs one at a time:   creation -> succeeded p50 ${pct(seq, 50)} ms  p99 ${pct(seq, 99)} ms`);
console.log(
  `${RUNS} runs at once (${CONCURRENCY} creating): ${runsPerSec.toFixed(1)} runs/s (created in ${(createdMs / 1000).toFixed(1)} s, all succeeded after ${(wallMs / 1000).toFixed(1)} s)`,
);
console.log(`                            creation -> succeeded p50 ${pct(flood, 50)} ms  p99 ${pct(flood, 99)} ms (the queue's wait included)`);
console.log(`\nserver time per run by stage (assay_run_stage_seconds, ${RUNS} runs):`);
for (const s of stages) {
  console.log(
    `  ${s.padEnd(9)} ${((stageSec[s] / RUNS) * 1000).toFixed(2).padStart(8)} ms  ${((100 * stageSec[s]) / stageTotal).toFixed(1).padStart(5)} %`,
  );
}
console.log(`  outside the evaluator: ${((100 * (stageTotal - stageSec.evaluate)) / stageTotal).toFixed(1)} % of the executing time`);
console.log(
  `\nserver CPU: ${((serverCpu / RUNS) * 1000).toFixed(2)} ms per run (HTTP creation and polling included), ${((100 * serverCpu) / (wallMs / 1000)).toFixed(0)} % of one core on average; main thread ${((100 * mainCpu) / (wallMs / 1000)).toFixed(0)} % of one core (${threadCount} threads)`,
);
console.log(
  `ceiling: the evaluation alone in this process ${evalMs.toFixed(2)} ms (${evalCpuMs.toFixed(2)} ms CPU) per run = ${(1000 / evalMs).toFixed(1)} runs/s per core`,
);
console.log(
  `server runs/s / ceiling on one core: ${(runsPerSec / (1000 / evalMs)).toFixed(2)}x; / ceiling on ${cores} cores: ${(runsPerSec / ((cores * 1000) / evalMs)).toFixed(2)}x`,
);
process.exit(0);
