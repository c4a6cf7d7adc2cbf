// Wire format of reference documents (spec §2 ReferenceDocument): create bodies, responses and the row → JSON mapping.
import { t } from "elysia";
import type { referenceDocuments } from "../../db/schema";
import { JsonInteger, RequestBody } from "../../http/body";

export type ReferenceRow = typeof referenceDocuments.$inferSelect;

const Status = t.Union([t.Literal("processing"), t.Literal("ready"), t.Literal("failed")], {
  description: "processing until indexing finishes; then ready (usable by workflows) or failed (see failure_reason)",
});

const fields = {
  id: t.String({ examples: ["ref_3kP9xQ2mLa7ZbN0cVd5WeR1t"] }),
  object: t.Literal("reference_document"),
  name: t.String(),
  status: Status,
  created_at: t.String({ format: "date-time" }),
  failure_reason: t.Optional(t.String({ description: "Present only when status is failed: why the file could not be indexed" })),
};

export const ReferenceDocument = t.Object(fields, { title: "ReferenceDocument" });

export const ReferenceDocumentUpload = t.Object(
  {
    ...fields,
    upload_url: t.String({ description: "PUT the raw bytes here with the Content-Type upload_content_type; valid 15 minutes" }),
    expires_at: t.String({ format: "date-time" }),
    upload_content_type: t.String({ description: "The Content-Type header the PUT must carry" }),
  },
  { title: "ReferenceDocumentUpload" },
);

/** The presigned (JSON) form of POST /reference-documents. */
export const CreateReferenceJson = RequestBody({
  name: t.String({ minLength: 1, maxLength: 200, examples: ["Grading rubric 2026"] }),
  filename: t.String({ minLength: 1, maxLength: 255, examples: ["rubric.pdf"] }),
  mime_type: t.Optional(
    t.String({
      maxLength: 255,
      description: "The Content-Type the upload will carry. Omitted: derived from filename.",
      examples: ["application/pdf"],
    }),
  ),
  size_bytes: t.Optional(JsonInteger({ minimum: 1, description: "The file's size, at most 52428800 (50 MB; larger is 413)" })),
});

/** The multipart form of POST /reference-documents (documentation; the route parses it itself). */
export const CreateReferenceMultipart = t.Object({
  name: t.String({ minLength: 1, maxLength: 200 }),
  file: t.File({ description: "The file, at most 50 MB" }),
});

export const DeletedReference = t.Object({ id: t.String(), object: t.Literal("reference_document"), deleted: t.Literal(true) });

export function toReferenceDocumentJson(row: ReferenceRow) {
  return {
    id: row.id,
    object: "reference_document" as const,
    name: row.name,
    status: row.status,
    created_at: new Date(row.createdAt).toISOString(),
    ...(row.status === "failed" ? { failure_reason: row.failureReason ?? "The file could not be indexed" } : {}),
  };
}
