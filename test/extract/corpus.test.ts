// Every corpus document: expected phrases are found in the extracted text, and every bad/ file fails cleanly.
import { describe, expect, test } from "bun:test";
import { ExtractError, extract } from "../../src/extract/index.ts";
import { collapse, corpusBytes, manifest } from "./helpers.ts";

const filename = (file: string) => file.split("/").pop() as string;

describe("corpus documents yield their expected phrases", () => {
  for (const entry of manifest.filter((e) => e.expect !== "error")) {
    test(entry.file, async () => {
      const doc = await extract(await corpusBytes(entry.file), { filename: filename(entry.file) });
      expect(doc.format).toBe(entry.format as typeof doc.format);
      const text = collapse(doc.text);
      const missing = (entry.expected_phrases ?? []).filter((p) => !text.includes(collapse(p)));
      expect(missing).toEqual([]);
      // Sections are the text's structure: joined with blank lines they are the text itself.
      expect(doc.sections.map((s) => s.text).join("\n\n")).toBe(doc.text);
    });
  }
});

describe("bad documents are rejected as unprocessable", () => {
  for (const entry of manifest.filter((e) => e.expect === "error")) {
    test(entry.file, async () => {
      const err = await extract(await corpusBytes(entry.file), { filename: filename(entry.file) }).catch((e) => e);
      expect(err).toBeInstanceOf(ExtractError);
      expect(err.code).toBe("unprocessable_document");
      // A reason a user can act on: one line, no paths or stack traces.
      expect(err.message.length).toBeGreaterThan(10);
      expect(err.message).not.toMatch(/\n|\/work\/|node_modules|\bat\s+\w+\s*\(/);
    });
  }
});
