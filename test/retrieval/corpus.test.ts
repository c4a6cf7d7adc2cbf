// Every corpus document: chunks quote the text exactly, and each expected phrase is found in the top 3 hits.
import { beforeAll, describe, expect, test } from "bun:test";
import type { Db } from "../../src/db/client.ts";
import type { ExtractedDocument } from "../../src/extract/index.ts";
import { chunkDocument, indexDocument, search } from "../../src/retrieval/index.ts";
import { addDocument, addWorkspace, collapse, extractCorpus, freshDb, manifest } from "./helpers.ts";

const entries = manifest.filter((e) => e.expect !== "error");
const docs = new Map<string, ExtractedDocument>();
const docId = (file: string) => `doc_${file.replace(/\W/g, "_")}`;
let db: Db;

beforeAll(async () => {
  db = await freshDb();
  await addWorkspace(db, "ws_corpus");
  for (const e of entries) {
    const doc = await extractCorpus(e.file);
    docs.set(e.file, doc);
    await addDocument(db, "ws_corpus", docId(e.file));
    await indexDocument(db, { workspaceId: "ws_corpus", documentId: docId(e.file), doc });
  }
});

describe("chunks are exact slices of the document text, within one section", () => {
  for (const e of entries) {
    test(e.file, () => {
      const doc = docs.get(e.file) as ExtractedDocument;
      const chunks = chunkDocument(doc);
      expect(chunks.length).toBeGreaterThan(0);
      for (const [i, c] of chunks.entries()) {
        expect(c.ord).toBe(i);
        expect(c.text.trim()).toBe(c.text);
        expect(c.text.length).toBeGreaterThan(0);
        expect(doc.text.slice(c.startOffset, c.startOffset + c.text.length)).toBe(c.text);
        // No chunk spans two sections: its text sits inside one section with that section's location.
        expect(doc.sections.some((s) => s.text.includes(c.text) && JSON.stringify(s.location) === JSON.stringify(c.location))).toBe(true);
      }
      // Nothing is lost: every word of the text is in some chunk.
      const covered = new Uint8Array(doc.text.length);
      for (const c of chunks) covered.fill(1, c.startOffset, c.startOffset + c.text.length);
      let uncovered = 0;
      for (let i = 0; i < doc.text.length; i++) if (covered[i] === 0 && /\S/.test(doc.text[i])) uncovered++;
      expect(uncovered).toBe(0);
    });
  }
});

describe("each expected phrase is in one of the top 3 hits for that phrase", () => {
  for (const e of entries) {
    test(e.file, async () => {
      const misses: string[] = [];
      for (const phrase of e.expected_phrases ?? []) {
        const hits = await search(db, { workspaceId: "ws_corpus", documentIds: [docId(e.file)], query: phrase, k: 3 });
        expect(hits.every((h) => h.documentId === docId(e.file))).toBe(true);
        if (!hits.some((h) => collapse(h.text).includes(collapse(phrase)))) misses.push(phrase);
      }
      expect(misses).toEqual([]);
    });
  }
});

describe("a PDF phrase's hit points at the page the phrase is on", () => {
  for (const e of entries.filter((x) => x.format === "pdf")) {
    test(e.file, async () => {
      const doc = docs.get(e.file) as ExtractedDocument;
      for (const phrase of e.expected_phrases ?? []) {
        const pages = doc.sections.filter((s) => collapse(s.text).includes(collapse(phrase))).map((s) => s.location.page);
        expect(pages.length).toBeGreaterThan(0);
        const hit = (await search(db, { workspaceId: "ws_corpus", documentIds: [docId(e.file)], query: phrase, k: 3 })).find((h) =>
          collapse(h.text).includes(collapse(phrase)),
        );
        expect(hit).toBeDefined();
        expect(pages).toContain(hit?.location.page);
        // The hit's offset resolves back to the same words in the document.
        expect(doc.text.slice(hit?.startOffset, (hit?.startOffset ?? 0) + (hit?.text.length ?? 0))).toBe(hit?.text as string);
      }
    });
  }
});
