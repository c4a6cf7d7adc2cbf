// Signed uploads and downloads: the signature is the credential; uploads stream to the store with a byte cap.
import { eq } from "drizzle-orm";
import type { Context } from "../../context";
import { documents } from "../../db/schema";
import { ApiError } from "../../http/errors";
import {
  contentDisposition,
  isValidKey,
  MAX_OBJECT_BYTES,
  ObjectCommitRefused,
  ObjectTooLargeError,
  objectStore,
  verifySignedUrl,
} from "../../storage";

type SignedQuery = Record<string, string | undefined>;

/** "Text/Plain; charset=UTF-8" → "text/plain": uploads are matched on the media type alone. */
function mediaType(header: string | null | undefined): string {
  return (header ?? "").split(";")[0].trim().toLowerCase();
}

/** A 415 when an upload's Content-Type is not the one its URL was signed for (media types compared, parameters not). */
export function contentTypeRefusal(expected: string | null, header: string | null | undefined): ApiError | null {
  const declaredType = mediaType(expected);
  const givenType = mediaType(header);
  if (declaredType && givenType === declaredType) return null;
  return new ApiError(
    415,
    "unsupported_media_type",
    givenType
      ? `Content-Type must be ${declaredType} (the upload_content_type of this upload), not ${givenType}`
      : `Send the header Content-Type: ${declaredType} (the upload_content_type of this upload)`,
  );
}

/** The object key from the wildcard path segment. */
export function keyFromPath(raw: string | undefined): string {
  try {
    return decodeURIComponent(raw ?? "");
  } catch {
    return "";
  }
}

function verify(ctx: Context, method: "PUT" | "GET", key: string, query: SignedQuery) {
  const result = isValidKey(key)
    ? verifySignedUrl(ctx.config.secret, { method, key, query, nowMs: ctx.clock.now() })
    : ({ ok: false, code: "signature_invalid" } as const);
  if (!result.ok) {
    throw result.code === "url_expired"
      ? new ApiError(403, "url_expired", "This signed URL has expired; ask the API for a new one")
      : new ApiError(403, "signature_invalid", "The URL's signature does not match; use the URL exactly as the API returned it");
  }
  return result;
}

function tooLarge(limit: number, declared: boolean) {
  return new ApiError(
    413,
    "payload_too_large",
    declared
      ? `The body is larger than the ${limit} bytes declared for this upload (size_bytes)`
      : `The body is larger than the ${limit}-byte (50 MB) limit`,
  );
}

export interface UploadRequest {
  key: string;
  query: SignedQuery;
  contentType: string | null;
  contentLength: string | null;
  body: ReadableStream<Uint8Array> | null;
}

/** PUT: checks signature, expiry, Content-Type and size (not content: that is judged at `complete`), then streams to disk. */
export async function receiveUpload(ctx: Context, req: UploadRequest): Promise<{ key: string; size_bytes: number }> {
  const signed = verify(ctx, "PUT", req.key, req.query);
  const refusal = contentTypeRefusal(signed.contentType, req.contentType);
  if (refusal) throw refusal;
  // Once its document is completed, the stored original is what the extracted text came from: it cannot change.
  // Checked before reading the body, and again right before the upload replaces what is stored.
  const completed = async () => {
    const [owner] = await ctx.db.select({ status: documents.status }).from(documents).where(eq(documents.objectKey, req.key)).limit(1);
    return owner !== undefined && owner.status !== "pending";
  };
  const alreadyCompleted = () =>
    new ApiError(409, "invalid_state", "This upload was already completed; create a new document to upload another file");
  if (await completed()) throw alreadyCompleted();
  const declared = signed.maxBytes !== null && signed.maxBytes < MAX_OBJECT_BYTES;
  const limit = signed.maxBytes !== null && declared ? signed.maxBytes : MAX_OBJECT_BYTES;
  // Refuse before reading a byte when the client says up front that the body is too big.
  if (req.contentLength !== null && /^\d+$/.test(req.contentLength) && Number(req.contentLength) > limit) throw tooLarge(limit, declared);
  const body = req.body ?? new ReadableStream<Uint8Array>({ start: (c) => c.close() });
  try {
    const { size } = await objectStore(ctx).put(req.key, body, { maxBytes: limit, commitIf: async () => !(await completed()) });
    return { key: req.key, size_bytes: size };
  } catch (err) {
    if (err instanceof ObjectTooLargeError) throw tooLarge(limit, declared);
    if (err instanceof ObjectCommitRefused) throw alreadyCompleted();
    throw err;
  }
}

/** GET: the stored bytes, streamed, with the signed Content-Type and file name. */
export async function serveDownload(ctx: Context, key: string, query: SignedQuery): Promise<Response> {
  const signed = verify(ctx, "GET", key, query);
  const blob = await objectStore(ctx).get(key);
  if (!blob) throw new ApiError(404, "not_found", "This file no longer exists");
  const headers: Record<string, string> = {
    "content-type": signed.contentType || "application/octet-stream",
    "content-length": String(blob.size),
    "content-disposition": contentDisposition(signed.filename || key.slice(key.lastIndexOf("/") + 1)),
    "cache-control": "private, no-store",
    "x-content-type-options": "nosniff",
  };
  return new Response(blob.stream(), { headers });
}
