// Wire format of input documents: the create body, DocumentUpload and Document (spec §2), and the row → JSON mapping.
import { t } from "elysia";
import type { documents } from "../../db/schema";
import type { ExtractedDocument } from "../../extract/types";
import { JsonInteger, RequestBody } from "../../http/body";

export type DocumentRow = typeof documents.$inferSelect;

export const CreateDocumentBody = RequestBody({
  filename: t.String({ minLength: 1, maxLength: 255, examples: ["contract.pdf"] }),
  mime_type: t.Optional(
    t.String({
      maxLength: 255,
      description: "The Content-Type the upload will carry. Omitted: derived from the filename's extension, else application/octet-stream.",
      examples: ["application/pdf"],
    }),
  ),
  size_bytes: t.Optional(
    JsonInteger({
      minimum: 1,
      description: "The file's size: the upload may not exceed it. At most 52428800 (50 MB): larger is 413 payload_too_large.",
    }),
  ),
});

export const DocumentUpload = t.Object(
  {
    id: t.String({ examples: ["doc_6Hq2Lx0aZk3PmN8rT1vWc4Ye"] }),
    upload_url: t.String({ description: "PUT the raw bytes here with the Content-Type upload_content_type; valid 15 minutes" }),
    expires_at: t.String({ format: "date-time" }),
    upload_content_type: t.String({ description: "The Content-Type header the PUT must carry (the declared or derived mime_type)" }),
  },
  { title: "DocumentUpload" },
);

export const Document = t.Object(
  {
    id: t.String(),
    object: t.Literal("document"),
    filename: t.String(),
    mime_type: t.Union([t.String(), t.Null()], { description: "Detected from the content once extracted; the declared type before" }),
    size_bytes: t.Union([JsonInteger(), t.Null()], { description: "Bytes stored once uploaded; the declared size before" }),
    page_count: t.Union([JsonInteger(), t.Null()], { description: "PDF pages, PPTX slides, spreadsheet sheets; null for formats without pages" }),
    extracted: t.Boolean({ description: "True once complete has extracted the text; only then can runs use it" }),
    created_at: t.String({ format: "date-time" }),
  },
  { title: "Document" },
);

export function toDocumentJson(row: DocumentRow) {
  const extracted = row.status === "extracted";
  return {
    id: row.id,
    object: "document" as const,
    filename: row.filename,
    mime_type: row.mimeType ?? row.declaredMimeType,
    size_bytes: row.sizeBytes ?? row.declaredSize,
    page_count: extracted ? row.pageCount : null,
    extracted,
    created_at: new Date(row.createdAt).toISOString(),
  };
}

const Location = t.Object(
  {
    page: t.Optional(JsonInteger({ description: "PDF page, 1-based" })),
    slide: t.Optional(JsonInteger({ description: "PPTX slide, 1-based" })),
    sheet: t.Optional(t.String({ description: "XLSX/XLS sheet name" })),
    row: t.Optional(JsonInteger({ description: "spreadsheet or CSV row, 1-based" })),
    heading: t.Optional(t.String({ description: "the nearest heading above" })),
    section: t.Optional(t.String({ description: "another named part: notes, footnotes, a JSON path …" })),
  },
  { title: "Location" },
);

export const DocumentText = t.Object(
  {
    object: t.Literal("document_text"),
    document_id: t.String(),
    format: t.String({ examples: ["pdf"] }),
    page_count: t.Union([JsonInteger(), t.Null()]),
    sections: t.Array(t.Object({ location: Location, text: t.String() }), {
      description: "The extracted text in document order, one entry per page, slide, sheet or part; evidence quotes are substrings of these",
    }),
  },
  { title: "DocumentText" },
);

/** The extracted text of a document, by the places an evidence quote's location names. */
export function toDocumentText(row: DocumentRow, extracted: ExtractedDocument) {
  return {
    object: "document_text" as const,
    document_id: row.id,
    format: extracted.format,
    page_count: extracted.page_count,
    sections: extracted.sections.map((s) => ({ location: s.location, text: s.text })),
  };
}
