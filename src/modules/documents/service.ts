// Input documents: presigned upload, completion (text extraction, once) and the stored originals other modules build on.
import { and, eq } from "drizzle-orm";
import type { Context } from "../../context";
import { type Db, tx } from "../../db/client";
import { documents } from "../../db/schema";
import { ExtractError, type ExtractedDocument, extractInWorker } from "../../extract";
import { ApiError } from "../../http/errors";
import { newId } from "../../lib/ids";
import { bytesStream, MAX_OBJECT_BYTES, objectStore, S3ObjectStore, type SignedUrl, signedUploadUrl, UPLOAD_URL_TTL_S } from "../../storage";
import { contentTypeRefusal } from "../objects/service";
import { type DocumentRow, toDocumentJson, toDocumentText } from "./model";

export { type DocumentRow, toDocumentJson };

const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

function invalid(param: string, message: string): ApiError {
  return new ApiError(400, "validation_error", message, param);
}

function checkFilename(raw: string, param = "filename"): string {
  const filename = raw.trim();
  if (!filename) throw invalid(param, `${param} must not be empty`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\x00-\x1f\x7f]/.test(filename)) throw invalid(param, `${param} must not contain control characters`);
  return filename;
}

/** The upload's Content-Type: the declared one (media type only, lower case), else from the extension, else octet-stream. */
function resolveMimeType(filename: string, declared?: string | null, param = "mime_type"): string {
  if (declared != null) {
    const media = declared.split(";")[0].trim().toLowerCase();
    if (!MEDIA_TYPE.test(media)) throw invalid(param, `${param} must be a media type such as application/pdf`);
    return media;
  }
  // mime-types (with its 2,000-type database) is loaded on the first upload without a declared type, not at start.
  const mime = require("mime-types") as typeof import("mime-types");
  return mime.lookup(filename) || "application/octet-stream";
}

/** Types no content could make readable: pictures, sound, film, fonts, 3-D models and programs (SVG is XML, and read). */
const NEVER_READ =
  /^(?:(?:image|audio|video|font|model)\/(?!svg\+xml$).+|application\/(?:x-msdownload|x-msdos-program|x-dosexec|x-executable|x-sharedlib|x-mach-binary|vnd\.microsoft\.portable-executable|java-archive|vnd\.android\.package-archive|x-apple-diskimage|x-iso9660-image))$/;

/** 415 when the file declares (or its name gives) such a type: refused before the client sends any byte. */
function checkReadableType(contentType: string): void {
  if (NEVER_READ.test(contentType)) {
    throw new ApiError(
      415,
      "unsupported_media_type",
      `${contentType} files are not supported: upload PDF, DOCX, XLSX, XLS, PPTX, plain text, Markdown, CSV, JSON or XML`,
    );
  }
}

function checkSize(sizeBytes: number | undefined, param = "size_bytes"): void {
  if (sizeBytes === undefined) return;
  if (sizeBytes < 1) throw invalid(param, `${param} must be at least 1`);
  if (sizeBytes > MAX_OBJECT_BYTES) throw new ApiError(413, "payload_too_large", `${param} is over the 52428800-byte (50 MB) limit`, param);
}

function objectKey(workspaceId: string, documentId: string): string {
  return `${workspaceId}/documents/${documentId}`;
}

export interface NewUpload {
  workspaceId: string;
  filename: string;
  mimeType?: string | null;
  sizeBytes?: number;
}

/** A documents row before extraction: what the client declared, where the bytes go. */
function newDocumentRow(
  ctx: Context,
  d: { id: string; workspaceId: string; filename: string; mimeType: string; size: number | null; status: "pending" | "uploaded" },
): DocumentRow {
  return {
    id: d.id,
    workspaceId: d.workspaceId,
    filename: d.filename,
    declaredMimeType: d.mimeType,
    declaredSize: d.size,
    objectKey: objectKey(d.workspaceId, d.id),
    status: d.status,
    mimeType: null,
    sizeBytes: null,
    pageCount: null,
    textChars: null,
    extracted: null,
    error: null,
    createdAt: ctx.clock.now(),
  };
}

