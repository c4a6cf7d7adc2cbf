// Request bodies a route reads itself (parse: "none"): size-capped reading, JSON parsing and TypeBox validation
// that answer exactly like Elysia's own parsing does (invalid_json, validation_error with param, payload_too_large).
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { ApiError } from "./errors";

/** Reads the whole body, stopping with 413 as soon as it passes `maxBytes` (Content-Length is checked first). */
export async function readBodyCapped(request: Request, maxBytes: number, what = "request body"): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  const tooLarge = () => new ApiError(413, "payload_too_large", `The ${what} is larger than ${maxBytes} bytes`);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  if (!request.body) return new Uint8Array();
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > maxBytes) throw tooLarge();
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError(400, "invalid_json", "The request body is not valid JSON");
  }
}

/** Validates against a TypeBox schema; the first failure becomes 400 validation_error naming its field. */
export function checkSchema<T extends TSchema>(schema: T, value: unknown): Static<T> {
  const withDefaults = Value.Default(schema, structuredClone(value));
  const first = Value.Errors(schema, withDefaults).First();
  if (first) {
    const param = first.path.replace(/^\//, "").replaceAll("/", ".") || undefined;
    throw new ApiError(400, "validation_error", param ? `${param}: ${first.message}` : first.message, param);
  }
  return withDefaults as Static<T>;
}
