// PDF: per-page text with PDFium (WebAssembly, @embedpdf/pdfium); one section per page. Password-protected and
// image-only PDFs are rejected.
//
// PDFium replaced pdf.js (unpdf) in issue 13.3: on the test corpus it reads 2-4x the pages per second with the same
// phrase recall (every expected phrase found), and its memory is one WebAssembly heap that dies with its worker.
// MuPDF's WebAssembly build is faster still on some files but AGPL-licensed, which an Apache-2.0 server cannot ship.

// The .wasm is embedded in the compiled binary as a file (`with { type: "file" }` gives its path there and in dev).
import wasmPath from "@embedpdf/pdfium/pdfium.wasm" with { type: "file" };
import { hasPdfHeader } from "./detect.ts";
import { buildDocument, unprocessable } from "./document.ts";
import { type Box, type Columns, LINE_END_HYPHEN, mayHoldTable, type TextRun, textWithTables, withParagraphBreaks } from "./pdf-layout.ts";
import type { ExtractedDocument, Section } from "./types.ts";

/** Pages read at most: a 5,000-page bundle is a real document; 100,000 empty pages are an attack on memory. */
export const MAX_PDF_PAGES = 5_000;
/** Text runs on a page beyond which its tables are not rebuilt (a dense page holds a few hundred). */
const MAX_TABLE_RUNS = 3_000;

// FPDF_GetLastError codes (fpdfview.h).
const FPDF_ERR_FORMAT = 3;
const FPDF_ERR_PASSWORD = 4;
const FPDF_ERR_SECURITY = 5;

type Pdfium = Awaited<ReturnType<typeof import("@embedpdf/pdfium").init>>;

// One PDFium per thread, loaded on first use: compiling the 4 MB module costs ~0.1 s, so a warm worker keeps it.
let loading: Promise<Pdfium> | undefined;
let loaded: Pdfium | undefined;

function pdfium(): Promise<Pdfium> {
  loading ??= (async () => {
    const { init } = await import("@embedpdf/pdfium");
    const lib = await init({ wasmBinary: await Bun.file(wasmPath).arrayBuffer() });
    lib.PDFiumExt_Init();
    loaded = lib;
    return lib;
  })();
  return loading;
}

/** Bytes of PDFium's WebAssembly heap in this thread (0 before first use): it grows with big files and never shrinks. */
export function pdfiumHeapBytes(): number {
  return loaded ? (loaded.pdfium as unknown as { HEAPU8: Uint8Array }).HEAPU8.byteLength : 0;
}

/**
 * Page objects written out in the file (`/Type /Page`, not `/Pages`), counted on the raw bytes before PDFium parses
 * anything: a file of 100,000 pages would otherwise cost hundreds of MB just to open. Pages inside compressed object
 * streams are not seen here; PDFium's own count below still holds the limit for those.
 */
function plainPageObjects(bytes: Uint8Array): number {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  return text.match(/\/Type\s*\/Page(?![a-zA-Z])/g)?.length ?? 0;
}

// Word and LibreOffice draw list bullets with Symbol or Wingdings glyphs, which a PDF's text carries as private-use
// characters (U+F0B7 for "•") that show as empty boxes: at the start of a line and before a space they are bullets,
// and read as "•". Not U+F06C, U+F06E or U+F071 (Wingdings bullets, but λ, ν and θ in the Symbol font).
const SYMBOL_BULLET = /^([^\S\n]*)[\uF0B7\uF0A7\uF076\uF0D8\uF0FC\uF0A8](?=\s)/gm;
// PDFium marks the hyphen that ends a line inside a word ("well-" / "developed") with U+FFFE, which is no character
// at all: it showed in text and evidence, and "well-developed" could not be found. It is a hyphen.
const plainText = (text: string) => text.replace(SYMBOL_BULLET, "$1•").replace(/\uFFFE/g, "-");

