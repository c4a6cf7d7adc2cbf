// The shape every extractor returns: text plus the structure evaluation needs (where each piece came from).

export type Format = "pdf" | "docx" | "xlsx" | "xls" | "pptx" | "txt" | "md" | "csv" | "json" | "xml";

/** Where a piece of text lives in its document. Only the fields that make sense for the format are set. */
export interface Location {
  page?: number; // PDF page, 1-based
  slide?: number; // PPTX slide, 1-based
  sheet?: string; // XLSX/XLS sheet name
  row?: number; // spreadsheet / CSV row, 1-based
  heading?: string; // nearest heading above (DOCX, MD, PPTX title)
  section?: string; // other named part: "notes", "footnotes", "header", JSON path, XML element path
}

/** One structural unit, in document order: a page, a slide, a sheet, a heading's section, a table row block. */
export interface Section {
  location: Location;
  text: string;
  /** A heading's section: the heading's depth, 1–6, where the format marks it (DOCX heading styles). Not in the API. */
  level?: number;
}

export interface ExtractedDocument {
  format: Format;
  mime_type: string;
  /** The whole text, sections joined by blank lines. Quotes used as evidence are substrings of this. */
  text: string;
  /** PDF pages, PPTX slides, XLSX/XLS sheets; null where pages make no sense (TXT, MD, CSV, JSON, XML, DOCX). */
  page_count: number | null;
  sections: Section[];
}

export type ExtractErrorCode = "unsupported_media_type" | "unprocessable_document";

/** A clean, typed failure: the file is of an unsupported type (415) or cannot be read (422). */
export class ExtractError extends Error {
  constructor(
    readonly code: ExtractErrorCode,
    message: string,
  ) {
    super(message);
    this.name = "ExtractError";
  }
}
