// Extraction throughput over a corpus folder: pages/s and MB/s per format; then PDF in-process, through the worker
// pool (one document at a time, and one per core), and pdftotext, with pages per CPU-second (less distorted than
// wall time by other processes on the machine) and the ratios issue 13.3 sets goals for.
// Run by hand: `bun run bench/extract.ts [DIR] [--seconds N]` (DIR holds a manifest.json, default the test corpus;
// N = minimum measuring time per format, default 2).
import os, { availableParallelism } from "node:os";
import path from "node:path";
import { extract, extractInWorker } from "../src/extract/index.ts";

const secondsArg = process.argv.indexOf("--seconds");
const dirArg = process.argv.slice(2).find((a, i, all) => !a.startsWith("--") && all[i - 1] !== "--seconds");
const CORPUS = path.resolve(dirArg ?? path.join(import.meta.dir, "../test/fixtures/corpus"));
const MIN_MS = (secondsArg > 0 ? Number(process.argv[secondsArg + 1]) : 2) * 1000;

interface Doc {
  file: string;
  bytes: Uint8Array;
  pages: number | null;
}

interface Figure {
  runs: number;
  files: number;
  ms: number;
  pages: number;
  bytes: number;
}

const manifest: Array<{ file: string; format: string; expect?: string }> = await Bun.file(path.join(CORPUS, "manifest.json")).json();
const byFormat = new Map<string, Doc[]>();
for (const entry of manifest) {
  if (entry.expect === "error") continue;
  const bytes = new Uint8Array(await Bun.file(path.join(CORPUS, entry.file)).arrayBuffer());
  // Warm-up: loads the format's library and gives the page count.
  const doc = await extract(bytes, { filename: entry.file });
  const list = byFormat.get(entry.format) ?? [];
  list.push({ file: entry.file, bytes, pages: doc.page_count });
  byFormat.set(entry.format, list);
}

/** Repeats whole passes over the documents until at least MIN_MS has been measured. */
async function measure(docs: Doc[], run: (d: Doc) => Promise<unknown>, minMs = MIN_MS): Promise<Figure> {
  const f: Figure = { runs: 0, files: 0, ms: 0, pages: 0, bytes: 0 };
  while (f.ms < minMs) {
    for (const d of docs) {
      const t0 = performance.now();
      await run(d);
      f.ms += performance.now() - t0;
      f.pages += d.pages ?? 0;
      f.files++;
      f.bytes += d.bytes.length;
    }
    f.runs++;
  }
  return f;
}

const rate = (n: number, ms: number) => (n / (ms / 1000)).toFixed(1);
const row = (cols: string[]) => console.log(cols.map((c, i) => (i === 0 ? c.padEnd(22) : c.padStart(12))).join(""));

console.log(`Extraction throughput, in-process, warm (corpus: ${CORPUS}, >= ${MIN_MS / 1000}s per format)\n`);
row(["format", "files", "passes", "pages/s", "MB/s", "ms/file"]);
for (const [format, docs] of byFormat) {
  const f = await measure(docs, (d) => extract(d.bytes, { filename: d.file }));
  const paged = docs.some((d) => d.pages !== null);
  row([
    format,
    String(docs.length),
    String(f.runs),
    paged ? rate(f.pages, f.ms) : "-",
    rate(f.bytes / 1e6, f.ms),
    (f.ms / (f.runs * docs.length)).toFixed(1),
  ]);
}

