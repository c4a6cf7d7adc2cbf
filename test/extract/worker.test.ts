// extractInWorker: same result as in-process, typed errors cross the thread, and a slow extraction is cut off.
import { describe, expect, test } from "bun:test";
import { ExtractError, extract, extractInWorker } from "../../src/extract/index.ts";
import { corpusBytes, makePdf, textPage } from "./helpers.ts";

describe("extractInWorker", () => {
  test("returns exactly what in-process extraction returns", async () => {
    for (const file of ["pdf/tika-testPDF.pdf", "docx/tika-testWORD.docx", "xls/tika-testEXCEL.xls"]) {
      const bytes = await corpusBytes(file);
      const hints = { filename: file.split("/").pop() };
      expect(await extractInWorker(bytes, hints)).toEqual(await extract(bytes, hints));
    }
  });

  test("transfer moves the bytes to the worker; without it the caller's bytes stay as they were", async () => {
    const expected = await extract(await corpusBytes("pdf/tika-testPDF.pdf"), {});
    const kept = await corpusBytes("pdf/tika-testPDF.pdf");
    const size = kept.byteLength;
    expect(await extractInWorker(kept, {})).toEqual(expected);
    expect(kept.byteLength).toBe(size);
    const moved = new Uint8Array(kept); // a buffer of its own
    expect(await extractInWorker(moved, {}, { transfer: true })).toEqual(expected);
    expect(moved.byteLength).toBe(0);
    // A view on part of a larger buffer is copied even when transfer is asked: moving would empty the whole buffer.
    const whole = new Uint8Array(size + 16);
    whole.set(kept, 16);
    const part = whole.subarray(16);
    expect(await extractInWorker(part, {}, { transfer: true })).toEqual(expected);
    expect(part.byteLength).toBe(size);
  });

  test("an ExtractError keeps its code and message", async () => {
    const err = await extractInWorker(await corpusBytes("bad/tika-testUnicodePassword.pdf"), { filename: "a.pdf" }).catch((e) => e);
    expect(err).toBeInstanceOf(ExtractError);
    expect(err.code).toBe("unprocessable_document");
    expect(err.message).toBe("the PDF is password-protected");
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    expect((await extractInWorker(png, { filename: "a.png" }).catch((e) => e)).code).toBe("unsupported_media_type");
  });

  test("several calls at once all complete", async () => {
    const bytes = await corpusBytes("pptx/tika-testPPT.pptx");
    const docs = await Promise.all([1, 2, 3, 4].map(() => extractInWorker(bytes, { filename: "a.pptx" })));
    expect(docs.map((d) => d.page_count)).toEqual([3, 3, 3, 3]);
  });

  test("an extraction over its time limit is terminated with a clean error", async () => {
    // 4000 pages of 150 short words each (~14 MB): PDFium needs seconds for it, far past the 0.5 s limit.
    const words = (i: number) => Array.from({ length: 150 }, (_, w) => `page ${i} word ${w}`).join(" ");
    const slow = makePdf(Array.from({ length: 4000 }, (_, i) => textPage(words(i))));
    const started = performance.now();
    const err = await extractInWorker(slow, { filename: "slow.pdf" }, { timeoutMs: 500 }).catch((e) => e);
    const elapsed = performance.now() - started;
    expect(err).toBeInstanceOf(ExtractError);
    expect(err.code).toBe("unprocessable_document");
    expect(err.message).toBe("extraction timed out");
    expect(elapsed).toBeGreaterThanOrEqual(490);
    expect(elapsed).toBeLessThan(1500);
    // The worker slot is free again: the next extraction runs normally.
    const doc = await extractInWorker(makePdf([textPage("after the timeout")]), {});
    expect(doc.text).toBe("after the timeout");
  });
});
