// Agreement of the built-in local evaluator with human graders, through the real server (issue 14.2).
//   bun run bench/quality.ts DIR [--prompt TEXT] [--concurrency N]
// DIR holds essays.json ({scale, essays: [{id, human_score, traits, text}]}) and rubric.md (e.g. the ASAP set 7
// calibration folder; its texts are never copied into the repository). Starts `src/main.ts serve` on a temporary data
// dir with an admin, uploads rubric.md as a reference document, creates a workflow, submits every essay as a run with
// the local evaluator, polls each to succeeded, then prints Spearman, QWK, verdict and per-criterion agreement and the
// word-count baseline (src/engine/agreement.ts).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { agreement, formatAgreement, type GradedItem } from "../src/engine/agreement";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { prompt: { type: "string" }, concurrency: { type: "string", default: "4" }, "pass-at": { type: "string" } },
});
const dir = positionals[0];
if (!dir) {
  console.error("usage: bun run bench/quality.ts DIR [--prompt TEXT] [--concurrency N] [--pass-at N]");
  process.exit(2);
}

interface Essay {
  id: string | number;
  human_score: number;
  traits?: Record<string, number[]>;
  text: string;
}
const set = JSON.parse(readFileSync(path.join(dir, "essays.json"), "utf8")) as { scale?: unknown; essays: Essay[] };
const rubric = readFileSync(path.join(dir, "rubric.md"));
// The human scale: "scale" may be {min, max, pass}, [min, max] or absent (0–24, pass at 16: ASAP set 7's README).
const scale = readScale(set.scale);

const root = path.resolve(import.meta.dir, "..");
const tmp = mkdtempSync(path.join(os.tmpdir(), "assay-quality-"));
const port = 20000 + Math.floor(Math.random() * 20000);
const email = process.env.ASSAY_ADMIN_EMAIL ?? "bench@example.com";
const password = process.env.ASSAY_ADMIN_PASSWORD ?? "bench-password-1";
const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("ASSAY_")) env[k] = v;
Object.assign(env, {
  ASSAY_DATA_DIR: path.join(tmp, "data"),
  ASSAY_PORT: String(port),
  ASSAY_ADMIN_EMAIL: email,
  ASSAY_ADMIN_PASSWORD: password,
  ASSAY_INITIAL_CREDITS: "1000000",
  ASSAY_DEFAULT_RPM: "1000000",
  ASSAY_LOG_LEVEL: "warn",
});
// No ASSAY_LLM_BASE_URL: the built-in local evaluator.
const server = Bun.spawn([process.execPath, "run", path.join(root, "src/main.ts"), "serve"], { cwd: tmp, env, stdout: "ignore", stderr: "inherit" });
const base = `http://127.0.0.1:${port}/v1`;

try {
  await waitHealthy();
  const session = (await call("POST", "/auth/login", null, { email, password })).token as string;
  const key = (await call("POST", "/keys", session, { name: "quality bench" })).token as string;

  const form = new FormData();
  form.append("name", "rubric.md");
  form.append("file", new File([rubric], "rubric.md", { type: "text/markdown" }));
  const ref = await call("POST", "/reference-documents", key, form);
  for (let i = 0; ; i++) {
    const r = await call("GET", `/reference-documents/${ref.id}`, key);
    if (r.status === "ready") break;
    if (r.status === "failed" || i > 600) throw new Error(`reference ${r.status}: ${r.failure_reason ?? "timed out"}`);
    await Bun.sleep(100);
  }
  const workflow = await call("POST", "/workflows", key, {
    product_code: "education",
    name: "Quality bench",
    reference_document_ids: [ref.id],
    output_format: "json",
    ...(values.prompt ? { user_prompt: values.prompt } : {}),
  });

  const started = performance.now();
  const items: GradedItem[] = new Array(set.essays.length);
  let next = 0;
  const worker = async () => {
    while (next < set.essays.length) {
      const i = next++;
      items[i] = await grade(set.essays[i], key, workflow.id as string);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Number(values.concurrency)) }, worker));
  const seconds = (performance.now() - started) / 1000;

  const result = agreement(items, scale);
  console.log(`${set.essays.length} essays from ${dir} through the real server, local evaluator, in ${seconds.toFixed(1)} s`);
  console.log(formatAgreement(result, scale));
  const goals = [
    ["QWK ≥ 0.70", result.qwk >= 0.7],
    [`Spearman above the word-count baseline (${result.wordCountSpearman?.toFixed(3)})`, result.spearman > (result.wordCountSpearman ?? 1)],
    ["verdict agreement ≥ 85 %", result.verdictAgreement >= 0.85],
  ] as const;
  for (const [goal, met] of goals) console.log(`goal ${goal}: ${met ? "met" : "NOT met"}`);
} finally {
  server.kill();
  await server.exited;
  rmSync(tmp, { recursive: true, force: true });
}

