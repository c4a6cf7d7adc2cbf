// Small helpers every format extractor shares: building the ExtractedDocument and typed failures.

import { mimeTypeFor } from "./formats.ts";
import { ExtractError, type ExtractedDocument, type Format, type Section } from "./types.ts";

export function unprocessable(message: string): ExtractError {
  return new ExtractError("unprocessable_document", message);
}

/** Trims each section, drops empty ones and joins the rest, so `text` always contains every section verbatim. */
export function buildDocument(format: Format, sections: Section[], pageCount: number | null): ExtractedDocument {
  const kept: Section[] = [];
  for (const s of sections) {
    // NUL characters carry no text, and PostgreSQL's text type refuses them: dropped here, for every format at once.
    const text = s.text.replace(/\r\n?/g, "\n").replaceAll("\u0000", "").trim();
    if (text.length > 0) kept.push({ location: s.location, text, ...(s.level ? { level: s.level } : {}) });
  }
  const text = kept.map((s) => s.text).join("\n\n");
  if (text.trim().length === 0) {
    throw unprocessable(format === "pdf" ? "no extractable text (OCR is not available)" : `the ${format.toUpperCase()} file contains no text`);
  }
  return { format, mime_type: mimeTypeFor(format), text, page_count: pageCount, sections: kept };
}

/** Cells of one table row, separated by " | ", with trailing empty cells dropped (spreadsheets pad rows). */
export function rowLine(cells: string[]): string {
  let end = cells.length;
  while (end > 0 && cells[end - 1].trim() === "") end--;
  // A cell may hold line breaks (CSV quoted newlines, wrapped spreadsheet text): keep each row on one line.
  return cells
    .slice(0, end)
    .map((c) => c.replace(/\s*\n\s*/g, " ").trim())
    .join(" | ");
}

/**
 * A table cell's paragraphs as one line. A short first paragraph over sentences is the cell's name ("Focus & Thesis"
 * over "Does the essay make a clear claim?"): a colon keeps it apart, as the cell's layout did. (Lines of labels, "Pages
 * in ABS CDO prospectus" over "Pages in RMBS prospectus", are a list.)
 */
export function cellParagraphs(paragraphs: string[]): string {
  const [first, ...rest] = paragraphs;
  const description = rest.join(" ");
  const named =
    rest.length > 0 &&
    first.split(/\s+/).length <= 8 &&
    !/[.!?:;,]$/.test(first) &&
    description.split(/\s+/).length >= 4 &&
    /[.!?]["”’)]?$/.test(description);
  return named ? `${first}: ${description}` : paragraphs.join(" ");
}

/** Makes a library's failure message safe to show: one line, no file paths, bounded length. */
export function describeError(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  const oneLine = raw
    .split("\n")[0]
    .replace(/(?:[A-Za-z]:)?[\\/](?:[\w.-]+[\\/])+[\w.-]*/g, "")
    .trim();
  return oneLine.length > 160 ? `${oneLine.slice(0, 157)}...` : oneLine;
}
