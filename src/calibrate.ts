// Agreement with human graders through a running server: upload each graded document (presigned flow), run it through a
// workflow, poll, and measure with src/engine/agreement.ts. Shared by `assay calibrate` and bench/quality.ts.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import Papa from "papaparse";
import { type Agreement, type AgreementOptions, agreement, formatAgreement, type GradedItem } from "./engine/agreement";
import { extract } from "./extract";

/** A document with its human grade. */
export interface GradedDocument {
  /** The filename the server is told (its extension picks the extractor). */
  name: string;
  bytes: Uint8Array;
  human: number;
  /** Human per-criterion scores by criterion title (matched to the engine's titles in any case). */
  humanCriteria?: Record<string, number>;
}

/** A folder or CSV that cannot be read as a graded set: the caller's mistake (exit 2). */
export class GradedFolderError extends Error {}

/** A JSON object the API answered; callers read the fields they asked for. */
// biome-ignore lint/suspicious/noExplicitAny: the API's answers are JSON whose shape each caller knows
type ApiObject = Record<string, any>;

/** A JSON API client for /v1 with a bearer token; a non-2xx answer throws with the method, path and body. */
export class AssayApi {
  constructor(
    readonly base: string,
    private readonly token: string | null,
  ) {}

  async call(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiObject> {
    const h: Record<string, string> = { ...headers };
    if (this.token) h.authorization = `Bearer ${this.token}`;
    let payload: FormData | string | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      h["content-type"] = "application/json";
      payload = JSON.stringify(body);
    }
    const res = await fetch(this.base + url, { method, headers: h, body: payload });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${url}: HTTP ${res.status} ${text}`);
    return text ? (JSON.parse(text) as ApiObject) : {};
  }

  withToken(token: string): AssayApi {
    return new AssayApi(this.base, token);
  }
}

interface RunOutput {
  score: number;
  verdict: GradedItem["verdict"];
  criteria: { title: string; score: number; max_score: number }[];
}

/** Uploads one document (POST /documents, PUT to the signed URL, complete), runs the workflow on it and waits for the output. */
async function runDocument(
  api: AssayApi,
  workflowId: string,
  doc: { name: string; bytes: Uint8Array },
  pollMs = 50,
  timeoutMs = 600_000,
): Promise<RunOutput> {
  const created = await api.call("POST", "/documents", { filename: doc.name });
  const put = await fetch(created.upload_url as string, {
    method: "PUT",
    body: doc.bytes,
    headers: { "content-type": (created.upload_content_type as string | undefined) ?? "application/octet-stream" },
  });
  if (!put.ok) throw new Error(`upload of ${doc.name}: HTTP ${put.status} ${await put.text()}`);
  await api.call("POST", `/documents/${created.id}/complete`);
  const run = await api.call("POST", `/workflows/${workflowId}/runs`, { input_documents: [created.id] }, { "idempotency-key": crypto.randomUUID() });
  const started = Date.now();
  for (;;) {
    const r = await api.call("GET", `/runs/${run.id}`);
    if (r.status === "succeeded") {
      const out = r.output as Partial<RunOutput> | null;
      if (!out || typeof out.score !== "number" || typeof out.verdict !== "string") {
        throw new Error(`run ${run.id} for ${doc.name}: the output is not a standard evaluation (does the workflow have an output_schema?)`);
      }
      return { score: out.score, verdict: out.verdict, criteria: out.criteria ?? [] };
    }
    if (r.status === "failed" || r.status === "canceled" || r.status === "refunded") {
      throw new Error(`run ${run.id} for ${doc.name} ${r.status}: ${r.error?.message ?? JSON.stringify(r.error ?? null)}`);
    }
    if (Date.now() - started > timeoutMs) throw new Error(`run ${run.id} for ${doc.name} did not finish in ${timeoutMs / 1000} s`);
    await Bun.sleep(pollMs);
  }
}

/** Every document through the workflow, `concurrency` at a time; the items agreement() measures, in the documents' order. */
export async function gradeThroughServer(api: AssayApi, workflowId: string, docs: GradedDocument[], concurrency = 2): Promise<GradedItem[]> {
  const items = new Array<GradedItem>(docs.length);
  let next = 0;
  const worker = async () => {
    while (next < docs.length) {
      const i = next++;
      const doc = docs[i];
      const [out, words] = await Promise.all([runDocument(api, workflowId, doc), wordCount(doc)]);
      items[i] = { human: doc.human, score: out.score, verdict: out.verdict, criteria: out.criteria, humanCriteria: doc.humanCriteria, words };
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, docs.length)) }, worker));
  return items;
}

/** Words in the document as the server's extractors read it (the word-count baseline). */
async function wordCount(doc: GradedDocument): Promise<number> {
  const content = await extract(doc.bytes, { filename: doc.name });
  return content.text.split(/\s+/).filter(Boolean).length;
}

export interface Measured {
  result: Agreement;
  /** The figures as text lines, then one line per goal. */
  report: string;
}

/** The agreement figures, and whether the issue-14 goals are met. */
export function measure(items: GradedItem[], scale: AgreementOptions): Measured {
  const result = agreement(items, scale);
  const goals = [
    ["QWK ≥ 0.70", result.qwk >= 0.7],
    [`Spearman above the word-count baseline (${result.wordCountSpearman?.toFixed(3) ?? "n/a"})`, result.spearman > (result.wordCountSpearman ?? 1)],
    ["verdict agreement ≥ 85 %", result.verdictAgreement >= 0.85],
  ] as const;
  const report = [formatAgreement(result, scale), ...goals.map(([goal, met]) => `goal ${goal}: ${met ? "met" : "NOT met"}`)].join("\n");
  return { result, report };
}

// ---------------------------------------------------------------------------
// A graded folder: documents plus scores.csv (docs/quality.md "Check Assay on your own graded work")

const SCORES_FILE = "scores.csv";
const RESERVED = new Set(["file", "score", "max", "min", "pass"]);

/** Reads DIR/scores.csv and the documents it names. Throws GradedFolderError naming the problem. */
export function readGradedFolder(dir: string): { docs: GradedDocument[]; scale: AgreementOptions } {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new GradedFolderError(`${dir} is not a folder`);
  const csvPath = path.join(dir, SCORES_FILE);
  if (!existsSync(csvPath)) {
    const listed = readdirSync(dir).filter((f) => f.endsWith(".csv"));
    throw new GradedFolderError(`${dir} holds no ${SCORES_FILE}${listed.length ? ` (found ${listed.join(", ")}: name it ${SCORES_FILE})` : ""}`);
  }
  // A spreadsheet saved as CSV in many locales separates fields with ";" and writes decimals with a comma ("3,5").
  const parsed = Papa.parse<string[]>(
    readFileSync(csvPath, "utf8")
      .replace(/^\uFEFF/, "")
      .trimEnd(),
    {
      delimitersToGuess: [",", ";", "\t"],
    },
  );
  const rows = parsed.data;
  const decimalComma = parsed.meta.delimiter !== ",";
  if (rows.length < 2) throw new GradedFolderError(`${SCORES_FILE} needs a header line and at least one graded document`);
  const header = rows[0].map((h) => h.trim());
  const col = (name: string) => header.findIndex((h) => h.toLowerCase() === name);
  const fileCol = col("file");
  const scoreCol = col("score");
  if (fileCol < 0 || scoreCol < 0)
    throw new GradedFolderError(`${SCORES_FILE}: the header must name the columns file and score (it has ${header.join(", ")})`);
  const criterionCols = header.map((h, i) => [h, i] as const).filter(([h]) => h !== "" && !RESERVED.has(h.toLowerCase()));

  const num = (raw: string | undefined, line: number, what: string): number | undefined => {
    const s = (raw ?? "").trim();
    if (s === "") return undefined;
    // "85%" is 85 (the scale's max says what it is out of).
    const n = Number((decimalComma ? s.replace(",", ".") : s).replace(/\s*%$/, ""));
    if (!Number.isFinite(n)) throw new GradedFolderError(`${SCORES_FILE} line ${line}: ${what} "${s}" is not a number`);
    return n;
  };
  const docs: GradedDocument[] = [];
  const scaleValues: Record<"min" | "max" | "pass", number[]> = { min: [], max: [], pass: [] };
  for (let r = 1; r < rows.length; r++) {
    const row = rows[r];
    const line = r + 1;
    if (row.every((c) => c.trim() === "")) continue;
    const file = (row[fileCol] ?? "").trim();
    if (!file) throw new GradedFolderError(`${SCORES_FILE} line ${line}: no file`);
    const full = path.resolve(dir, file);
    if (!full.startsWith(path.resolve(dir) + path.sep)) throw new GradedFolderError(`${SCORES_FILE} line ${line}: ${file} is outside the folder`);
    if (!existsSync(full)) throw new GradedFolderError(`${SCORES_FILE} line ${line}: ${file} does not exist in ${dir}`);
    const human = num(row[scoreCol], line, "score");
    if (human === undefined) throw new GradedFolderError(`${SCORES_FILE} line ${line}: no score for ${file}`);
    for (const k of ["min", "max", "pass"] as const) {
      const i = col(k);
      const v = i >= 0 ? num(row[i], line, k) : undefined;
      if (v !== undefined) scaleValues[k].push(v);
    }
    const humanCriteria: Record<string, number> = {};
    for (const [title, i] of criterionCols) {
      const v = num(row[i], line, title);
      if (v !== undefined) humanCriteria[title] = v;
    }
    docs.push({
      name: path.basename(file),
      bytes: new Uint8Array(readFileSync(full)),
      human,
      humanCriteria: Object.keys(humanCriteria).length ? humanCriteria : undefined,
    });
  }
  if (docs.length < 2) throw new GradedFolderError(`${SCORES_FILE}: at least two graded documents are needed to measure agreement`);
  const one = (k: "min" | "max" | "pass", fallback: number): number => {
    const vs = [...new Set(scaleValues[k])];
    if (vs.length > 1) throw new GradedFolderError(`${SCORES_FILE}: the ${k} column must hold the same value on every row (found ${vs.join(", ")})`);
    return vs[0] ?? fallback;
  };
  const min = one("min", 0);
  // Without a max column the scale's top is the best grade given: state it when the set has no top mark.
  const max = one("max", Math.max(...docs.map((d) => d.human)));
  if (max <= min) throw new GradedFolderError(`${SCORES_FILE}: the scale's max (${max}) must be above its min (${min})`);
  const passAt = one("pass", min + ((max - min) * 2) / 3);
  return { docs, scale: { min, max, passAt } };
}
