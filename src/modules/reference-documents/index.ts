// Routes: GET/POST /v1/reference-documents, GET/DELETE /v1/reference-documents/:ref_id, POST …/:ref_id/complete.
import { Elysia, t } from "elysia";
import type { Context } from "../../context";
import { authGuard } from "../../http/auth-guard";
import { ErrorBody } from "../../http/errors";
import { routeDocs } from "../../http/openapi";
import { ListQuery, Page } from "../../http/pagination";
import { DocumentText } from "../documents/model";
import { discardDocuments } from "../documents/service";
import { readCreateRequest } from "./form";
import {
  CreateReferenceJson,
  CreateReferenceMultipart,
  DeletedReference,
  ReferenceDocument,
  ReferenceDocumentUpload,
  toReferenceDocumentJson,
} from "./model";
import {
  completeReference,
  createPresignedReference,
  deleteReference,
  listReferences,
  readReference,
  referenceForStoredDocument,
  referenceText,
} from "./service";

export const referenceDocumentRoutes = (ctx: Context) =>
  new Elysia({ prefix: "/v1/reference-documents", tags: ["Reference documents"] })
    .use(authGuard(ctx))
    .get("", async ({ auth, query }) => listReferences(ctx.db, ctx.config.secret, auth.workspaceId, query), {
      auth: "reference_documents:read",
      query: t.Object(ListQuery),
      response: { 200: Page(ReferenceDocument) },
      detail: { summary: "List reference documents (newest first; deleted ones are left out)" },
    })
    .post(
      "",
      async ({ auth, request, status }) => {
        const req = await readCreateRequest(ctx, auth.workspaceId, request);
        if (req.kind === "json") {
          const { row, upload } = await createPresignedReference(ctx, {
            workspaceId: auth.workspaceId,
            name: req.body.name,
            filename: req.body.filename,
            mimeType: req.body.mime_type,
            sizeBytes: req.body.size_bytes,
          });
          return status(201, {
            ...toReferenceDocumentJson(row),
            upload_url: upload.url,
            expires_at: upload.expires_at,
            upload_content_type: upload.contentType,
          });
        }
        let row: Awaited<ReturnType<typeof referenceForStoredDocument>>;
        try {
          row = await referenceForStoredDocument(ctx, { workspaceId: auth.workspaceId, name: req.name, documentId: req.document.id });
        } catch (err) {
          await discardDocuments(ctx, auth.workspaceId, [req.document.id]);
          throw err;
        }
        return status(201, toReferenceDocumentJson(row));
      },
      {
        auth: "reference_documents:write",
        // The body is read by readCreateRequest: JSON, or multipart streamed to the store with the 50 MB cap.
        parse: "none",
        response: { 201: t.Union([ReferenceDocumentUpload, ReferenceDocument]), 413: ErrorBody, 415: ErrorBody },
        detail: routeDocs({
          summary: "Create a reference document",
          description:
            "Two forms. JSON (presigned): {name, filename, mime_type?, size_bytes?} answers upload_url; PUT the bytes there with the " +
            "Content-Type upload_content_type, then call complete to start indexing. Multipart: name and file (at most 50 MB); " +
            "indexing starts at once. Either way the status is processing until indexing ends in ready (event reference_document.ready) or failed.",
          requestBody: {
            required: true,
            content: {
              "application/json": { schema: CreateReferenceJson },
              "multipart/form-data": { schema: CreateReferenceMultipart },
            },
          },
        }),
      },
    )
    .post("/:ref_id/complete", async ({ auth, params }) => toReferenceDocumentJson(await completeReference(ctx, auth.workspaceId, params.ref_id)), {
      auth: "reference_documents:write",
      response: { 200: ReferenceDocument, 409: ErrorBody },
      detail: {
        summary: "Confirm a presigned upload and start indexing",
        description:
          "Answers the ReferenceDocument (status processing until indexing ends). Idempotent: later calls return it without indexing again; " +
          "accepted on multipart references too. 409 invalid_state before the bytes arrived.",
      },
    })
    .get("/:ref_id", async ({ auth, params }) => toReferenceDocumentJson(await readReference(ctx, auth.workspaceId, params.ref_id)), {
      auth: "reference_documents:read",
      response: { 200: ReferenceDocument },
      detail: {
        summary: "Get a reference document",
        description:
          "Answers the current status from the database; if indexing is due (or was interrupted by a restart) the background indexer is woken, " +
          "so polling this endpoint sees processing turn into ready or failed. failure_reason is present only when failed.",
      },
    })
    .get("/:ref_id/text", async ({ auth, params }) => referenceText(ctx, auth.workspaceId, params.ref_id), {
      auth: "reference_documents:read",
      response: { 200: DocumentText, 404: ErrorBody, 409: ErrorBody },
      detail: {
        summary: "The extracted text of a reference document",
        description:
          "An Assay extension: the text that is indexed and retrieved from, by page, slide, sheet or part (document_id is the stored original's). 409 invalid_state until the text is extracted.",
      },
    })
    .delete("/:ref_id", async ({ auth, params }) => deleteReference(ctx, auth.workspaceId, params.ref_id), {
      auth: "reference_documents:write",
      response: { 200: DeletedReference },
      detail: { summary: "Delete a reference document (the pointer only: the stored original stays in the workspace)" },
    });
