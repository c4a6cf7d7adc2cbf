// Extraction throughput over a corpus folder: pages/s and MB/s per format, and PDF speed relative to pdftotext.
// Run by hand: `bun run bench/extract.ts [DIR] [--seconds N]` (DIR holds a manifest.json, default the test corpus;
// N = minimum measuring time per format, default 2).
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
async function measure(docs: Doc[], run: (d: Doc) => Promise<unknown>): Promise<Figure> {
  const f: Figure = { runs: 0, ms: 0, pages: 0, bytes: 0 };
  while (f.ms < MIN_MS) {
    for (const d of docs) {
      const t0 = performance.now();
      await run(d);
      f.ms += performance.now() - t0;
      f.pages += d.pages ?? 0;
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
const pdfFigure: { ours?: Figure } = {};
for (const [format, docs] of byFormat) {
  const f = await measure(docs, (d) => extract(d.bytes, { filename: d.file }));
  if (format === "pdf") pdfFigure.ours = f;
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
  const viaWorker = await measure(pdfs, (d) => extractInWorker(d.bytes, { filename: d.file }));
  row([
    "pdf (in worker)",
    String(pdfs.length),
    String(viaWorker.runs),
    rate(viaWorker.pages, viaWorker.ms),
    rate(viaWorker.bytes / 1e6, viaWorker.ms),
    (viaWorker.ms / (viaWorker.runs * pdfs.length)).toFixed(1),
  ]);

  const pdftotext = Bun.which("pdftotext");
  if (!pdftotext) {
    console.log("\npdftotext not found on PATH: no comparison.");
  } else if (pdfFigure.ours) {
    const theirs = await measure(pdfs, async (d) => {
      const proc = Bun.spawn([pdftotext, "-q", path.join(CORPUS, d.file), "-"], { stdout: "pipe", stderr: "ignore" });
      await new Response(proc.stdout).arrayBuffer();
      await proc.exited;
    });
    const oursRate = pdfFigure.ours.pages / pdfFigure.ours.ms;
    const theirRate = theirs.pages / theirs.ms;
    console.log(`\npdftotext (process per file): ${rate(theirs.pages, theirs.ms)} pages/s`);
    console.log(`unpdf in-process / pdftotext: ${(oursRate / theirRate).toFixed(2)}x`);
  }
}