/** A 32-byte scratch buffer in PDFium's heap and its four doubles, read through a view made again should the heap grow. */
function scratch(lib: Pdfium) {
  const out = lib.pdfium.wasmExports.malloc(32);
  let view: Float64Array<ArrayBufferLike> = new Float64Array(0);
  const f64 = () => {
    // A grown heap detaches the old buffer, and a view of a detached buffer has length 0.
    if (view.length === 0) view = new Float64Array((lib.pdfium as unknown as { HEAPU8: Uint8Array }).HEAPU8.buffer, out, 4);
    return view;
  };
  return { out, f64, free: () => lib.pdfium.wasmExports.free(out) };
}

// The per-character calls go to the WebAssembly exports directly: the library's wrappers (ccall) cost ten times more.
type TextExports = Record<
  | "FPDFText_GetRect"
  | "FPDFText_GetCharBox"
  | "FPDFText_GetUnicode"
  | "FPDFText_GetTextObject"
  | "FPDFText_GetFontSize"
  | "FPDFTextObj_GetFont"
  | "FPDFFont_GetWeight"
  | "FPDFFont_GetBaseFontName"
  | "FPDFPage_CountObjects"
  | "FPDFPage_GetObject"
  | "FPDFPageObj_GetType"
  | "FPDFPageObj_GetBounds",
  (...args: number[]) => number
>;

/** Page objects looked at for rules at most: a page of thousands of drawn shapes is a drawing, not a table. */
const MAX_RULE_OBJECTS = 5000;
const PATH_OBJECT = 2;

/** The page's horizontal lines (drawn paths at most 2.5 units high and 20 wide): a table's borders, underlines. */
function horizontalRules(lib: Pdfium, page: number): Box[] {
  const wasm = lib.pdfium.wasmExports as unknown as TextExports;
  const count = Math.min(MAX_RULE_OBJECTS, wasm.FPDFPage_CountObjects(page));
  const bounds = lib.pdfium.wasmExports.malloc(16);
  try {
    const rules: Box[] = [];
    for (let i = 0; i < count; i++) {
      const object = wasm.FPDFPage_GetObject(page, i);
      if (wasm.FPDFPageObj_GetType(object) !== PATH_OBJECT) continue;
      if (!wasm.FPDFPageObj_GetBounds(object, bounds, bounds + 4, bounds + 8, bounds + 12)) continue;
      const [left, bottom, right, top] = new Float32Array((lib.pdfium as unknown as { HEAPU8: Uint8Array }).HEAPU8.buffer, bounds, 4);
      if (top - bottom <= 2.5 && right - left >= 20) rules.push({ left, right, top, bottom });
    }
    return rules;
  } finally {
    lib.pdfium.wasmExports.free(bounds);
  }
}

/** Where the page's runs of text sit, in text order; none past MAX_TABLE_RUNS (not a page anyone reads as a table). */
function textBoxes(lib: Pdfium, textPage: number): Box[] {
  const count = lib.FPDFText_CountRects(textPage, 0, -1);
  if (count > MAX_TABLE_RUNS) return [];
  const wasm = lib.pdfium.wasmExports as unknown as TextExports;
  const { out, f64, free } = scratch(lib);
  try {
    const boxes: Box[] = [];
    for (let i = 0; i < count; i++) {
      if (!wasm.FPDFText_GetRect(textPage, i, out, out + 8, out + 16, out + 24)) continue;
      const [left, top, right, bottom] = f64();
      boxes.push({ left, top, right, bottom });
    }
    return boxes;
  } finally {
    free();
  }
}

/**
 * The page's text rebuilt with its tables as " | " rows (pdf-layout.ts), or null when it has none; with the columns
 * of a table it ends with, for the next page. The text of each run is read only when the boxes line up as a table
 * could (or go on with the previous page's table, `carried`).
 */
