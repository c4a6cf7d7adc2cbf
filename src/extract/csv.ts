// CSV: parsed with papaparse (quoted commas and newlines), one line per row with cells joined by " | ".

import { buildDocument, rowLine } from "./document.ts";
import { decodeText, normalizeNewlines } from "./text.ts";
import type { ExtractedDocument, Section } from "./types.ts";

/** Rows per section: small enough to point evidence at a row range, large enough to keep sections few. */
const ROWS_PER_SECTION = 100;

export async function extractCsv(bytes: Uint8Array): Promise<ExtractedDocument> {
  const { default: Papa } = await import("papaparse");
  const text = normalizeNewlines(decodeText(bytes, "CSV"));
  // Parse errors (ragged rows, a stray quote) still yield rows; a CSV reader should be forgiving.
  const parsed = Papa.parse<string[]>(text, { skipEmptyLines: "greedy", header: false, dynamicTyping: false });
  const sections: Section[] = [];
  const rows = parsed.data;
  for (let start = 0; start < rows.length; start += ROWS_PER_SECTION) {
    const lines = rows
      .slice(start, start + ROWS_PER_SECTION)
      .map((r) => rowLine(Array.isArray(r) ? r.map(String) : []))
      .filter((l) => l.length > 0);
    sections.push({ location: { row: start + 1 }, text: lines.join("\n") });
  }
  return buildDocument("csv", sections, null);
}
