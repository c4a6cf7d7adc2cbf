// XLSX renderer (exceljs): a "Summary" sheet and a "Criteria" sheet of typed cells, or the generic layout as sheets.
import ExcelJS from "exceljs";
import type { Evaluation, RenderedFile } from "../engine/types";
import { evidenceText, generatedAt, isEvaluation, type RenderMeta, xmlSafe } from "./common";
import { type GenericModel, type GenericTable, type Scalar, toGenericModel } from "./generic";

type CellValue = string | number | boolean | Date | null;

/** Excel refuses (as "unreadable content") a cell holding more text than this. */
const MAX_CELL_CHARS = 32_767;
const DATE_FORMAT = 'yyyy-mm-dd hh:mm:ss "UTC"';

export async function renderXlsx(value: unknown, meta: RenderMeta): Promise<RenderedFile> {
  const wb = new ExcelJS.Workbook();
  wb.creator = "Assay";
  wb.title = xmlSafe(meta.title);
  wb.created = generatedAt(meta);
  if (isEvaluation(value)) evaluationSheets(wb, value, meta);
  else genericSheets(wb, toGenericModel(value), meta);
  const buffer = await wb.xlsx.writeBuffer();
  return {
    bytes: new Uint8Array(buffer),
    mime_type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    extension: "xlsx",
  };
}

function evaluationSheets(wb: ExcelJS.Workbook, ev: Evaluation, meta: RenderMeta): void {
  summarySheet(wb, meta, [
    ["Verdict", ev.verdict],
    ["Score", ev.score],
    ["Summary", ev.summary],
  ]);

  const sheet = wb.addWorksheet("Criteria", { views: [{ state: "frozen", ySplit: 1 }] });
  sheet.columns = [
    { header: "id", key: "id", width: 14 },
    { header: "title", key: "title", width: 32 },
    { header: "score", key: "score", width: 9 },
    { header: "max_score", key: "max_score", width: 11 },
    { header: "rationale", key: "rationale", width: 60 },
    { header: "evidence", key: "evidence", width: 60 },
  ];
  for (const c of ev.criteria) {
    addRow(sheet, [c.id, c.title, c.score, c.max_score, c.rationale, evidenceText(c.evidence, meta)]);
  }
  finishTable(sheet, 6);
}

function genericSheets(wb: ExcelJS.Workbook, model: GenericModel, meta: RenderMeta): void {
  const summary = summarySheet(wb, meta, []);
  if (model.fields.length > 0) {
    summary.addRow([]);
    const header = summary.addRow(["Field", "Value"]);
    header.font = { bold: true };
    for (const f of model.fields) addPair(summary, f.key, f.value, false);
  }
  const used = new Set(["summary"]);
  for (const t of model.tables) tableSheet(wb, t, sheetName(t.key, used));
}

/** The "Summary" sheet: label/value pairs (title, run details, then `pairs`, then the date), labels bold, long values wrapped. */
function summarySheet(wb: ExcelJS.Workbook, meta: RenderMeta, pairs: [string, CellValue][]): ExcelJS.Worksheet {
  const sheet = wb.addWorksheet("Summary");
  sheet.columns = [{ width: 16 }, { width: 90 }];
  addPair(sheet, "Title", meta.title);
  if (meta.workflowName) addPair(sheet, "Workflow", meta.workflowName);
  if (meta.runId) addPair(sheet, "Run", meta.runId);
  for (const [label, value] of pairs) addPair(sheet, label, value);
  addPair(sheet, "Generated", generatedAt(meta));
  return sheet;
}

function addPair(sheet: ExcelJS.Worksheet, label: string, value: CellValue, boldLabel = true): void {
  const row = addRow(sheet, [label, value]);
  if (boldLabel) row.getCell(1).font = { bold: true };
  row.getCell(2).alignment = { wrapText: true, vertical: "top" };
  // A real date cell (a serial number with a date format) so Excel can sort and compute with it.
  if (value instanceof Date) row.getCell(2).numFmt = DATE_FORMAT;
}

function tableSheet(wb: ExcelJS.Workbook, table: GenericTable, name: string): void {
  const sheet = wb.addWorksheet(name, { views: [{ state: "frozen", ySplit: 1 }] });
  sheet.columns = table.columns.map((c, j) => ({
    header: cellValue(c) as string,
    width: columnWidth([c, ...table.rows.map((r) => r[j] ?? null)]),
  }));
  for (const r of table.rows) addRow(sheet, r);
  finishTable(sheet, table.columns.length);
}

/** Bold header, top-aligned wrapped cells and an autofilter: a table people can sort and read. */
function finishTable(sheet: ExcelJS.Worksheet, columns: number): void {
  sheet.getRow(1).font = { bold: true };
  sheet.eachRow((row, n) => {
    if (n > 1) row.alignment = { wrapText: true, vertical: "top" };
  });
  if (columns > 0) sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: columns } };
}

/**
 * Every value goes in as a typed cell value, never as `{ formula }`: text such as "=HYPERLINK(…)"
 * is stored as a shared string, which Excel and LibreOffice show as text and never evaluate.
 */
function addRow(sheet: ExcelJS.Worksheet, values: CellValue[]): ExcelJS.Row {
  return sheet.addRow(values.map(cellValue));
}

function cellValue(v: CellValue): CellValue {
  if (typeof v !== "string") return v;
  const safe = xmlSafe(v);
  return safe.length > MAX_CELL_CHARS ? `${safe.slice(0, MAX_CELL_CHARS - 14)} … (truncated)` : safe;
}

function columnWidth(values: Scalar[]): number {
  const longest = Math.max(...values.map((v) => (v === null ? 0 : String(v).split("\n", 1)[0].length)));
  return Math.min(60, Math.max(10, longest + 2));
}

/** A valid, unique sheet name: at most 31 characters, none of : \ / ? * [ ], not blank. */
function sheetName(key: string, used: Set<string>): string {
  const base =
    xmlSafe(key)
      .replace(/[:\\/?*[\]]/g, "_")
      .replace(/^'+|'+$/g, "")
      .slice(0, 31)
      .trim() || "Table";
  let name = base;
  for (let i = 2; used.has(name.toLowerCase()) || name.toLowerCase() === "history"; i++) {
    name = `${base.slice(0, 31 - String(i).length - 1)} ${i}`;
  }
  used.add(name.toLowerCase());
  return name;
}