/**
 * Inserts a pending document and signs the URL its bytes go to (at most size_bytes, with the declared type). `db`: the
 * handle of the caller's transaction when there is one (the insert joins it), else ctx.db.
 */
export async function createPendingDocument(
  ctx: Context,
  input: NewUpload,
  db: Db = ctx.db,
): Promise<{ row: DocumentRow; upload: SignedUrl & { contentType: string } }> {
  const filename = checkFilename(input.filename);
  const contentType = resolveMimeType(filename, input.mimeType);
  checkReadableType(contentType);
  checkSize(input.sizeBytes);
  const id = newId("doc");
  const row = newDocumentRow(ctx, {
    id,
    workspaceId: input.workspaceId,
    filename,
    mimeType: contentType,
    size: input.sizeBytes ?? null,
    status: "pending",
  });
  await tx(db, (t) => t.insert(documents).values(row));
  const upload = signedUploadUrl(ctx, row.objectKey, { contentType, maxBytes: input.sizeBytes ?? MAX_OBJECT_BYTES, declaredSize: input.sizeBytes });
  return { row, upload: { ...upload, contentType } };
}

/** A document of the workspace, or 404. */
async function findDocument(db: Db, workspaceId: string, id: string): Promise<DocumentRow | undefined> {
  const [row] = await db
    .select()
    .from(documents)
    .where(and(eq(documents.id, id), eq(documents.workspaceId, workspaceId)))
    .limit(1);
  return row;
}

export async function getDocument(db: Db, workspaceId: string, id: string): Promise<DocumentRow> {
  const row = await findDocument(db, workspaceId, id);
  if (!row) throw new ApiError(404, "not_found", `No document ${id}`);
  return row;
}

/**
 * A document's extracted text as DocumentText; 409 invalid_state before its text is extracted, or when its file could
 * not be read. `named` is the id the caller knows it by (a reference's ref_…).
 */
export async function documentText(db: Db, workspaceId: string, id: string, named = id) {
  const row = await getDocument(db, workspaceId, id);
  if (row.status === "failed") throw new ApiError(409, "invalid_state", `${named} has no text: its file could not be read`);
  if (row.status !== "extracted" || !row.extracted) {
    throw new ApiError(409, "invalid_state", `${named} has no text yet: complete its upload first`);
  }
  return toDocumentText(row, row.extracted as ExtractedDocument);
}

/** The document if it belongs to the workspace and its text is extracted; null otherwise (the caller decides the error). */
export async function getCompletedDocument(db: Db, workspaceId: string, id: string): Promise<DocumentRow | null> {
  const row = await findDocument(db, workspaceId, id);
  return row && row.status === "extracted" ? row : null;
}

/** The ExtractError a failed document keeps, as the API error it answers (415 or 422). */
function extractFailure(row: Pick<DocumentRow, "error">): ApiError {
  let saved: { code?: string; message?: string } = {};
  try {
    saved = JSON.parse(row.error ?? "{}");
  } catch {}
  const code = saved.code === "unsupported_media_type" ? "unsupported_media_type" : "unprocessable_document";
  return new ApiError(code === "unsupported_media_type" ? 415 : 422, code, saved.message ?? "The file could not be read");
}

/** Reads the stored original and extracts it (in a worker, time-limited). Throws ExtractError for bad content. */
export async function extractStored(ctx: Context, row: DocumentRow): Promise<{ doc: ExtractedDocument; size: number }> {
  const blob = await objectStore(ctx).get(row.objectKey);
  if (!blob) throw notUploaded(ctx, row);
  const bytes = new Uint8Array(await blob.arrayBuffer());
  const size = bytes.length;
  // These bytes are ours alone and not needed afterwards: they move to the worker instead of being copied.
  const doc = await extractMeasured(ctx, bytes, row, true);
  return { doc, size };
}

