// chunkDocument: sizes, boundaries, overlap, sections and table rows, and exact offsets into the text.
import { describe, expect, test } from "bun:test";
import type { ExtractedDocument } from "../../src/extract/index.ts";
import { type Chunk, chunkDocument } from "../../src/retrieval/index.ts";
import { textDoc } from "./helpers.ts";

function expectExactSlices(doc: ExtractedDocument, chunks: Chunk[]) {
  for (const c of chunks) {
    expect(doc.text.slice(c.startOffset, c.startOffset + c.text.length)).toBe(c.text);
    expect(c.text.trim().length).toBeGreaterThan(0);
    expect(c.text.isWellFormed()).toBe(true);
  }
}

const sentence = (i: number) => `Sentence number ${i} says something about the rubric and its criteria.`;
const paragraph = (from: number, n: number) => Array.from({ length: n }, (_, i) => sentence(from + i)).join(" ");

describe("prose", () => {
  const prose = [paragraph(0, 12), paragraph(100, 9), paragraph(200, 15)].join("\n\n");
  const doc = textDoc([{ text: prose }]);
  const chunks = chunkDocument(doc);

  test("chunks are about the target size and end at sentence or paragraph ends", () => {
    expectExactSlices(doc, chunks);
    expect(chunks.length).toBeGreaterThan(3);
    for (const c of chunks.slice(0, -1)) {
      expect(c.text.length).toBeLessThanOrEqual(800);
      expect(c.text.length).toBeGreaterThanOrEqual(400);
      expect(c.text.endsWith(".")).toBe(true);
    }
    expect(chunks.at(-1)?.text.length).toBeLessThanOrEqual(1000);
  });

  test("consecutive chunks overlap by at most the overlap, starting at a sentence", () => {
    for (let i = 1; i < chunks.length; i++) {
      const prevEnd = chunks[i - 1].startOffset + chunks[i - 1].text.length;
      const shared = prevEnd - chunks[i].startOffset;
      expect(shared).toBeGreaterThan(0);
      expect(shared).toBeLessThanOrEqual(100);
      expect(chunks[i].text.startsWith("Sentence")).toBe(true);
    }
  });

  test("overlap can be turned off and the target changed", () => {
    const small = chunkDocument(doc, { targetChars: 200, overlapChars: 0 });
    expectExactSlices(doc, small);
    for (const c of small.slice(0, -1)) expect(c.text.length).toBeLessThanOrEqual(200);
    for (let i = 1; i < small.length; i++) {
      expect(small[i].startOffset).toBeGreaterThanOrEqual(small[i - 1].startOffset + small[i - 1].text.length);
    }
  });

  test("a short tail is folded into the last chunk instead of left as a fragment", () => {
    const d = textDoc([{ text: `${"word ".repeat(170)}tail.` }]); // 855 characters
    expect(chunkDocument(d).map((c) => c.text.length)).toEqual([d.text.length]);
  });
});

describe("sections", () => {
  test("a chunk never spans two pages, and keeps its page", () => {
    const doc = textDoc([
      { text: "Page one is short.", location: { page: 1 } },
      { text: "Page two is short too.", location: { page: 2 } },
    ]);
    const chunks = chunkDocument(doc);
    expect(chunks.map((c) => [c.text, c.location])).toEqual([
      ["Page one is short.", { page: 1 }],
      ["Page two is short too.", { page: 2 }],
    ]);
    expectExactSlices(doc, chunks);
  });

  test("repeated section text gets each its own offset", () => {
    const doc = textDoc([
      { text: "Running header", location: { page: 1 } },
      { text: "Running header", location: { page: 2 } },
    ]);
    expect(chunkDocument(doc).map((c) => [c.startOffset, c.location.page])).toEqual([
      [0, 1],
      [16, 2],
    ]);
  });

  test("offsets are found in the text even when sections are joined differently", () => {
    const sections = [
      { location: { slide: 1 }, text: "  First slide  " },
      { location: { slide: 2 }, text: "Second slide" },
    ];
    const doc: ExtractedDocument = { format: "pptx", mime_type: "x", text: "intro\n\n\n  First slide  \n---\nSecond slide", page_count: 2, sections };
    const chunks = chunkDocument(doc);
    expect(chunks.map((c) => c.text)).toEqual(["First slide", "Second slide"]);
    expectExactSlices(doc, chunks);
  });

  test("whitespace-only sections and text make no chunks", () => {
    const doc = textDoc([{ text: "   \n\t " }, { text: "\n\nreal words\n\n" }, { text: "" }]);
    expect(chunkDocument(doc).map((c) => c.text)).toEqual(["real words"]);
  });

  test("text without spaces is cut at the target without splitting characters", () => {
    const doc = textDoc([{ text: "海地共和国😀".repeat(500) }]);
    const chunks = chunkDocument(doc);
    expect(chunks.length).toBeGreaterThan(3);
    expectExactSlices(doc, chunks);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(1000);
  });
});

describe("tables", () => {
  const rows = Array.from({ length: 120 }, (_, i) => `${i + 1} | Product ${i + 1} | Widget | ${(i * 7) % 13} units`);
  const doc = textDoc([{ text: rows.join("\n"), location: { sheet: "Stock" } }], "xlsx");
  const chunks = chunkDocument(doc);

  test("rows are kept whole and none is repeated or lost", () => {
    expectExactSlices(doc, chunks);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.flatMap((c) => c.text.split("\n"))).toEqual(rows);
    for (const c of chunks) {
      expect(c.text.length).toBeLessThanOrEqual(800);
      expect(c.location).toEqual({ sheet: "Stock" });
    }
  });

  test("a row longer than two chunks is cut at cell boundaries", () => {
    const wide = Array.from({ length: 200 }, (_, i) => `cell${i}`).join(" | ");
    const d = textDoc([{ text: `short | row\n${wide}\nlast | row`, location: { row: 1 } }], "csv");
    const cs = chunkDocument(d);
    expectExactSlices(d, cs);
    expect(
      cs
        .map((c) => c.text)
        .join(" | ")
        .replace(/\n/g, " | "),
    ).toBe(`short | row | ${wide} | last | row`);
    for (const c of cs) expect(c.text.length).toBeLessThanOrEqual(800);
    expect(cs.slice(1, -1).every((c) => /^cell\d+/.test(c.text) && /cell\d+$/.test(c.text))).toBe(true);
  });

  test("a row under two chunk lengths stays in one piece", () => {
    const row = Array.from({ length: 150 }, (_, i) => `v${i}`).join(" | ");
    expect(row.length).toBeGreaterThan(800);
    const d = textDoc([{ text: `a | b\n${row}\nc | d` }], "csv");
    expect(chunkDocument(d).map((c) => c.text)).toEqual(["a | b", row, "c | d"]);
  });
});
