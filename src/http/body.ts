// Request bodies a route reads itself (parse: "none"): size-capped reading, JSON parsing and TypeBox validation
// that answer exactly like Elysia's own parsing does (invalid_json, validation_error with param, payload_too_large).
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { t } from "elysia";
import { ApiError } from "./errors";

/**
 * Reads the whole body, stopping with 413 as soon as it passes `maxBytes` (Content-Length is checked first). The rest
 * of a refused body is left unread, not cancelled: the error handler reads it away (discardUnreadBody).
 */
export async function readBodyCapped(request: Request, maxBytes: number, what = "request body"): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  const tooLarge = () => new ApiError(413, "payload_too_large", `The ${what} is larger than ${maxBytes} bytes`);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  if (!request.body) return new Uint8Array();
  const parts: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw tooLarge();
      parts.push(value);
    }
  } finally {
    reader.releaseLock();
  }
  return Buffer.concat(parts);
}

/**
 * Lingering close (RFC 9112 §9.6): before an error answer goes out, what is left of the request body is read and
 * thrown away, so a client that sends its whole body before reading (most do) gets our answer instead of a reset.
 * Bounded: at most LINGER_MAX_BYTES and LINGER_MAX_MS; a body that declares more than any upload limit (50 MB) plus
 * that is not read at all (its client gets the reset it asked for).
 */
const LINGER_MAX_BYTES = 64 * 1024 * 1024;
const LINGER_MAX_MS = 5_000;
const LINGER_MAX_DECLARED = 50 * 1024 * 1024 + LINGER_MAX_BYTES;

export async function discardUnreadBody(request: Request): Promise<void> {
  const body = request.body;
  if (!body || body.locked) return; // a body read to its end just reports done below
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > LINGER_MAX_DECLARED) return;
  const reader = body.getReader();
  const deadline = Date.now() + LINGER_MAX_MS;
  let total = 0;
  try {
    while (total <= LINGER_MAX_BYTES) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), left);
      });
      const chunk = await Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
      if (!chunk || chunk.done) break;
      total += chunk.value.byteLength;
    }
  } catch {
    // The client went away: nothing left to protect.
  } finally {
    reader.releaseLock();
  }
}

const JSON_BODY_MAX = 1024 * 1024;
const JSON_MAX_DEPTH = 64;

/** Deepest nesting of arrays/objects in a JSON text (brackets inside strings do not count). */
function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) max = Math.max(max, ++depth);
    else if (c === 125 || c === 93) depth--;
  }
  return max;
}

/**
 * JSON.parse with our errors; deep nesting is refused before anything recursive (validation, cloning) sees it. A
 * `__proto__` key is refused too: copying the value would silently drop it (or worse, set a prototype).
 */
export function parseJson(text: string): unknown {
  if (jsonDepth(text) > JSON_MAX_DEPTH) {
    throw new ApiError(400, "invalid_json", `The request body nests deeper than ${JSON_MAX_DEPTH} levels`);
  }
  let value: unknown;
  let proto = false;
  try {
    value = JSON.parse(text, (key, v) => {
      if (key === "__proto__") proto = true;
      return v;
    });
  } catch {
    throw new ApiError(400, "invalid_json", "The request body is not valid JSON");
  }
  if (proto) throw new ApiError(400, "validation_error", 'A key named "__proto__" is not accepted anywhere in a body');
  return value;
}

/** The one reader of JSON bodies: application/json only, at most JSON_BODY_MAX bytes (chunked or not), bounded depth. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const media = (request.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  const bytes = await readBodyCapped(request, JSON_BODY_MAX, "JSON body");
  if (bytes.byteLength === 0) return null; // parsed: nothing (undefined would hand the body to another parser)
  if (media !== "application/json" && !media.endsWith("+json")) {
    throw new ApiError(415, "unsupported_media_type", "Send the body as application/json");
  }
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new ApiError(400, "invalid_json", "The request body is not valid UTF-8");
  }
  return parseJson(text);
}

// Fatal: invalid UTF-8 is refused, never replaced with U+FFFD behind the client's back.
const UTF8 = new TextDecoder("utf-8", { fatal: true });

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

/**
 * An integer field of a JSON body. Not t.Integer: Elysia makes that accept "5" too (it coerces strings, as query
 * parameters need), and a JSON body that sends a string where a number belongs is a client bug worth a 400.
 */
export const JsonInteger = (options: { minimum?: number; maximum?: number; description?: string } = {}) => t.Number({ ...options, multipleOf: 1 });
