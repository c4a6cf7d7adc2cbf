// Extraction within bounds: a PDF of 100,000 pages is refused with a message naming the limit, fast, without taking
// the process's memory (peak RSS measured in a child process), and the API answers it as 422, never a dropped reply.
import { expect, test } from "bun:test";
import path from "node:path";
import { harness, signUp, tempDir } from "../helpers";

/** A valid PDF of `pages` empty pages, written as a real PDF writer would (objects, a page tree, an xref table). */
function manyPagesPdf(pages: number): Uint8Array {
  const parts: string[] = ["%PDF-1.4\n"];
  const offsets: number[] = [];
  let length = parts[0].length;
  const add = (body: string) => {
    offsets.push(length);
    const obj = `${offsets.length} 0 obj\n${body}\nendobj\n`;
    parts.push(obj);
    length += obj.length;
  };
  add("<< /Type /Catalog /Pages 2 0 R >>");
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(" ");
  add(`<< /Type /Pages /Count ${pages} /Kids [${kids}] >>`);
  for (let i = 0; i < pages; i++) add("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 10 10] >>");
  const xref = [`xref\n0 ${offsets.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`)].join("");
  parts.push(xref, `trailer\n<< /Size ${offsets.length + 1} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`);
  return new TextEncoder().encode(parts.join(""));
}

test("a 100,000-page PDF is refused naming the page limit, in seconds, with peak memory under 300 MB", async () => {
  const file = path.join(tempDir("assay-pages-"), "pages.pdf");
  await Bun.write(file, manyPagesPdf(100_000));
  const worker = path.resolve(import.meta.dir, "../../src/extract/worker-client.ts");
  const script = `
    import { extractInWorker } from ${JSON.stringify(worker)};
    const bytes = new Uint8Array(await Bun.file(${JSON.stringify(file)}).arrayBuffer());
    const t0 = performance.now();
    let message = "";
    try { await extractInWorker(bytes, { filename: "pages.pdf" }); } catch (e) { message = e.code + ": " + e.message; }
    // VmHWM: this process's own peak resident memory (ru_maxrss would carry the spawning process's peak over exec).
    const hwm = /VmHWM:\\s+(\\d+) kB/.exec(await Bun.file("/proc/self/status").text());
    console.log(JSON.stringify({ message, ms: performance.now() - t0, maxRssMb: Number(hwm?.[1]) / 1024 }));
    process.exit(0);`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const result = JSON.parse((await new Response(child.stdout).text()).trim().split("\n").pop() ?? "{}");
  console.log(`100,000 pages: ${result.message} (${Math.round(result.ms)} ms, peak RSS ${Math.round(result.maxRssMb)} MB)`);
  expect(result.message).toBe("unprocessable_document: the PDF has 100000 pages; at most 5000 are read (split it into smaller files)");
  expect(result.maxRssMb).toBeLessThan(300);
  expect(result.ms).toBeLessThan(30_000);
}, 60_000);

test("through the API, complete answers 422 naming the limit", async () => {
  const h = await harness();
  const u = await signUp(h);
  const doc = await h.call("POST", "/v1/documents", { token: u.liveKey, body: { filename: "pages.pdf", mime_type: "application/pdf" } });
  const url = new URL(doc.body.upload_url);
  const put = await h.call("PUT", `${url.pathname}${url.search}`, { raw: manyPagesPdf(6_000), headers: { "content-type": "application/pdf" } });
  expect(put.status).toBe(200);
  const done = await h.call("POST", `/v1/documents/${doc.body.id}/complete`, { token: u.liveKey });
  expect(done.status).toBe(422);
  expect(done.body.error.code).toBe("unprocessable_document");
  expect(done.body.error.message).toContain("at most 5000");
}, 60_000);