/** Extraction in the worker pool, timed by format for /metrics; a document that cannot be read is logged (ids only). */
async function extractMeasured(ctx: Context, bytes: Uint8Array, row: DocumentRow, transfer = false): Promise<ExtractedDocument> {
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  try {
    const doc = await extractInWorker(bytes, { filename: row.filename, mimeType: row.declaredMimeType ?? undefined }, { transfer });
    ctx.metrics.extractionDuration.observe({ format: doc.format, outcome: "ok" }, seconds());
    return doc;
  } catch (err) {
    ctx.metrics.extractionDuration.observe({ format: "unknown", outcome: "failed" }, seconds());
    if (err instanceof ExtractError) {
      ctx.log.warn({ document_id: row.id, workspace_id: row.workspaceId, code: err.code, reason: err.message }, "extraction failed");
    }
    throw err;
  }
}

/** The update that records a successful extraction. Call inside a transaction: `db` is its handle. */
export async function markExtracted(db: Db, id: string, doc: ExtractedDocument, size: number): Promise<void> {
  await db
    .update(documents)
    .set({
      status: "extracted",
      extracted: doc,
      pageCount: doc.page_count,
      textChars: doc.text.length,
      mimeType: doc.mime_type,
      sizeBytes: size,
      error: null,
    })
    .where(eq(documents.id, id));
}

/** The update that records a failed extraction. Call inside a transaction: `db` is its handle. */
export async function markFailed(db: Db, id: string, err: ExtractError, size: number | null): Promise<void> {
  await db
    .update(documents)
    .set({ status: "failed", error: JSON.stringify({ code: err.code, message: err.message }), ...(size === null ? {} : { sizeBytes: size }) })
    .where(eq(documents.id, id));
}

function asApiError(err: ExtractError, prefix = ""): ApiError {
  return new ApiError(err.code === "unsupported_media_type" ? 415 : 422, err.code, prefix + err.message);
}

/**
 * The stored size of a presigned upload, checked as the PUT to /v1/objects checks it: at most 50 MB, the declared
 * size when there is one, the declared type. With an S3 store the bytes went straight to the bucket, so this HEAD is
 * the first time Assay sees them; a refused object is deleted, so the client may PUT again to the same URL.
 * null: nothing uploaded yet.
 */
export async function checkStoredUpload(ctx: Context, row: DocumentRow): Promise<number | null> {
  const store = objectStore(ctx);
  const stat = await store.stat(row.objectKey);
  // The local store's PUT (/v1/objects) checked all of this while streaming; multipart uploads were stored by Assay.
  if (!stat || row.status !== "pending" || !(store instanceof S3ObjectStore)) return stat?.size ?? null;
  const declared = row.declaredSize;
  let refusal: ApiError | null = null;
  if (stat.size > (declared ?? MAX_OBJECT_BYTES)) {
    refusal = new ApiError(
      413,
      "payload_too_large",
      declared !== null
        ? `The uploaded file is larger than the ${declared} bytes declared for this upload (size_bytes)`
        : `The uploaded file is larger than the ${MAX_OBJECT_BYTES}-byte (50 MB) limit`,
    );
  } else if (declared !== null && stat.size !== declared) {
    refusal = new ApiError(
      409,
      "invalid_state",
      `The uploaded file has ${stat.size} bytes, not the ${declared} declared (size_bytes): upload it again`,
    );
  } else if (stat.contentType !== undefined && row.declaredMimeType !== null) {
    refusal = contentTypeRefusal(row.declaredMimeType, stat.contentType);
  }
  if (refusal) {
    await store.delete(row.objectKey);
    throw refusal;
  }
  return stat.size;
}

/**
 * 409 for a complete (or a read) before the bytes arrived: PUT them first, or, once the upload URL has expired and
 * nothing can arrive any more, start again with a new document.
 */
