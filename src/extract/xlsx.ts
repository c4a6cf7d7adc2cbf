// XLSX: one section per sheet with rows as " | " lines, via exceljs; if exceljs cannot open a workbook, the sheet
// XML is read directly (shared strings, inline strings and cached formula results).

import { buildDocument, rowLine, unprocessable } from "./document.ts";
import type { ExtractedDocument, Section } from "./types.ts";
import { attrOf, childrenOf, concatText, findAll, localName, parseXml, tagOf, type XmlNode } from "./xml.ts";
import { isType, mainPart, type Parts, partText, readPackage, readRels, repack } from "./zip.ts";

interface Sheet {
  name: string;
  rows: string[][];
}

export async function extractXlsx(bytes: Uint8Array): Promise<ExtractedDocument> {
  const parts = readPackage(bytes, "xlsx");
  const bookPath = mainPart(parts, "xl/workbook.xml");
  if (!parts[bookPath]) throw unprocessable("the file is not a valid XLSX file (no workbook part)");
  let sheets: Sheet[];
  try {
    sheets = await readWithExcelJs(repack(parts));
  } catch {
    sheets = readSheetXml(parts, bookPath);
  }
  const sections: Section[] = sheets.map((s) => ({
    location: { sheet: s.name },
    text: s.rows
      .map(rowLine)
      .filter((l) => l.length > 0)
      .join("\n"),
  }));
  return buildDocument("xlsx", sections, sheets.length);
}

async function readWithExcelJs(zip: Uint8Array): Promise<Sheet[]> {
  const { default: ExcelJS } = await import("exceljs");
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(Buffer.from(zip) as unknown as ArrayBuffer);
  return wb.worksheets.map((ws) => {
    const rows: string[][] = [];
    const notes: string[] = [];
    ws.eachRow({ includeEmpty: false }, (row) => {
      const cells: string[] = [];
      row.eachCell({ includeEmpty: false }, (cell, col) => {
        // A merged range reports the master's value in every cell; keep it once.
        if (cell.type === ExcelJS.ValueType.Merge) return;
        cells[col - 1] = cellText(cell.value, cell.numFmt);
        const note = cell.note;
        if (note) notes.push(`Note ${cell.address}: ${typeof note === "string" ? note : (note.texts ?? []).map((t) => t.text).join("")}`);
      });
      rows.push(Array.from(cells, (c) => c ?? ""));
    });
    for (const n of notes) rows.push([n]);
    return { name: ws.name, rows };
  });
}

/**
 * Display text of an exceljs cell value; formulas show their cached result. A number formatted as a percentage reads
 * as one ("30%", not the 0.3 it is stored as): a weight column of a scorecard.
 */
export function cellText(v: unknown, numFmt?: string): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number") return numFmt && /%/.test(numFmt.replace(/"[^"]*"/g, "")) ? `${Number((v * 100).toFixed(4))}%` : String(v);
  if (typeof v === "boolean") return v ? "TRUE" : "FALSE";
  if (v instanceof Date) return dateText(v);
  if (typeof v === "object") {
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.richText)) return o.richText.map((r: { text?: unknown }) => String(r.text ?? "")).join("");
    if ("formula" in o || "sharedFormula" in o) return cellText(o.result, numFmt);
    if ("text" in o) return cellText(o.text);
    if ("error" in o) return String(o.error);
  }
  return "";
}

function dateText(d: Date): string {
  if (Number.isNaN(d.getTime())) return "";
  const iso = d.toISOString();
  if (iso.endsWith("T00:00:00.000Z")) return iso.slice(0, 10);
  return iso.replace(".000Z", "Z");
}

// ---- direct sheet XML reading (fallback; exported for its test) ----

export function readSheetXml(parts: Parts, bookPath: string): Sheet[] {
  const rels = readRels(parts, bookPath);
  const shared = sharedStrings(parts, rels);
  const sheets: Sheet[] = [];
  for (const sheet of findAll(parseXml(partText(parts, bookPath) ?? ""), "sheet")) {
    const rid = Object.keys((sheet[":@"] as Record<string, unknown>) ?? {}).find((k) => k.includes(":") && localName(k) === "id");
    const rel = rid ? rels.get(attrOf(sheet, rid.slice(2)) ?? "") : undefined;
    if (!rel || rel.external || !parts[rel.target]) continue;
    sheets.push({ name: attrOf(sheet, "name") ?? `Sheet${sheets.length + 1}`, rows: sheetRows(partText(parts, rel.target) ?? "", shared) });
  }
  if (sheets.length === 0) throw unprocessable("the XLSX file could not be read (no readable worksheets)");
  return sheets;
}

function sharedStrings(parts: Parts, rels: ReturnType<typeof readRels>): string[] {
  const rel = [...rels.values()].find((r) => isType(r.type, "sharedStrings"));
  const xml = rel ? partText(parts, rel.target) : undefined;
  if (!xml) return [];
  // Each <si> is one string, possibly split into rich-text runs; phonetic hints (rPh) are not cell text.
  return findAll(parseXml(xml), "si").map((si) =>
    concatText(childrenOf(si).filter((n) => !["rPh", "phoneticPr"].includes(localName(tagOf(n) ?? "")))),
  );
}

function columnIndex(ref: string | undefined, fallback: number): number {
  const letters = /^([A-Z]+)/.exec(ref ?? "")?.[1];
  if (!letters) return fallback;
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

function sheetRows(xml: string, shared: string[]): string[][] {
  const rows: string[][] = [];
  for (const row of findAll(parseXml(xml), "row")) {
    const cells: string[] = [];
    for (const c of childrenOf(row).filter((n) => localName(tagOf(n) ?? "") === "c")) {
      const col = columnIndex(attrOf(c, "r"), cells.length);
      if (col > 16_384) continue; // beyond Excel's last column: a corrupt reference
      cells[col] = cellXmlText(c, shared);
    }
    rows.push(Array.from(cells, (v) => v ?? ""));
  }
  return rows;
}

function cellXmlText(c: XmlNode, shared: string[]): string {
  const type = attrOf(c, "t");
  const kids = childrenOf(c);
  if (type === "inlineStr") return concatText(kids.filter((n) => localName(tagOf(n) ?? "") === "is"));
  const v = kids.find((n) => localName(tagOf(n) ?? "") === "v");
  const raw = v ? concatText([v]) : "";
  if (type === "s") return shared[Number(raw)] ?? "";
  if (type === "b") return raw === "1" ? "TRUE" : raw === "0" ? "FALSE" : raw;
  return raw;
}
