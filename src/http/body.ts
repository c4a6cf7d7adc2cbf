// Request bodies a route reads itself (parse: "none"): size-capped reading, JSON parsing and TypeBox validation
// that answer exactly like Elysia's own parsing does (invalid_json, validation_error with param, payload_too_large).
import { type ObjectOptions, type Static, type TObject, type TProperties, type TSchema, Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { ApiError, fieldMessage, valueErrorMessage } from "./errors";

// The one reader of each request body, kept for the whole request (never released): the lingering close reads on
// exactly where a refusing reader stopped, even one still waiting on a read it will never use.
type BodyReader = { read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }> };
const readers = new WeakMap<Request, BodyReader>();

function bodyReader(request: Request): BodyReader | null {
  let reader = readers.get(request);
  if (!reader && request.body && !request.body.locked) {
    reader = request.body.getReader();
    readers.set(request, reader);
  }
  return reader ?? null;
}

/**
 * The body's chunks, as they come; throws `tooLarge()` as soon as more than `maxBytes` came (a declared Content-Length
 * is checked first). What a refused body has left is read away by the error handler (discardUnreadBody), bounded.
 */
export async function* bodyChunks(request: Request, maxBytes: number, tooLarge: () => Error): AsyncGenerator<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge();
  if (!request.body) return;
  const reader = bodyReader(request);
  if (!reader) throw new Error("The request body is already being read by another reader");
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    total += value.byteLength;
    if (total > maxBytes) throw tooLarge();
    yield value;
  }
}

/**
 * The body as a stream, for code that takes one and caps it itself (the object store): read through the same one
 * reader, so whatever that code leaves unread is read away like any refused body, whether it released its lock or not.
 */
export function bodyStream(request: Request): ReadableStream<Uint8Array> | null {
  if (!request.body) return null;
  const chunks = bodyChunks(request, Number.POSITIVE_INFINITY, () => new Error("unreachable: no cap"));
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const next = await chunks.next();
        if (next.done) controller.close();
        else controller.enqueue(next.value);
      },
    },
    { highWaterMark: 0 }, // nothing read ahead: what the store does not take stays for the lingering close
  );
}

/** Reads the whole body, stopping with 413 as soon as it passes `maxBytes`. */
export async function readBodyCapped(request: Request, maxBytes: number, what = "request body"): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const tooLarge = () => new ApiError(413, "payload_too_large", `The ${what} is larger than ${maxBytes} bytes`);
  for await (const part of bodyChunks(request, maxBytes, tooLarge)) parts.push(part);
  return Buffer.concat(parts);
}

/**
 * Lingering close (RFC 9112 §9.6): before an error answer goes out, what is left of the request body is read and
 * thrown away, so a client that sends its whole body before reading (most do) gets our answer instead of a reset.
 * Read first, then answer: Bun closes a `Connection: close` exchange as soon as the answer is written, and unread
 * bytes then turn the close into a reset; reading on after answering is too late for the same reason.
 *
 * Bounded, so nobody can hold a connection or make us read without end: at most LINGER_MAX_BYTES and LINGER_MAX_MS,
 * and a body that declares more than any upload limit (50 MB) plus that is not read at all. Answers whether the body
 * was read to its end; if not, the caller must close the connection (Bun would otherwise go on reading it, unbounded,
 * to keep the connection alive).
 */
const LINGER_MAX_BYTES = 64 * 1024 * 1024;
const LINGER_MAX_MS = 5_000;
const LINGER_MAX_DECLARED = 50 * 1024 * 1024 + LINGER_MAX_BYTES;

export async function discardUnreadBody(request: Request): Promise<boolean> {
  if (!request.body) return true;
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > LINGER_MAX_DECLARED) return false;
  const reader = bodyReader(request);
  if (!reader) return false; // held by a reader that is not ours: where the body stands is unknown
  const deadline = Date.now() + LINGER_MAX_MS;
  let total = 0;
  try {
    while (total <= LINGER_MAX_BYTES) {
      const left = deadline - Date.now();
      if (left <= 0) return false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), left);
      });
      const chunk = await Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
      if (!chunk) return false;
      if (chunk.done) return true;
      total += chunk.value.byteLength;
    }
    return false;
  } catch {
    return false; // the client went away mid-body
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
    throw new ApiError(400, "validation_error", fieldMessage(param, valueErrorMessage(first)), param);
  }
  return withDefaults as Static<T>;
}

/**
 * A JSON request body's schema: a field it does not name is refused with 400 validation_error naming it, as Stripe
 * does, so a misspelt field ("scope" for "scopes", "event" for "events") never quietly falls back to its default.
 */
export const RequestBody = <T extends TProperties>(properties: T, options: ObjectOptions = {}) =>
  Type.Object(properties, { ...options, additionalProperties: false });

/**
 * A route's JSON body: its schema, and a transform (it runs before validation) that refuses a field the schema does
 * not name. Elysia's normalize would otherwise drop it unseen.
 */
export function strictBody<T extends TObject>(schema: T) {
  return {
    body: schema,
    transform({ body }: { body: unknown }) {
      refuseUnknownFields(schema, body);
    },
  };
}

/** 400 validation_error naming the first top-level field of `body` that `schema` does not name. */
function refuseUnknownFields(schema: TObject, body: unknown): void {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return;
  const unknown = Object.keys(body).find((key) => !Object.hasOwn(schema.properties, key));
  if (unknown !== undefined) throw new ApiError(400, "validation_error", fieldMessage(unknown, "Unexpected property"), unknown);
}

/**
 * An integer field of a JSON body or answer: TypeBox's own. Not t.Integer: Elysia makes that accept "5" too (it
 * coerces strings, as query parameters need), a JSON body that sends a string where a number belongs is a client bug
 * worth a 400, and each t.Integer compiles a checker when defined (19 of them were 3–5 ms of every start).
 */
export const JsonInteger = (options: { minimum?: number; maximum?: number; description?: string } = {}) => Type.Integer(options);