function tableText(
  lib: Pdfium,
  page: number,
  textPage: number,
  chars: number,
  boxes: Box[],
  carried: Columns | null,
): { text: string; last: Columns | null } | null {
  if (boxes.length < (carried ? 2 : 4)) return null;
  const rules = horizontalRules(lib, page);
  if (!mayHoldTable(boxes, carried, rules)) return null;
  const wasm = lib.pdfium.wasmExports as unknown as TextExports;
  const { out, f64, free } = scratch(lib);
  const name = lib.pdfium.wasmExports.malloc(FONT_NAME);
  const heap = () => (lib.pdfium as unknown as { HEAPU8: Uint8Array }).HEAPU8;
  // Bold letters set a cell's name apart from its description. A font says so by its weight or, as the fonts LibreOffice
  // and Chromium embed do (weight 400 for all), by its name ("DejaVuSerif-Bold"). Worked out once per text object.
  const boldObjects = new Map<number, boolean>();
  const isBold = (i: number) => {
    const object = wasm.FPDFText_GetTextObject(textPage, i);
    let bold = boldObjects.get(object);
    if (bold === undefined) {
      const font = object ? wasm.FPDFTextObj_GetFont(object) : 0;
      const length = font ? Math.min(FONT_NAME, wasm.FPDFFont_GetBaseFontName(font, name, FONT_NAME)) : 0;
      bold =
        font !== 0 &&
        (wasm.FPDFFont_GetWeight(font) >= 600 || (length > 0 && BOLD_FONT.test(FONT_NAMES.decode(heap().subarray(name, name + length - 1)))));
      boldObjects.set(object, bold);
    }
    return bold;
  };
  try {
    // Each box's text: the page's characters walked once, in the order PDFium made its rectangles in, each joined to
    // the box that holds its middle (a generated space, which has none, to the box before it).
    const runs: TextRun[] = boxes.map((b) => ({ ...b, text: "", letters: 0, bold: false }));
    const inside = (run: Box, x: number, y: number) => x >= run.left - 0.5 && x <= run.right + 0.5 && y >= run.bottom - 0.5 && y <= run.top + 0.5;
    let k = 0;
    for (let i = 0; i < chars; i++) {
      let code = wasm.FPDFText_GetUnicode(textPage, i);
      if (code === 0) continue;
      if (code === 0x02) code = LINE_END_HYPHEN; // what PDFium's own text gives for it
      // A line break inside one run (text drawn over other text) still parts the words on either side.
      if (code === 0x0d || code === 0x0a) {
        if (!/\s$/.test(runs[k].text)) runs[k].text += " ";
        continue;
      }
      if (wasm.FPDFText_GetCharBox(textPage, i, out, out + 8, out + 16, out + 24)) {
        const [left, right, bottom, top] = f64();
        const x = (left + right) / 2;
        const y = (bottom + top) / 2;
        if (!inside(runs[k], x, y)) {
          const next = runs.findIndex((r, j) => j > k && inside(r, x, y));
          const any = next >= 0 ? next : runs.findIndex((r) => inside(r, x, y));
          if (any >= 0) k = any;
        }
      }
      if (code > 0x20) {
        // (A run is set in one font: its first letter's tells for all of them.)
        const run = runs[k];
        if (!run.letters) {
          run.bold = isBold(i);
          run.size = wasm.FPDFText_GetFontSize(textPage, i);
        }
        run.letters = (run.letters ?? 0) + 1;
      }
      // A character outside the Basic Multilingual Plane comes as two halves (UTF-16 surrogates): kept together.
      const low = code >= 0xd800 && code <= 0xdbff && i + 1 < chars ? wasm.FPDFText_GetUnicode(textPage, i + 1) : 0;
      if (low >= 0xdc00 && low <= 0xdfff) {
        runs[k].text += String.fromCharCode(code, low);
        i++;
      } else runs[k].text += String.fromCodePoint(code);
    }
    // A half left alone would not survive storage (it is not text): the replacement character, as PDFium's text has.
    const tables = textWithTables(runs, carried, rules);
    return tables && { text: tables.text.toWellFormed(), last: tables.last };
  } finally {
    free();
    lib.pdfium.wasmExports.free(name);
  }
}

/** Room for a font's name (PostScript names run to 63 characters), and the words that name a bold face. */
const FONT_NAME = 128;
const BOLD_FONT = /bold|black|heavy|semibold|demi/i;
const FONT_NAMES = new TextDecoder();

