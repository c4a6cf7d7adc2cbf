// Legacy .xls (BIFF in an OLE2 container) via SheetJS 0.20.3 (@e965/xlsx: the npm xlsx 0.18.5 has CVE-2023-30533 and CVE-2024-22363), one section per sheet. SheetJS is used for nothing else:
// it has known issues with hostile input, so it runs only in the extraction worker and only strings leave it.

import { isBiffStream, isOle2 } from "./detect.ts";
import { buildDocument, describeError, rowLine, unprocessable } from "./document.ts";
import type { ExtractedDocument, Section } from "./types.ts";

export async function extractXls(bytes: Uint8Array): Promise<ExtractedDocument> {
  if (!isOle2(bytes) && !isBiffStream(bytes)) throw unprocessable("the file is not a valid XLS file (not a legacy Excel workbook)");
  const XLSX = await import("@e965/xlsx");
  let wb: ReturnType<typeof XLSX.read>;
  try {
    wb = XLSX.read(bytes, {
      type: "array",
      dense: true,
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
      cellDates: true,
      bookVBA: false,
    });
  } catch (err) {
    const message = describeError(err);
    if (/password|encrypt/i.test(message)) throw unprocessable("the workbook is password-protected (encrypted)");
    if (/workbook stream/i.test(message)) throw unprocessable("the file is not a valid XLS file (no workbook stream)");
    throw unprocessable(`the XLS file could not be read (${message})`);
  }
  const sections: Section[] = [];
  const names = Array.isArray(wb.SheetNames) ? wb.SheetNames.filter((n): n is string => typeof n === "string") : [];
  for (const name of names) {
    const ws = Object.hasOwn(wb.Sheets, name) ? wb.Sheets[name] : undefined;
    if (!ws) continue;
    const rows = XLSX.utils.sheet_to_json<unknown[]>(ws, { header: 1, raw: false, defval: "", blankrows: false });
    const lines = rows.map((r) => rowLine(Array.isArray(r) ? r.map((c) => (c === null || c === undefined ? "" : String(c))) : []));
    sections.push({ location: { sheet: name }, text: lines.filter((l) => l.length > 0).join("\n") });
  }
  return buildDocument("xls", sections, names.length);
}
