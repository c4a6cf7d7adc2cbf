// Retrieval at scale (issue 13.5): top-10 query latency over reference documents totalling 50 MB of text.
//   bun run bench/retrieval.ts [--mb 50] [--docs 50] [--queries 300]
// The text is generated deterministically (a Zipf-distributed vocabulary of made-up words plus English function
// words, in sentences, paragraphs and pages), extracted as .txt and indexed through the real path
// (extract -> indexDocumentInBatches -> chunks + FTS5 triggers) into a database opened with the real migrations.
// Queries as the engine makes them (criteria of 8-30 words, short phrases, single common words), k = 10, over the
// whole 50 MB and over a 3-document workflow scope. Ceilings in the same run: the bare FTS5 MATCH ... ORDER BY rank
// LIMIT 10, without the scope filter, the join or the snippets, of the expression search() runs (common terms left
// out) and of the query's full expression (every term, as before issue 13.5). SQLite only: the ceilings are read on a
// connection of their own to the same file, with bun:sqlite's cached statements.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { closeDb, openDb, tx } from "../src/db/client.ts";
import { documents, workspaces } from "../src/db/schema.ts";
import { extract } from "../src/extract/index.ts";
import { indexDocumentInBatches, search } from "../src/retrieval/index.ts";
import { toMatchExpression } from "../src/retrieval/query.ts";
import { matchExpression } from "../src/retrieval/search.ts";

const { values } = parseArgs({
  options: { mb: { type: "string", default: "50" }, docs: { type: "string", default: "50" }, queries: { type: "string", default: "300" } },
});
const TOTAL_BYTES = Number(values.mb) * 1e6;
const DOCS = Number(values.docs);
const QUERIES = Number(values.queries);

// A small deterministic PRNG (mulberry32): the same corpus and queries on every machine.
let seed = 13_5;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)];

const SYLLABLES = "ka ri to men sa lo vi dra qua nel pho ter gus bia zen ulm cor fi tal mo ny ex ath ren sol".split(" ");
const VOCAB = Array.from({ length: 30_000 }, (_, i) => {
  let w = "";
  const n = 2 + (i % 3);
  for (let s = 0; s < n; s++) w += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
  return `${w}${i % 7 === 0 ? "s" : ""}`;
});
const FUNCTION_WORDS = "the of and to in a is that for it as with was on be by this are from or which an at not".split(" ");
// Zipf (s = 1.07) over the vocabulary: a few words everywhere, most rare, as in real text.
const cumulative: number[] = [];
let acc = 0;
for (let r = 1; r <= VOCAB.length; r++) {
  acc += 1 / r ** 1.07;
  cumulative.push(acc);
}
function zipfWord(): string {
  const x = random() * acc;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return VOCAB[lo];
}
function sentence(): string {
  const n = 8 + Math.floor(random() * 18);
  const words: string[] = [];
  for (let i = 0; i < n; i++) words.push(random() < 0.35 ? pick(FUNCTION_WORDS) : zipfWord());
  const s = words.join(" ");
  return `${s[0].toUpperCase()}${s.slice(1)}.`;
}
function documentText(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  let page = 1;
  while (size < bytes) {
    const para = Array.from({ length: 3 + Math.floor(random() * 6) }, sentence).join(" ");
    parts.push(para);
    size += para.length + 2;
    if (random() < 0.15) {
      parts.push(`Section ${page++}`); // a heading line now and then, as real documents have
      size += 12;
    }
  }
  return parts.join("\n\n");
}

const cpu = os.cpus();
const dir = mkdtempSync(path.join(os.tmpdir(), "assay-retrieval-bench-"));
const file = path.join(dir, "assay.db");
const db = await openDb(file);
const raw = new Database(file, { readonly: true });
const sqlite = raw.query<{ v: string }, []>("SELECT sqlite_version() AS v").get()?.v;
console.log(`machine: ${cpu.length} × ${cpu[0]?.model ?? "cpu"}, Bun ${Bun.version}, SQLite ${sqlite}`);
const now = Date.now();
await tx(db, (t) => t.insert(workspaces).values({ id: "ws_bench", name: "bench", createdAt: now }));