export function notUploaded(ctx: Context, row: Pick<DocumentRow, "createdAt">): ApiError {
  const expired = ctx.clock.now() > row.createdAt + UPLOAD_URL_TTL_S * 1000;
  return new ApiError(
    409,
    "invalid_state",
    expired
      ? "The file was never uploaded and its upload URL has expired: create the document again for a new URL"
      : "The file has not been uploaded yet: PUT it to upload_url first",
  );
}

/**
 * POST /documents/:id/complete. Extracts once: an extracted document is returned as it is, a failed one answers its
 * saved 415/422 again, and one whose bytes have not arrived is 409 invalid_state.
 */
export async function completeDocument(ctx: Context, workspaceId: string, id: string): Promise<DocumentRow> {
  const row = await getDocument(ctx.db, workspaceId, id);
  if (row.status === "extracted") return row;
  if (row.status === "failed") throw extractFailure(row);
  const size = await checkStoredUpload(ctx, row);
  if (size === null) throw notUploaded(ctx, row);
  try {
    // Extracted outside the transaction: only the bookkeeping holds the writer.
    const { doc, size: read } = await extractStored(ctx, row);
    await tx(ctx.db, (t) => markExtracted(t, row.id, doc, read));
  } catch (err) {
    if (!(err instanceof ExtractError)) throw err;
    await tx(ctx.db, (t) => markFailed(t, row.id, err, size));
    throw asApiError(err);
  }
  return getDocument(ctx.db, workspaceId, id);
}

/** Stores bytes received in one request as a new document, status "uploaded" (not yet extracted). */
export async function storeUploadedDocument(
  ctx: Context,
  input: { workspaceId: string; filename: string; mimeType?: string | null; stream: ReadableStream<Uint8Array>; param?: string },
): Promise<DocumentRow> {
  const filename = checkFilename(input.filename, input.param ?? "filename");
  // The part's type comes from the client's HTTP library, not from a field the user filled: an odd one is ignored.
  let mimeType: string;
  try {
    mimeType = resolveMimeType(filename, input.mimeType || null);
  } catch {
    mimeType = resolveMimeType(filename, null);
  }
  const id = newId("doc");
  const { size } = await objectStore(ctx).put(objectKey(input.workspaceId, id), input.stream, { maxBytes: MAX_OBJECT_BYTES });
  const row = { ...newDocumentRow(ctx, { id, workspaceId: input.workspaceId, filename, mimeType, size, status: "uploaded" }), sizeBytes: size };
  await tx(ctx.db, (t) => t.insert(documents).values(row));
  return row;
}

/**
 * For the legacy multipart run form: stores the bytes as a document and extracts them at once.
 * Bad content is 415/422 naming the file; the document row is kept as failed.
 */
export async function createDocumentFromBytes(
  ctx: Context,
  input: { workspaceId: string; filename: string; mimeType?: string | null; bytes: Uint8Array },
): Promise<DocumentRow> {
  if (input.bytes.length > MAX_OBJECT_BYTES) throw new ApiError(413, "payload_too_large", `${input.filename} is over the 50 MB limit`);
  const row = await storeUploadedDocument(ctx, { ...input, stream: bytesStream(input.bytes) });
  try {
    const doc = await extractMeasured(ctx, input.bytes, row);
    await tx(ctx.db, (t) => markExtracted(t, row.id, doc, input.bytes.length));
  } catch (err) {
    if (!(err instanceof ExtractError)) throw err;
    await tx(ctx.db, (t) => markFailed(t, row.id, err, input.bytes.length));
    throw asApiError(err, `${row.filename}: `);
  }
  return getDocument(ctx.db, input.workspaceId, row.id);
}

/** Removes documents made for a request that then failed (the legacy multipart run form): rows and stored files. */
export async function discardDocuments(ctx: Context, workspaceId: string, ids: string[]): Promise<void> {
  for (const id of ids) {
    const row = await findDocument(ctx.db, workspaceId, id);
    if (!row) continue;
    await tx(ctx.db, (t) => t.delete(documents).where(eq(documents.id, id)));
    await objectStore(ctx).delete(row.objectKey);
  }
}
