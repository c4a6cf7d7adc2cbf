// Format detection from magic bytes, file extension and declared MIME type; the bytes win when they disagree.
import { unzipSync } from "fflate";
import { extensionOf, formatFromExtension, formatFromMime, isGenericMime, mimeTypeFor, normalizeMime, OOXML_FORMATS } from "./formats.ts";
import { ExtractError, type Format } from "./types.ts";

export interface Hints {
  filename?: string;
  mimeType?: string;
}

export interface Detection {
  format: Format;
  mime_type: string;
  /** True when no hint named the format and it was guessed from text content (a failed JSON guess falls back to TXT). */
  sniffed: boolean;
}

const enc = new TextEncoder();

function startsWith(bytes: Uint8Array, sig: number[] | string, at = 0): boolean {
  const s = typeof sig === "string" ? Array.from(enc.encode(sig)) : sig;
  if (bytes.length < at + s.length) return false;
  for (let i = 0; i < s.length; i++) if (bytes[at + i] !== s[i]) return false;
  return true;
}

const OLE2_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

export function isZip(bytes: Uint8Array): boolean {
  return startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06]);
}

export function isOle2(bytes: Uint8Array): boolean {
  return startsWith(bytes, OLE2_MAGIC);
}

/** A bare BIFF2-4 worksheet stream (Excel 2.x-4.0 saved without an OLE2 container) starts with a BOF record. */
export function isBiffStream(bytes: Uint8Array): boolean {
  return bytes.length >= 8 && bytes[0] === 0x09 && [0x00, 0x02, 0x04, 0x08].includes(bytes[1]) && bytes[3] === 0 && bytes[2] >= 4 && bytes[2] <= 20;
}

/** Offset of "%PDF-": PDF allows junk before the header and readers look in the first kilobyte. -1 if absent. */
function pdfHeaderOffset(bytes: Uint8Array): number {
  const head = bytes.subarray(0, 1024);
  for (let i = 0; i + 5 <= head.length; i++) {
    if (head[i] === 0x25 && startsWith(head, "%PDF-", i)) return i;
  }
  return -1;
}

export function hasPdfHeader(bytes: Uint8Array): boolean {
  return pdfHeaderOffset(bytes) >= 0;
}

/** Well-known types we do not support, named so the 415 message says what the file is. */
function unsupportedKind(bytes: Uint8Array): string | null {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47])) return "a PNG image";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "a JPEG image";
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return "a TIFF image";
  if (startsWith(bytes, [0x1f, 0x8b])) return "a gzip archive";
  if (startsWith(bytes, [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c])) return "a 7-Zip archive";
  if (startsWith(bytes, [0x7f, 0x45, 0x4c, 0x46])) return "an executable";
  if (startsWith(bytes, "%!PS")) return "a PostScript document";
  if (startsWith(bytes, "{\\rtf")) return "an RTF document";
  // These signatures are plain letters a text file could start with; the real formats always hold NUL bytes.
  if (!looksBinary(bytes)) return null;
  if (startsWith(bytes, "GIF87a") || startsWith(bytes, "GIF89a")) return "a GIF image";
  if (startsWith(bytes, "RIFF")) return startsWith(bytes, "WEBP", 8) ? "a WebP image" : "a RIFF media file";
  if (startsWith(bytes, "ftyp", 4)) return "an audio or video file";
  if (startsWith(bytes, "OggS") || startsWith(bytes, "ID3") || startsWith(bytes, "fLaC")) return "an audio file";
  if (startsWith(bytes, "Rar!")) return "a RAR archive";
  if (startsWith(bytes, "SQLite format 3")) return "an SQLite database";
  return null;
}

/**
 * Names of the OLE2 (Compound File) streams we care about. Directory entries are 128-byte records at
 * 128-aligned offsets holding a UTF-16LE name and its byte length, so a scan finds them without a CFB parser.
 */
export function ole2StreamNames(bytes: Uint8Array): Set<string> {
  const wanted = new Map<number, string[]>([
    [18, ["workbook"]],
    [10, ["book"]],
    [34, ["encryptedpackage"]],
    [26, ["worddocument"]],
    [40, ["powerpoint document"]],
  ]);
  const found = new Set<string>();
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let o = 512; o + 128 <= bytes.length; o += 128) {
    const nameBytes = dv.getUint16(o + 64, true);
    const names = wanted.get(nameBytes);
    if (!names) continue;
    const type = bytes[o + 66];
    if (type !== 1 && type !== 2) continue; // storage or stream
    if (bytes[o + nameBytes - 2] !== 0 || bytes[o + nameBytes - 1] !== 0) continue;
    let name = "";
    for (let i = 0; i < nameBytes - 2; i += 2) name += String.fromCharCode(dv.getUint16(o + i, true));
    const lower = name.toLowerCase();
    if (names.includes(lower)) found.add(lower);
  }
  return found;
}

/** Which OOXML document a ZIP holds, from its part names; null when it is some other ZIP or unreadable. */
function ooxmlKind(bytes: Uint8Array): Format | null {
  const names: string[] = [];
  try {
    // The filter sees every central-directory entry and declines it, so nothing is decompressed.
    unzipSync(bytes, {
      filter: (f) => {
        if (names.length < 10_000) names.push(f.name);
        return false;
      },
    });
  } catch {
    return null;
  }
  const has = (n: string) => names.includes(n);
  if (has("word/document.xml")) return "docx";
  if (has("xl/workbook.xml")) return "xlsx";
  if (has("ppt/presentation.xml")) return "pptx";
  if (!has("[Content_Types].xml")) return null;
  if (names.some((n) => n.startsWith("word/"))) return "docx";
  if (names.some((n) => n.startsWith("xl/"))) return "xlsx";
  if (names.some((n) => n.startsWith("ppt/"))) return "pptx";
  return null;
}

