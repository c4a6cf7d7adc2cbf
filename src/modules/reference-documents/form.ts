// Reads POST /reference-documents bodies: JSON (presigned form) or multipart (name + file), with the 50 MB cap enforced.
import { checkSchema, readBodyCapped, readJsonBody } from "../../http/body";
import { ApiError } from "../../http/errors";
import { MAX_OBJECT_BYTES } from "../../storage";
import { CreateReferenceJson } from "./model";

/** Room for the multipart boundaries and part headers around a 50 MB file. */
const MULTIPART_OVERHEAD = 64 * 1024;

export type CreateRequest =
  | { kind: "json"; body: { name: string; filename: string; mime_type?: string; size_bytes?: number } }
  | { kind: "multipart"; name: string; file: File };

/**
 * Multipart bodies are parsed in memory (up to 50 MB each): at most this many at once, so a burst of large uploads
 * cannot take the server's memory. Others wait their turn; the presigned PUT streams to disk and has no such limit.
 */
const MULTIPART_AT_ONCE = 2;
let inFlight = 0;
const waiting: (() => void)[] = [];

async function withMultipartSlot<T>(fn: () => Promise<T>): Promise<T> {
  if (inFlight >= MULTIPART_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  else inFlight++;
  try {
    return await fn();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else inFlight--;
  }
}

const tooLarge = () => new ApiError(413, "payload_too_large", "The file is over the 52428800-byte (50 MB) limit", "file");

export async function readCreateRequest(request: Request): Promise<CreateRequest> {
  const contentType = request.headers.get("content-type") ?? "";
  const media = contentType.split(";")[0].trim().toLowerCase();
  if (media === "application/json") {
    // Same checks, same 400 body as a route with a `body` schema (this route parses the body itself).
    return { kind: "json", body: checkSchema(CreateReferenceJson, await readJsonBody(request)) };
  }
  if (media === "multipart/form-data") {
    const length = request.headers.get("content-length");
    if (length && /^\d+$/.test(length) && Number(length) > MAX_OBJECT_BYTES + MULTIPART_OVERHEAD) throw tooLarge();
    const form = await withMultipartSlot(async () => {
      const bytes = await readBodyCapped(request, MAX_OBJECT_BYTES + MULTIPART_OVERHEAD, "file (50 MB at most)");
      try {
        return (await new Response(bytes, { headers: { "content-type": contentType } }).formData()) as unknown as FormData;
      } catch {
        throw new ApiError(400, "validation_error", "The multipart body could not be parsed");
      }
    });
    const name = form.get("name");
    const file = form.get("file");
    if (typeof name !== "string") throw new ApiError(400, "validation_error", "name is required", "name");
    if (!(file instanceof File)) throw new ApiError(400, "validation_error", "file is required (a file part)", "file");
    if (file.size > MAX_OBJECT_BYTES) throw tooLarge();
    return { kind: "multipart", name, file };
  }
  throw new ApiError(415, "unsupported_media_type", "Send application/json (presigned upload) or multipart/form-data (name and file)");
}