const pdfs = byFormat.get("pdf") ?? [];
if (pdfs.length > 0) {
  // The pool as the server uses it (issue 13.3). Every worker is warmed first (PDFium compiled, JIT warm), as a
  // server's pool is after its first documents.
  const cores = availableParallelism();
  await Promise.all(Array.from({ length: cores }, () => measure(pdfs, (d) => extractInWorker(d.bytes, { filename: d.file }))));
  // Other processes share the machine: in-process and pool take turns three times, and each keeps its best turn.
  let inProcess: Figure & { cpuMs: number } = { runs: 0, files: 0, ms: 1, pages: 0, bytes: 0, cpuMs: 1 };
  let viaPool = inProcess;
  const best = (a: Figure, b: Figure) => (a.pages / a.ms >= b.pages / b.ms ? a : b);
  for (let turn = 0; turn < 3; turn++) {
    inProcess = best(inProcess, await measureCpu(() => measure(pdfs, (d) => extract(d.bytes, { filename: d.file })))) as typeof inProcess;
    viaPool = best(viaPool, await measureCpu(() => measure(pdfs, (d) => extractInWorker(d.bytes, { filename: d.file })))) as typeof viaPool;
  }
  // All cores busy: one caller per core, each working through the documents.
  const parallel = await measureCpu(async () => {
    const t0 = performance.now();
    const each = await Promise.all(Array.from({ length: cores }, () => measure(pdfs, (d) => extractInWorker(d.bytes, { filename: d.file }))));
    const files = sum(each.map((f) => f.files));
    return { runs: each[0].runs, files, ms: performance.now() - t0, pages: sum(each.map((f) => f.pages)), bytes: sum(each.map((f) => f.bytes)) };
  });
  const theirs = pdftotextFigure();
  console.log(`\nPDF (${pdfs.length} files, ${sum(pdfs.map((d) => d.pages ?? 0))} pages), ${cores} cores: ${os.cpus()[0]?.model ?? "cpu"}`);
  row(["", "pages/s", "pages/cpu-s", "ms/file"]);
  // ms/file: wall time per document for one caller (with N callers, each waits N times as long in total).
  const line = (name: string, f: Figure & { cpuMs: number }, callers = 1) =>
    row([name, rate(f.pages, f.ms), rate(f.pages, f.cpuMs), ((f.ms * callers) / f.files).toFixed(1)]);
  line("in-process", inProcess);
  line("pool, 1 at a time", viaPool);
  line(`pool, ${cores} at a time`, parallel, cores);
  const t = await theirs;
  if (t) line("pdftotext (1 process)", t);
  const perCore = parallel.pages / parallel.ms / cores;
  console.log(`\npool / in-process (1 at a time): ${(viaPool.pages / viaPool.ms / (inProcess.pages / inProcess.ms)).toFixed(2)}x  (goal >= 0.9)`);
  console.log(`pool per core (${cores} at a time) / in-process: ${(perCore / (inProcess.pages / inProcess.ms)).toFixed(2)}x`);
  if (t) {
    console.log(`pool per core / pdftotext: ${(perCore / (t.pages / t.ms)).toFixed(2)}x  (goal >= 0.5)`);
    console.log(`pool / pdftotext in pages per CPU-second: ${(parallel.pages / parallel.cpuMs / (t.pages / t.cpuMs)).toFixed(2)}x`);
  } else console.log("pdftotext not found on PATH (Debian: apt-get install poppler-utils): no comparison.");
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

/** The figure plus the CPU time this process (every thread, the workers included) spent meanwhile. */
async function measureCpu(run: () => Promise<Figure>): Promise<Figure & { cpuMs: number }> {
  const before = process.cpuUsage();
  const f = await run();
  const used = process.cpuUsage(before);
  return { ...f, cpuMs: (used.user + used.system) / 1000 };
}

/** pdftotext, one process per file as a server would run it; its CPU time from each child's resource usage. */
async function pdftotextFigure(): Promise<(Figure & { cpuMs: number }) | null> {
  const pdftotext = Bun.which("pdftotext");
  if (!pdftotext) return null;
  let cpuMs = 0;
  const f = await measure(pdfs, async (d) => {
    const proc = Bun.spawn([pdftotext, "-q", path.join(CORPUS, d.file), "-"], { stdout: "pipe", stderr: "ignore" });
    await new Response(proc.stdout).arrayBuffer();
    await proc.exited;
    const usage = proc.resourceUsage();
    if (usage) cpuMs += Number(usage.cpuTime.user + usage.cpuTime.system) / 1000;
  });
  return { ...f, cpuMs };
}
