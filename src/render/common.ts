// Shared pieces of the renderers: the metadata they print, the Evaluation type guard and evidence/text helpers.
import type { Evaluation, Evidence } from "../engine/types";
import { formatLocation } from "../lib/location";

/** What a renderer knows about the run besides its output value. */
export type RenderMeta = {
  title: string;
  workflowName?: string;
  runId?: string;
  generatedAt?: Date;
  /** Display names of the documents evidence points at (doc_… / ref_… ids). */
  documents?: { id: string; name: string }[];
};

const VERDICTS = new Set(["pass", "fail", "needs_review"]);

/** True when `v` is the standard evaluation object of CONTRACT.md "Output" (checked field by field, not just by key names). */
export function isEvaluation(v: unknown): v is Evaluation {
  if (!isRecord(v)) return false;
  if (typeof v.summary !== "string" || !isFiniteNumber(v.score) || !VERDICTS.has(v.verdict as string)) return false;
  if (!Array.isArray(v.criteria)) return false;
  return v.criteria.every(
    (c) =>
      isRecord(c) &&
      typeof c.id === "string" &&
      typeof c.title === "string" &&
      isFiniteNumber(c.score) &&
      isFiniteNumber(c.max_score) &&
      typeof c.rationale === "string" &&
      Array.isArray(c.evidence) &&
      c.evidence.every((e) => isRecord(e) && typeof e.document_id === "string" && typeof e.quote === "string" && isRecord(e.location)),
  );
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === "number" && Number.isFinite(v);
}

/** "Pass", "Fail", "Needs review": how a verdict reads in a report. */
export function verdictLabel(verdict: Evaluation["verdict"]): string {
  return verdict === "needs_review" ? "Needs review" : verdict === "pass" ? "Pass" : "Fail";
}

/** Where a piece of evidence comes from: "Report.pdf, p. 3" (the id when the document's name is unknown). */
export function evidenceSource(evidence: Evidence, meta: RenderMeta): string {
  const name = meta.documents?.find((d) => d.id === evidence.document_id)?.name ?? evidence.document_id;
  const where = formatLocation(evidence.location);
  return where ? `${name}, ${where}` : name;
}

/** Evidence as one block of plain text for a table cell: one `"quote" (source)` per line. */
export function evidenceText(evidence: Evidence[], meta: RenderMeta): string {
  return evidence.map((e) => `“${e.quote}” (${evidenceSource(e, meta)})`).join("\n");
}

/** The run's generation time, defaulting to now, so every format prints the same instant. */
export function generatedAt(meta: RenderMeta): Date {
  return meta.generatedAt ?? new Date();
}

/**
 * Removes characters XML 1.0 forbids (C0 controls other than tab/LF/CR, lone surrogates, U+FFFE/FFFF).
 * Model output can contain them, and a single one makes Word and Excel refuse the whole file. The
 * docx and exceljs writers drop C0 controls themselves but pass U+FFFE/FFFF through (seen with
 * docx 9.15 and exceljs 4.4), so the renderers clean text here rather than rely on either.
 */
export function xmlSafe(text: string): string {
  return text.replace(
    // biome-ignore lint/suspicious/noControlCharactersInRegex: matching the control characters XML forbids is the point
    /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
    "",
  );
}

export const utf8 = new TextEncoder();
