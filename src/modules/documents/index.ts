// Routes: POST /v1/documents, POST /v1/documents/:document_id/complete, GET /v1/documents/:document_id (and /text).
import { Elysia } from "elysia";
import type { Context } from "../../context";
import { authGuard } from "../../http/auth-guard";
import { strictBody } from "../../http/body";
import { ErrorBody } from "../../http/errors";
import { CreateDocumentBody, Document, DocumentText, DocumentUpload, toDocumentJson } from "./model";
import { completeDocument, createPendingDocument, documentText, getDocument } from "./service";

export const documentRoutes = (ctx: Context) =>
  new Elysia({ prefix: "/v1/documents", tags: ["Documents"] })
    .use(authGuard(ctx))
    .post(
      "",
      async ({ auth, body }) => {
        const { row, upload } = await createPendingDocument(ctx, {
          workspaceId: auth.workspaceId,
          filename: body.filename,
          mimeType: body.mime_type,
          sizeBytes: body.size_bytes,
        });
        return { id: row.id, upload_url: upload.url, expires_at: upload.expires_at, upload_content_type: upload.contentType };
      },
      {
        auth: "documents:write",
        ...strictBody(CreateDocumentBody),
        response: { 200: DocumentUpload, 413: ErrorBody },
        detail: {
          summary: "Start an input document upload",
          description:
            "Answers a signed upload_url (valid 15 minutes). PUT the raw bytes there with the Content-Type upload_content_type " +
            "(curl -X PUT --data-binary @file -H 'Content-Type: …' \"$upload_url\"), then call complete. size_bytes over 52428800 is 413.",
        },
      },
    )
    .post("/:document_id/complete", async ({ auth, params }) => toDocumentJson(await completeDocument(ctx, auth.workspaceId, params.document_id)), {
      auth: "documents:write",
      response: { 200: Document, 409: ErrorBody, 415: ErrorBody, 422: ErrorBody },
      detail: {
        summary: "Confirm an upload and extract the document's text",
        description:
          "Extracts once: calling it again returns the same Document. 409 invalid_state before the bytes arrived; " +
          "415 unsupported_media_type for a format Assay does not read; 422 unprocessable_document for a corrupt or encrypted file (answered again on every later call).",
      },
    })
    .get("/:document_id", async ({ auth, params }) => toDocumentJson(await getDocument(ctx.db, auth.workspaceId, params.document_id)), {
      auth: "documents:write",
      response: { 200: Document },
      detail: { summary: "Get an input document", description: "Needs the scope documents:write, like the other document endpoints." },
    })
    .get("/:document_id/text", async ({ auth, params }) => documentText(ctx.db, auth.workspaceId, params.document_id), {
      auth: "documents:write",
      response: { 200: DocumentText, 404: ErrorBody, 409: ErrorBody },
      detail: {
        summary: "The extracted text of an input document",
        description:
          "An Assay extension: the text runs are evaluated on, by page, slide, sheet or part, so an evidence quote can be shown in place. 409 invalid_state before complete.",
      },
    });
