// CSV renderer (RFC 4180): one row per criterion, or the generic layout, with a guard against spreadsheet formula injection.
import type { Evaluation, RenderedFile } from "../engine/types";
import { evidenceText, isEvaluation, type RenderMeta, utf8 } from "./common";
import { type GenericModel, type Scalar, toGenericModel } from "./generic";

export const CSV_EVALUATION_HEADER = ["criterion_id", "title", "score", "max_score", "rationale", "evidence"];

/**
 * The file starts with a UTF-8 byte order mark. RFC 4180 does not need one, but Excel opens a
 * BOM-less CSV in the machine's legacy code page and turns "Mötley Crüe" or "日本語" into mojibake;
 * with the BOM it reads UTF-8. LibreOffice, pandas and most parsers skip the BOM (or can be told to).
 */
const BOM = "\uFEFF";

export function renderCsv(value: unknown, meta: RenderMeta): RenderedFile {
  const rows = isEvaluation(value) ? evaluationRows(value, meta) : genericRows(toGenericModel(value));
  // RFC 4180: records end with CRLF (the last one too, which every reader accepts).
  const text = `${BOM + rows.map((r) => r.map(field).join(",")).join("\r\n")}\r\n`;
  return { bytes: utf8.encode(text), mime_type: "text/csv", extension: "csv" };
}

function evaluationRows(ev: Evaluation, meta: RenderMeta): Scalar[][] {
  return [CSV_EVALUATION_HEADER, ...ev.criteria.map((c) => [c.id, c.title, c.score, c.max_score, c.rationale, evidenceText(c.evidence, meta)])];
}

/**
 * A CSV holds one table. An output that is a single array of objects (a top-level array or one
 * field holding it) becomes that table; anything else becomes `field,value` rows with paths like
 * `items[2].name`, so no value is lost.
 */
function genericRows(model: GenericModel): Scalar[][] {
  const only = model.tables[0];
  if (model.fields.length === 0 && model.tables.length === 1 && only) return [only.columns, ...only.rows];
  const rows: Scalar[][] = [["field", "value"]];
  for (const f of model.fields) rows.push([f.key, f.value]);
  for (const t of model.tables) {
    for (const [i, r] of t.rows.entries()) {
      for (const [j, c] of t.columns.entries()) rows.push([`${t.key}[${i}].${c}`, r[j] ?? null]);
    }
  }
  return rows;
}

/** One CSV field: guarded against formulas, then quoted when RFC 4180 requires it. */
function field(value: Scalar): string {
  if (value === null) return "";
  // Numbers and booleans are written by us, never formulas; only text can carry an injection.
  const text = typeof value === "string" ? guardFormula(value) : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * OWASP "CSV Injection": a cell starting with = + - @ tab or CR is run as a formula by Excel and
 * LibreOffice. A leading apostrophe makes it plain text. This changes the text of such fields
 * (one extra leading "'"), which is the accepted trade-off for a file users open by double-click.
 */
export function guardFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}