async function grade(essay: Essay, key: string, workflowId: string): Promise<GradedItem> {
  const doc = await call("POST", "/documents", key, { filename: `essay-${essay.id}.txt`, mime_type: "text/plain" });
  const put = await fetch(doc.upload_url as string, {
    method: "PUT",
    body: essay.text,
    headers: { "content-type": (doc.upload_content_type as string | undefined) ?? "text/plain" },
  });
  if (!put.ok) throw new Error(`upload: HTTP ${put.status} ${await put.text()}`);
  await call("POST", `/documents/${doc.id}/complete`, key);
  const run = await call("POST", `/workflows/${workflowId}/runs`, key, { input_documents: [doc.id] }, { "idempotency-key": crypto.randomUUID() });
  for (let i = 0; ; i++) {
    const r = await call("GET", `/runs/${run.id}`, key);
    if (r.status === "succeeded") {
      const out = r.output as { score: number; verdict: GradedItem["verdict"]; criteria: { title: string; score: number; max_score: number }[] };
      const humanCriteria = essay.traits
        ? Object.fromEntries(Object.entries(essay.traits).map(([t, s]) => [t, s.reduce((a, b) => a + b, 0) / s.length]))
        : undefined;
      return {
        human: essay.human_score,
        score: out.score,
        verdict: out.verdict,
        criteria: out.criteria,
        humanCriteria,
        words: essay.text.split(/\s+/).filter(Boolean).length,
      };
    }
    if (r.status === "failed" || r.status === "canceled") throw new Error(`run ${run.id} ${r.status}: ${JSON.stringify(r.error ?? r)}`);
    if (i > 1200) throw new Error(`run ${run.id} did not finish`);
    await Bun.sleep(50);
  }
}

async function call(method: string, url: string, token: string | null = null, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
  const h: Record<string, string> = { ...headers };
  if (token) h.authorization = `Bearer ${token}`;
  let payload: FormData | string | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    h["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const res = await fetch(base + url, { method, headers: h, body: payload });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: HTTP ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function waitHealthy(): Promise<void> {
  const t0 = performance.now();
  for (;;) {
    try {
      if ((await fetch(`${base}/health`)).ok) return;
    } catch {}
    if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode})`);
    if (performance.now() - t0 > 30_000) throw new Error("the server did not become healthy");
    await Bun.sleep(50);
  }
}

function readScale(raw: unknown): { min: number; max: number; passAt: number } {
  const passAt = values["pass-at"] ? Number(values["pass-at"]) : undefined;
  if (Array.isArray(raw) && raw.length === 2) {
    const [min, max] = raw.map(Number);
    return { min, max, passAt: passAt ?? min + ((max - min) * 2) / 3 };
  }
  if (raw && typeof raw === "object") {
    const s = raw as Record<string, unknown>;
    const min = Number(s.min ?? 0);
    const max = Number(s.max ?? 24);
    return { min, max, passAt: passAt ?? Number(s.pass ?? s.pass_at ?? min + ((max - min) * 2) / 3) };
  }
  return { min: 0, max: 24, passAt: passAt ?? 16 };
}