const OPEN_DOCUMENT: Record<string, { name: string; ext: string; saveAs: string }> = {
  text: { name: "text", ext: "odt", saveAs: "DOCX (or PDF)" },
  spreadsheet: { name: "spreadsheet", ext: "ods", saveAs: "XLSX (or CSV)" },
  presentation: { name: "presentation", ext: "odp", saveAs: "PPTX (or PDF)" },
};

/** An OpenDocument package (LibreOffice's own formats) names its type in a first, uncompressed "mimetype" entry. */
function openDocumentKind(bytes: Uint8Array) {
  if (bytes.length < 30 || !startsWith(bytes, "mimetype", 30)) return null;
  const start = 30 + (bytes[26] | (bytes[27] << 8)) + (bytes[28] | (bytes[29] << 8));
  const type = new TextDecoder().decode(bytes.subarray(start, start + 60));
  const kind = /^application\/vnd\.oasis\.opendocument\.(text|spreadsheet|presentation)/.exec(type)?.[1];
  return kind ? OPEN_DOCUMENT[kind] : null;
}

/** Text files have no NUL bytes (UTF-16 ones start with a BOM, which we decode). */
export function looksBinary(bytes: Uint8Array): boolean {
  if (startsWith(bytes, [0xff, 0xfe]) || startsWith(bytes, [0xfe, 0xff])) return false;
  const head = bytes.subarray(0, 8192);
  return head.includes(0);
}

function unsupported(message: string): ExtractError {
  return new ExtractError("unsupported_media_type", message);
}

function hintLabel(hints: Hints): string {
  const ext = extensionOf(hints.filename);
  if (ext) return `.${ext} files`;
  return `${normalizeMime(hints.mimeType)} files`;
}

function result(format: Format, sniffed = false): Detection {
  return { format, mime_type: mimeTypeFor(format), sniffed };
}

/** Guess a text format from the first characters when no hint names one. */
function sniffText(bytes: Uint8Array): Detection {
  let i = startsWith(bytes, [0xef, 0xbb, 0xbf]) ? 3 : 0;
  while (i < bytes.length && i < 4096 && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) i++;
  const head = new TextDecoder().decode(bytes.subarray(i, i + 64)).toLowerCase();
  if (head.startsWith("<!doctype html") || head.startsWith("<html")) throw unsupported("HTML documents are not supported");
  if (head.startsWith("<")) return result("xml", true);
  if (head.startsWith("{") || head.startsWith("[")) return result("json", true);
  return result("txt", true);
}

/** Internal detection that also says whether the format was guessed. */
export function detect(bytes: Uint8Array, hints: Hints = {}): Detection {
  const declared = formatFromExtension(hints.filename) ?? formatFromMime(hints.mimeType);
  const specificHint = extensionOf(hints.filename) !== "" || !isGenericMime(hints.mimeType);

  if (bytes.length === 0) {
    if (declared) return result(declared);
    throw unsupported("the file is empty and its type is unknown");
  }
  // A header at the very start is a PDF whatever its name; one further in (allowed by PDF) only counts when
  // nothing says the file is text, so a note that merely quotes "%PDF-" stays a note.
  const pdfAt = pdfHeaderOffset(bytes);
  if (pdfAt === 0 || (pdfAt > 0 && (declared === null || declared === "pdf" || looksBinary(bytes)))) return result("pdf");

  if (isZip(bytes)) {
    const kind = ooxmlKind(bytes);
    if (kind) return result(kind);
    // A damaged package still goes to its extractor, which names the problem (422, not 415).
    if (declared && OOXML_FORMATS.has(declared)) return result(declared);
    const odf = openDocumentKind(bytes);
    if (odf) throw unsupported(`OpenDocument ${odf.name} files (.${odf.ext}) are not supported: save it as ${odf.saveAs} and upload that`);
    throw unsupported("ZIP archives other than DOCX, XLSX and PPTX are not supported");
  }

  if (isOle2(bytes)) {
    const streams = ole2StreamNames(bytes);
    if (streams.has("workbook") || streams.has("book")) return result("xls");
    // A .docx/.xlsx/.pptx that is really a legacy or encrypted file: the OOXML extractor explains which.
    if (declared && (OOXML_FORMATS.has(declared) || declared === "xls")) return result(declared);
    if (streams.has("encryptedpackage")) {
      throw new ExtractError("unprocessable_document", "the document is password-protected (encrypted)");
    }
    throw unsupported("legacy binary Office files (.doc, .ppt) are not supported; save the file as DOCX or PPTX");
  }

  if (isBiffStream(bytes)) return result("xls");

  const kind = unsupportedKind(bytes);
  if (kind) throw unsupported(`the file is ${kind}, which is not a supported document type`);

  if (looksBinary(bytes)) {
    // Declared binary formats and text formats both reach their extractor, which rejects the content (422).
    if (declared) return result(declared);
    throw unsupported("unrecognized binary file type");
  }
  if (declared) return result(declared);
  if (specificHint) throw unsupported(`${hintLabel(hints)} are not supported`);
  return sniffText(bytes);
}

/**
 * Public detection: the format and its canonical MIME type. Throws ExtractError("unsupported_media_type") for
 * types we do not read, and "unprocessable_document" for an encrypted Office package whose type is unknowable.
 */
export function detectFormat(bytes: Uint8Array, hints: Hints = {}): { format: Format; mime_type: string } {
  const { format, mime_type } = detect(bytes, hints);
  return { format, mime_type };
}
