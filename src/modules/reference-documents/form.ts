// Reads POST /reference-documents bodies: JSON (presigned form) or multipart (name + file), with the 50 MB cap enforced.
import { ValidationError } from "elysia";
import { Value } from "@sinclair/typebox/value";
import { ApiError } from "../../http/errors";
import { MAX_OBJECT_BYTES } from "../../storage";
import { CreateReferenceJson } from "./model";

/** Room for the multipart boundaries and part headers around a 50 MB file. */
const MULTIPART_OVERHEAD = 64 * 1024;

export type CreateRequest =
  | { kind: "json"; body: { name: string; filename: string; mime_type?: string; size_bytes?: number } }
  | { kind: "multipart"; name: string; file: File };

const tooLarge = () => new ApiError(413, "payload_too_large", "The file is over the 52428800-byte (50 MB) limit", "file");

/** Reads at most `max` bytes of the body, or throws 413 as soon as it is passed. */
async function readCapped(body: ReadableStream<Uint8Array> | null, max: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      reader.cancel().catch(() => {});
      throw tooLarge();
    }
    parts.push(value);
  }
  return Buffer.concat(parts);
}

export async function readCreateRequest(request: Request): Promise<CreateRequest> {
  const contentType = request.headers.get("content-type") ?? "";
  const media = contentType.split(";")[0].trim().toLowerCase();
  if (media === "application/json") {
    const text = new TextDecoder().decode(await readCapped(request.body, 1024 * 1024));
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ApiError(400, "invalid_json", "The request body is not valid JSON");
    }
    // Same checks, same 400 body as a route with a `body` schema (this route parses the body itself).
    if (!Value.Check(CreateReferenceJson, value)) throw new ValidationError("body", CreateReferenceJson, value);
    return { kind: "json", body: value };
  }
  if (media === "multipart/form-data") {
    const length = request.headers.get("content-length");
    if (length && /^\d+$/.test(length) && Number(length) > MAX_OBJECT_BYTES + MULTIPART_OVERHEAD) throw tooLarge();
    const bytes = await readCapped(request.body, MAX_OBJECT_BYTES + MULTIPART_OVERHEAD);
    let form: FormData;
    try {
      form = (await new Response(bytes, { headers: { "content-type": contentType } }).formData()) as unknown as FormData;
    } catch {
      throw new ApiError(400, "validation_error", "The multipart body could not be parsed");
    }
    const name = form.get("name");
    const file = form.get("file");
    if (typeof name !== "string") throw new ApiError(400, "validation_error", "name is required", "name");
    if (!(file instanceof File)) throw new ApiError(400, "validation_error", "file is required (a file part)", "file");
    if (file.size > MAX_OBJECT_BYTES) throw tooLarge();
    return { kind: "multipart", name, file };
  }
  throw new ApiError(415, "unsupported_media_type", "Send application/json (presigned upload) or multipart/form-data (name and file)");
}
