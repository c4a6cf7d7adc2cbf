// The ten supported formats: canonical MIME types and how file extensions and declared MIME types map to them.
import type { Format } from "./types.ts";

const MIME_BY_FORMAT: Record<Format, string> = {
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  xls: "application/vnd.ms-excel",
  pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  json: "application/json",
  xml: "application/xml",
};

// Macro-enabled and template OOXML variants hold the same parts as their plain siblings.
const FORMAT_BY_EXT: Record<string, Format> = {
  pdf: "pdf",
  docx: "docx",
  docm: "docx",
  dotx: "docx",
  xlsx: "xlsx",
  xlsm: "xlsx",
  xltx: "xlsx",
  xls: "xls",
  pptx: "pptx",
  pptm: "pptx",
  potx: "pptx",
  txt: "txt",
  text: "txt",
  md: "md",
  markdown: "md",
  csv: "csv",
  json: "json",
  xml: "xml",
};

const FORMAT_BY_MIME: Record<string, Format> = {
  "application/pdf": "pdf",
  "application/x-pdf": "pdf",
  [MIME_BY_FORMAT.docx]: "docx",
  "application/vnd.ms-word.document.macroenabled.12": "docx",
  [MIME_BY_FORMAT.xlsx]: "xlsx",
  "application/vnd.ms-excel.sheet.macroenabled.12": "xlsx",
  "application/vnd.ms-excel": "xls",
  "application/msexcel": "xls",
  "application/x-msexcel": "xls",
  "application/x-ms-excel": "xls",
  "application/x-excel": "xls",
  "application/x-xls": "xls",
  [MIME_BY_FORMAT.pptx]: "pptx",
  "application/vnd.ms-powerpoint.presentation.macroenabled.12": "pptx",
  "text/plain": "txt",
  "text/markdown": "md",
  "text/x-markdown": "md",
  "text/csv": "csv",
  "application/csv": "csv",
  "text/comma-separated-values": "csv",
  "application/json": "json",
  "text/json": "json",
  "application/xml": "xml",
  "text/xml": "xml",
};

/** MIME types that say nothing about the content, so they neither pick nor forbid a format. */
const GENERIC_MIME = new Set(["", "application/octet-stream", "binary/octet-stream", "application/unknown", "application/binary"]);

export const OOXML_FORMATS: ReadonlySet<Format> = new Set<Format>(["docx", "xlsx", "pptx"]);

export function mimeTypeFor(format: Format): string {
  return MIME_BY_FORMAT[format];
}

export function extensionOf(filename: string | undefined): string {
  if (!filename) return "";
  const base = filename.split(/[\\/]/).pop() ?? "";
  const dot = base.lastIndexOf(".");
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : "";
}

export function normalizeMime(mimeType: string | undefined): string {
  return (mimeType ?? "").split(";")[0].trim().toLowerCase();
}

export function formatFromExtension(filename: string | undefined): Format | null {
  const ext = extensionOf(filename);
  return Object.hasOwn(FORMAT_BY_EXT, ext) ? FORMAT_BY_EXT[ext] : null;
}

export function formatFromMime(mimeType: string | undefined): Format | null {
  const mime = normalizeMime(mimeType);
  if (Object.hasOwn(FORMAT_BY_MIME, mime)) return FORMAT_BY_MIME[mime];
  if (mime.endsWith("+json")) return "json";
  if (mime.endsWith("+xml")) return "xml";
  return null;
}

export function isGenericMime(mimeType: string | undefined): boolean {
  return GENERIC_MIME.has(normalizeMime(mimeType));
}

/** Human label for messages: "PDF", "DOCX"... */
export function label(format: Format): string {
  return format.toUpperCase();
}
