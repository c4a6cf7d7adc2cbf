// Agreement of the built-in local evaluator with human graders, through the real server (issue 14.2).
//   bun run bench/quality.ts DIR [--prompt TEXT] [--concurrency N]
// DIR holds essays.json ({scale, essays: [{id, human_score, traits, text}]}) and the rubric as rubric.md, or as
// rubric.<any format Assay reads> (rubric.docx, rubric.pdf …; --rubric FILE names another) (e.g. the ASAP set 7
// calibration folder; its texts are never copied into the repository). Starts `src/main.ts serve` on a temporary data
// dir with an admin, uploads the rubric as a reference document, creates a workflow, submits every essay as a run with
// the local evaluator, polls each to succeeded, then prints Spearman, QWK, verdict and per-criterion agreement, the
// word-count baseline, the best pass line (src/engine/agreement.ts) and, where the essays carry each rater's score, the
// human ceiling: how often one rater agrees with the other.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { AssayApi, type GradedDocument, gradeThroughServer, measure } from "../src/calibrate";
import { quadraticWeightedKappa } from "../src/engine/agreement";
import { freePort, untilHealthy } from "../src/lib/ports";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { prompt: { type: "string" }, concurrency: { type: "string", default: "4" }, "pass-at": { type: "string" }, rubric: { type: "string" } },
});
const dir = positionals[0];
if (!dir) {
  console.error("usage: bun run bench/quality.ts DIR [--prompt TEXT] [--concurrency N] [--pass-at N] [--rubric FILE]");
  process.exit(2);
}

interface Essay {
  id: string | number;
  human_score: number;
  /** Each rater's own score (ASAP: two raters, each on half the final scale; the final score is their sum). */
  raters?: number[];
  traits?: Record<string, number[]>;
  text: string;
}
const set = JSON.parse(readFileSync(path.join(dir, "essays.json"), "utf8")) as { scale?: unknown; essays: Essay[] };
const rubricPath = values.rubric ?? findRubric(dir);
const rubric = readFileSync(rubricPath);
const rubricName = path.basename(rubricPath);
// The human scale: "scale" may be {min, max, pass}, [min, max] or absent; what is absent defaults as `assay calibrate`
// does (from 0 to the highest human score, passing two thirds of the way up).
const scale = readScale(set.scale, Math.max(...set.essays.map((e) => e.human_score)));

const root = path.resolve(import.meta.dir, "..");
const tmp = mkdtempSync(path.join(os.tmpdir(), "assay-quality-"));
const port = freePort();
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

const api = new AssayApi(base, null);

try {
  await waitHealthy();
  const session = (await api.call("POST", "/auth/login", { email, password })).token as string;
  const key = (await api.withToken(session).call("POST", "/keys", { name: "quality bench" })).token as string;
  const keyed = api.withToken(key);

  const form = new FormData();
  form.append("name", rubricName);
  // No content type: the server reads the format from the file's bytes and name, as for any upload.
  form.append("file", new File([rubric], rubricName));
  const ref = await keyed.call("POST", "/reference-documents", form);
  for (let i = 0; ; i++) {
    const r = await keyed.call("GET", `/reference-documents/${ref.id}`);
    if (r.status === "ready") break;
    if (r.status === "failed" || i > 600) throw new Error(`reference ${r.status}: ${r.failure_reason ?? "timed out"}`);
    await Bun.sleep(100);
  }
  const workflow = await keyed.call("POST", "/workflows", {
    product_code: "education",
    name: "Quality bench",
    reference_document_ids: [ref.id],
    output_format: "json",
    ...(values.prompt ? { user_prompt: values.prompt } : {}),
  });

  // The essays go through the same upload-run-measure code as `assay calibrate` (src/calibrate.ts).
  const docs: GradedDocument[] = set.essays.map((essay) => ({
    name: `essay-${essay.id}.txt`,
    bytes: new TextEncoder().encode(essay.text),
    human: essay.human_score,
    humanCriteria: essay.traits
      ? Object.fromEntries(Object.entries(essay.traits).map(([t, s]) => [t, s.reduce((a, b) => a + b, 0) / s.length]))
      : undefined,
  }));
  const started = performance.now();
  const items = await gradeThroughServer(keyed, workflow.id as string, docs, Math.max(1, Number(values.concurrency)));
  const seconds = (performance.now() - started) / 1000;
  console.log(`${set.essays.length} essays from ${dir} through the real server, local evaluator, in ${seconds.toFixed(1)} s`);
  console.log(measure(items, scale).report);
  const raters = ratersAgreement(set.essays);
  if (raters) console.log(raters);
} finally {
  server.kill();
  await server.exited;
  rmSync(tmp, { recursive: true, force: true });
}

/** DIR/rubric.md, else the one DIR/rubric.* (rubric.docx, rubric.pdf …); exits with a clear message otherwise. */
function findRubric(folder: string): string {
  const found = readdirSync(folder).filter((f) => /^rubric\.[a-z0-9]+$/i.test(f));
  const pick = found.includes("rubric.md") ? "rubric.md" : found.length === 1 ? found[0] : null;
  if (pick) return path.join(folder, pick);
  console.error(
    found.length
      ? `${folder} holds several rubrics (${found.join(", ")}): name one with --rubric FILE`
      : `${folder} has no rubric.md (or rubric.docx, rubric.pdf …)`,
  );
  process.exit(2);
}

async function waitHealthy(): Promise<void> {
  if (await untilHealthy(port, server, 30_000)) return;
  throw new Error(server.exitCode !== null ? `the server exited (${server.exitCode})` : "the server did not become healthy");
}

/**
 * The human ceiling, where each essay carries its raters' own scores: how often the first two raters agree with each
 * other on the verdict, and their QWK, each rater put on the final scale (× the number of raters when the final score
 * is their sum). An engine agreeing with the final score as often as one rater agrees with another is at human level.
 */
function ratersAgreement(essays: Essay[]): string | null {
  if (!essays.every((e) => e.raters && e.raters.length >= 2)) return null;
  // The final score is the raters' sum where most essays say so (ASAP set 8: a third rater settled some essays).
  const summed = essays.filter((e) => e.raters?.reduce((a, b) => a + b, 0) === e.human_score).length * 2 > essays.length;
  const onScale = (r: number, e: Essay) => (summed ? r * (e.raters?.length ?? 1) : r);
  const first = essays.map((e) => onScale(e.raters?.[0] ?? 0, e));
  const second = essays.map((e) => onScale(e.raters?.[1] ?? 0, e));
  const verdicts = first.filter((a, k) => a >= scale.passAt === second[k] >= scale.passAt).length / essays.length;
  const round = (xs: number[]) => xs.map((x) => Math.round(x));
  const qwk = quadraticWeightedKappa(round(first), round(second), scale.min, scale.max);
  return `human ceiling             rater against rater: verdict agreement ${(100 * verdicts).toFixed(1)} %, QWK ${qwk.toFixed(3)} (n ${essays.length})`;
}

function readScale(raw: unknown, highest: number): { min: number; max: number; passAt: number } {
  const given = values["pass-at"] ? Number(values["pass-at"]) : undefined;
  const s = (Array.isArray(raw) && raw.length === 2 ? { min: raw[0], max: raw[1] } : raw && typeof raw === "object" ? raw : {}) as Record<
    string,
    unknown
  >;
  const min = Number(s.min ?? 0);
  const max = Number(s.max ?? highest);
  return { min, max, passAt: given ?? Number(s.pass ?? s.pass_at ?? min + ((max - min) * 2) / 3) };
}