/**
 * One page's text, or null when the page cannot be loaded (a damaged page object). `table` carries the columns of a
 * table the previous page ended with, and is left holding this page's.
 */
function pageText(lib: Pdfium, doc: number, index: number, table: { columns: Columns | null }): string | null {
  const carried = table.columns;
  table.columns = null;
  const page = lib.FPDF_LoadPage(doc, index);
  if (!page) return null;
  try {
    const textPage = lib.FPDFText_LoadPage(page);
    if (!textPage) return null;
    try {
      const chars = lib.FPDFText_CountChars(textPage);
      if (chars <= 0) return "";
      const boxes = textBoxes(lib, textPage);
      const tables = tableText(lib, page, textPage, chars, boxes, carried);
      if (tables !== null) {
        table.columns = tables.last;
        return plainText(tables.text);
      }
      // UTF-16 with a terminating NUL.
      const buffer = lib.pdfium.wasmExports.malloc((chars + 1) * 2);
      try {
        const written = lib.FPDFText_GetText(textPage, 0, chars, buffer);
        return written > 0 ? plainText(withParagraphBreaks(lib.pdfium.UTF16ToString(buffer), boxes)) : "";
      } finally {
        lib.pdfium.wasmExports.free(buffer);
      }
    } finally {
      lib.FPDFText_ClosePage(textPage);
    }
  } finally {
    lib.FPDF_ClosePage(page);
  }
}

export async function extractPdf(bytes: Uint8Array): Promise<ExtractedDocument> {
  if (!hasPdfHeader(bytes)) throw unprocessable("the file is not a valid PDF (no PDF header)");
  const written = plainPageObjects(bytes);
  if (written > MAX_PDF_PAGES) {
    throw unprocessable(`the PDF has ${written} pages; at most ${MAX_PDF_PAGES} are read (split it into smaller files)`);
  }
  const lib = await pdfium();
  // PDFium reads the file from its own heap, so the bytes are copied in once (the caller's buffer stays untouched).
  const filePtr = lib.pdfium.wasmExports.malloc(Math.max(1, bytes.byteLength));
  if (!filePtr) throw unprocessable("the PDF file is too large to read");
  try {
    // HEAPU8 is read after malloc: a heap that grew has a new view. (The package's types leave it out.)
    (lib.pdfium as unknown as { HEAPU8: Uint8Array }).HEAPU8.set(bytes, filePtr);
    // An empty password opens "encrypted but openable" files, as pdf.js did.
    const doc = lib.FPDF_LoadMemDocument(filePtr, bytes.byteLength, "");
    if (!doc) {
      const code = lib.FPDF_GetLastError();
      if (code === FPDF_ERR_PASSWORD) throw unprocessable("the PDF is password-protected");
      if (code === FPDF_ERR_SECURITY) throw unprocessable("the PDF uses an unsupported encryption scheme");
      if (code === FPDF_ERR_FORMAT) throw unprocessable("the PDF file is corrupt or truncated");
      throw unprocessable(`the PDF file could not be read (PDFium error ${code})`);
    }
    try {
      const pages = lib.FPDF_GetPageCount(doc);
      // Refused before a single page is read.
      if (pages > MAX_PDF_PAGES) {
        throw unprocessable(`the PDF has ${pages} pages; at most ${MAX_PDF_PAGES} are read (split it into smaller files)`);
      }
      const sections: Section[] = [];
      let failed = 0;
      const table = { columns: null as Columns | null };
      for (let i = 0; i < pages; i++) {
        // One damaged page object should not cost the reader the rest of the document.
        const text = pageText(lib, doc, i, table);
        if (text === null) failed++;
        else sections.push({ location: { page: i + 1 }, text });
      }
      if (pages > 0 && failed === pages) throw unprocessable("the PDF file is corrupt: no page could be read");
      return buildDocument("pdf", sections, pages);
    } finally {
      lib.FPDF_CloseDocument(doc);
    }
  } finally {
    lib.pdfium.wasmExports.free(filePtr);
  }
}
