// Reads POST /reference-documents bodies: JSON (presigned form), or multipart (name + file) streamed straight to the
// object store with the 50 MB cap enforced while streaming (the file is never held whole in memory).

import { Readable } from "node:stream";
import busboy from "busboy";
import type { Context } from "../../context";
import { bodyChunks, checkSchema, readJsonBody } from "../../http/body";
import { ApiError } from "../../http/errors";
import { drained } from "../../lib/drained";
import { MAX_OBJECT_BYTES } from "../../storage";
import { type DocumentRow, discardDocuments, storeUploadedDocument } from "../documents/service";
import { CreateReferenceJson } from "./model";

/** Room for the multipart boundaries and part headers around a 50 MB file: the cap on the whole body. */
const MULTIPART_MAX = MAX_OBJECT_BYTES + 64 * 1024;

export type CreateRequest =
  | { kind: "json"; body: { name: string; filename: string; mime_type?: string; size_bytes?: number } }
  | { kind: "multipart"; name: string; document: DocumentRow };

const tooLarge = () => new ApiError(413, "payload_too_large", "The file is over the 52428800-byte (50 MB) limit", "file");
const unparsable = () => new ApiError(400, "validation_error", "The multipart body could not be parsed");

export async function readCreateRequest(ctx: Context, workspaceId: string, request: Request): Promise<CreateRequest> {
  const contentType = request.headers.get("content-type") ?? "";
  const media = contentType.split(";")[0].trim().toLowerCase();
  if (media === "application/json") {
    // Same checks, same 400 body as a route with a `body` schema (this route parses the body itself).
    return { kind: "json", body: checkSchema(CreateReferenceJson, await readJsonBody(request)) };
  }
  if (media === "multipart/form-data") return readMultipart(ctx, workspaceId, request, contentType);
  throw new ApiError(415, "unsupported_media_type", "Send application/json (presigned upload) or multipart/form-data (name and file)");
}

/**
 * Parts in any order: the `file` part goes to the object store as it arrives (busboy stops it at 50 MB), the `name`
 * field is checked at the end. A request that fails leaves no stored document behind.
 */
async function readMultipart(ctx: Context, workspaceId: string, request: Request, contentType: string): Promise<CreateRequest> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": contentType },
      limits: { files: 1, fileSize: MAX_OBJECT_BYTES, fields: 10, fieldSize: 4096, parts: 20 },
    });
  } catch {
    throw unparsable();
  }
  let name: string | undefined;
  let stored: Promise<DocumentRow> | null = null;
  let secondFile = false;
  const finished = new Promise<void>((resolve, reject) => {
    parser.on("field", (field, value) => {
      if (field === "name") name = value;
    });
    parser.on("file", (field, stream, info) => {
      if (field !== "file" || stored) {
        if (field === "file") secondFile = true;
        stream.resume(); // not ours: drain it so the parser goes on
        return;
      }
      // Over the cap: stop here (the feeding below stops with the parser); the rest is read away, bounded. Not at
      // once: busboy still works on this file stream when it says "limit".
      stream.on("limit", () => queueMicrotask(() => parser.destroy(tooLarge())));
      const web = Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
      stored = storeUploadedDocument(ctx, { workspaceId, filename: info.filename || "upload", mimeType: info.mimeType, stream: web, param: "file" });
      // Whatever happens to the store, keep reading so the parser reaches its end.
      stored.catch(() => stream.resume());
    });
    // busboy stops at one file (limits.files): a second file part is reported here, not as a file.
    parser.on("filesLimit", () => {
      secondFile = true;
    });
    parser.on("close", resolve);
    parser.on("error", reject);
  });
  if (!request.body) throw unparsable();
  // Fed by hand, not piped: reading stops as soon as the parser does (an error, a file over the cap), and what is left
  // of the body stays for the error handler to read away, bounded (lingering close, see http/body.ts).
  void (async () => {
    for await (const chunk of bodyChunks(request, MULTIPART_MAX, tooLarge)) {
      if (parser.destroyed) return;
      if (!parser.write(chunk)) await drained(parser);
    }
    if (!parser.destroyed) parser.end();
  })().catch((err) => parser.destroy(err));

  let document: DocumentRow | null = null;
  try {
    await finished.catch((err) => {
      throw err instanceof ApiError ? err : unparsable();
    });
    document = stored ? await stored : null;
    if (secondFile) throw new ApiError(400, "validation_error", "send one file part per reference document (two were sent)", "file");
    if (typeof name !== "string") throw new ApiError(400, "validation_error", "name is required", "name");
    if (!document) throw new ApiError(400, "validation_error", "file is required (a file part)", "file");
    return { kind: "multipart", name, document };
  } catch (err) {
    if (!document && stored) document = await (stored as Promise<DocumentRow>).catch(() => null);
    if (document) await discardDocuments(ctx, workspaceId, [document.id]);
    throw err;
  }
}