// Index: every document extracted as .txt and indexed the way the indexing worker does it.
const docIds: string[] = [];
const texts: string[] = [];
let indexMs = 0;
let chunkCount = 0;
let textBytes = 0;
for (let d = 0; d < DOCS; d++) {
  const id = `doc_bench${String(d).padStart(4, "0")}`;
  const text = documentText(TOTAL_BYTES / DOCS);
  texts.push(text);
  const bytes = new TextEncoder().encode(text);
  textBytes += bytes.length;
  await tx(db, (t) =>
    t.insert(documents).values({ id, workspaceId: "ws_bench", filename: `${id}.txt`, objectKey: `bench/${id}`, status: "uploaded", createdAt: now }),
  );
  const t0 = performance.now();
  const doc = await extract(bytes, { filename: `${id}.txt` });
  chunkCount += await indexDocumentInBatches(db, { workspaceId: "ws_bench", documentId: id, doc });
  indexMs += performance.now() - t0;
  docIds.push(id);
}
console.log(
  `indexed ${DOCS} documents, ${(textBytes / 1e6).toFixed(1)} MB of text, ${chunkCount} chunks in ${(indexMs / 1000).toFixed(1)} s (${(textBytes / 1e6 / (indexMs / 1000)).toFixed(2)} MB/s)\n`,
);

// Queries, as the engine makes them.
function criterionQuery(): string {
  // A rubric criterion: 8-30 words, partly words of the corpus, partly function words.
  return Array.from({ length: 8 + Math.floor(random() * 23) }, () => (random() < 0.3 ? pick(FUNCTION_WORDS) : zipfWord())).join(" ");
}
function phraseQuery(): string {
  // 2-4 consecutive words quoted from a document: the exact-phrase path (50 candidates ranked).
  const t = pick(texts);
  const at = Math.floor(random() * (t.length - 200));
  const words = t
    .slice(at, at + 200)
    .split(/\s+/)
    .slice(1, 1 + 2 + Math.floor(random() * 3));
  return words.join(" ").replace(/[.]/g, "");
}
const KINDS: Record<string, () => string> = {
  "criterion (8-30 words)": criterionQuery,
  "phrase (2-4 words)": phraseQuery,
  "one common word": () => VOCAB[Math.floor(random() * 20)],
};

const bare = raw.query<{ id: number }, [string]>("SELECT rowid AS id FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT 10");
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const ms = (x: number) => x.toFixed(2).padStart(7);

console.log(`${QUERIES} queries per kind, k = 10; latency in ms (p50 / p99 / max)`);
console.log(
  `${"query kind".padEnd(26)}${"scope".padEnd(12)}${"search()".padStart(27)}${"search() CPU".padStart(30)}${"bare FTS5, same terms".padStart(30)}${"bare FTS5, all terms".padStart(30)}`,
);
let worstP99 = 0;
let worstCpuP99 = 0; // CPU time of the query: what other processes on the machine distort least
for (const [kind, make] of Object.entries(KINDS)) {
  const queries = Array.from({ length: QUERIES }, make);
  for (const [scopeName, scope] of [
    [`all ${values.mb} MB`, docIds],
    ["3 documents", docIds.slice(0, 3)],
  ] as const) {
    // Warm: the statements prepared and the index pages in the cache, as on a server that has been serving.
    for (const q of queries.slice(0, 20)) await search(db, { workspaceId: "ws_bench", documentIds: scope, query: q, k: 10 });
    const ours: number[] = [];
    const cpuMs: number[] = [];
    const same: number[] = [];
    const full: number[] = [];
    for (const q of queries) {
      const c0 = process.cpuUsage();
      let t0 = performance.now();
      await search(db, { workspaceId: "ws_bench", documentIds: scope, query: q, k: 10 });
      ours.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpuMs.push((c.user + c.system) / 1000);
      const pruned = await matchExpression(db, q);
      t0 = performance.now();
      if (pruned) bare.all(pruned);
      same.push(performance.now() - t0);
      const all = toMatchExpression(q);
      t0 = performance.now();
      if (all) bare.all(all);
      full.push(performance.now() - t0);
    }
    for (const xs of [ours, cpuMs, same, full]) xs.sort((a, b) => a - b);
    worstCpuP99 = Math.max(worstCpuP99, pct(cpuMs, 99));
    const cols = (xs: number[]) => `${ms(pct(xs, 50))} /${ms(pct(xs, 99))} /${ms(xs[xs.length - 1])}`;
    worstP99 = Math.max(worstP99, pct(ours, 99));
    console.log(`${kind.padEnd(26)}${scopeName.padEnd(12)}${cols(ours)}   ${cols(cpuMs)}   ${cols(same)}   ${cols(full)}`);
  }
}
console.log(`\nworst p99: ${worstP99.toFixed(2)} ms wall, ${worstCpuP99.toFixed(2)} ms CPU (goal < 20 ms)`);
raw.close();
await closeDb(db);
rmSync(dir, { recursive: true, force: true }); // ~90 MB of database
