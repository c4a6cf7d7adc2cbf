// ApiError and the one mapper that turns any thrown error into Assay's error body.
import { t } from "elysia";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const ErrorBody = t.Object(
  {
    error: t.Object({
      code: t.String({ examples: ["validation_error"] }),
      message: t.String({ examples: ["name is required"] }),
      param: t.Optional(t.String({ examples: ["name"] })),
      request_id: t.String({ examples: ["req_4f8Qk2LmZ9xW1aBcDeFgHiJk"] }),
    }),
  },
  { title: "Error" },
);

function errorJson(code: string, message: string, requestId: string, param?: string) {
  return { error: param === undefined ? { code, message, request_id: requestId } : { code, message, param, request_id: requestId } };
}

/**
 * Elysia's validation error → the field it is about, as a dotted path ("scopes.2"). Query parameters are checked
 * one by one and come without a path: the parameter is then the one whose value failed.
 */
/** The parts of Elysia's ValidationError (and of TypeBox's ValueError in it) read here. */
interface ValueErrorLike {
  path?: string;
  value?: unknown;
  summary?: string;
  message?: string;
  schema?: { error?: unknown; anyOf?: { const?: unknown; type?: unknown; minimum?: unknown; maximum?: unknown; format?: unknown }[] };
}

/** Whatever reaches the error hook, seen through the fields this mapper reads. */
interface ThrownLike {
  all?: ValueErrorLike[];
  valueError?: ValueErrorLike;
  type?: string;
  cause?: unknown;
  code?: unknown;
  response?: unknown;
}

function validationParam(err: ThrownLike | undefined, url?: string): { param?: string; message: string } {
  const first = err?.all?.[0] ?? err?.valueError;
  const rawPath: string = first?.path ?? "";
  let param = rawPath.replace(/^\//, "").replaceAll("/", ".") || undefined;
  if (!param && url && first && "value" in first) {
    const params = new URL(url).searchParams;
    for (const [name, value] of params) if (value === String(first.value)) param ??= name;
  }
  return { param, message: fieldMessage(param, valueErrorMessage(first)) };
}

/** What a TypeBox value error means, in words: the schema's own error, the values of an enum, or the kinds a union takes. */
export function valueErrorMessage(first: ValueErrorLike | undefined): string {
  const summary: string | undefined = first?.summary ?? first?.message;
  if (first?.schema?.error) return String(first.schema.error);
  const options = first?.schema?.anyOf;
  // An enum (a union of literals): name the allowed values rather than their types.
  if (options?.length && options.every((o) => o && typeof o === "object" && "const" in o)) {
    return `must be one of: ${options.map((o) => JSON.stringify(o.const)).join(", ")}`;
  }
  // Any other union ("integer 1–100000 or null"): what each branch takes, not TypeBox's "'integer', 'null'".
  // (A query's number also comes as its digits, a string of format "integer": the number branch says it.)
  const kinds = options?.filter((o) => !(o.type === "string" && (o.format === "integer" || o.format === "numeric"))).map(kindOf);
  if (kinds?.length) return `must be ${[...new Set(kinds)].join(" or ")}`;
  return summary ? String(summary) : "Invalid request";
}

/** A schema branch in words: "an integer from 1 to 100000", "null", "a date-time string". */
function kindOf(o: { type?: unknown; minimum?: unknown; maximum?: unknown; format?: unknown; const?: unknown }): string {
  if ("const" in o) return JSON.stringify(o.const);
  const range = typeof o.minimum === "number" && typeof o.maximum === "number" ? ` from ${o.minimum} to ${o.maximum}` : "";
  if (o.type === "integer") return `an integer${range}`;
  if (o.type === "number") return `a number${range}`;
  if (o.type === "null") return "null";
  if (o.type === "string") return typeof o.format === "string" ? `a ${o.format} string` : "a string";
  return typeof o.type === "string" ? `a${/^[aeiou]/.test(o.type) ? "n" : ""} ${o.type}` : "a valid value";
}

/** A validation message about `param`: named in it, and a field the request does not take said as such. */
export function fieldMessage(param: string | undefined, message: string): string {
  // (TypeBox's "Unexpected property": a misspelt "scope" for "scopes" must be seen, not fall back to a default.)
  if (param && /^unexpected property$/i.test(message)) return `${param} is not a field of this request`;
  return param && !message.includes(param) ? `${param}: ${message}` : message;
}

const STATUS_CODE: Record<number, string> = {
  400: "validation_error",
  401: "unauthenticated",
  403: "forbidden",
  404: "not_found",
  405: "not_found",
  413: "payload_too_large",
  415: "unsupported_media_type",
};

/** Maps anything thrown during a request to {status, body, headers}. Unknown errors never leak their message. */
export function mapError(code: string | number, thrown: unknown, requestId: string, url?: string) {
  // Our body reader runs as Elysia's parse hook, which wraps what it throws.
  const error = (code === "PARSE" && (thrown as ThrownLike)?.cause instanceof ApiError ? (thrown as ThrownLike).cause : thrown) as
    | ThrownLike
    | undefined;
  if (error instanceof ApiError) {
    // (A 401 names the scheme it wants, as RFC 6750 asks: a bearer token, a session's or a key.)
    const headers = error.status === 401 ? { "www-authenticate": 'Bearer realm="assay"', ...error.headers } : error.headers;
    return { status: error.status, body: errorJson(error.code, error.message, requestId, error.param), headers };
  }
  switch (code) {
    case "VALIDATION": {
      // Our own response failing its schema is our bug, never the caller's.
      if (error?.type === "response") break;
      const { param, message } = validationParam(error, url);
      return { status: 400, body: errorJson("validation_error", message, requestId, param) };
    }
    case "PARSE":
      return { status: 400, body: errorJson("invalid_json", "The request body is not valid JSON", requestId) };
    case "NOT_FOUND":
      return { status: 404, body: errorJson("not_found", "No such route", requestId) };
    case "INVALID_COOKIE_SIGNATURE":
    case "INVALID_FILE_TYPE":
      return { status: 400, body: errorJson("validation_error", "Invalid request", requestId) };
  }
  // PostgreSQL refuses the NUL character in text (SQLSTATE 22021), which can only have come from the request.
  if ((error?.cause as { code?: unknown } | undefined)?.code === "22021" || error?.code === "22021") {
    return { status: 400, body: errorJson("validation_error", "Text may not contain the NUL character (\\u0000)", requestId) };
  }
  // Elysia's status() responses thrown as errors carry a numeric code
  const status: number = typeof error?.code === "number" ? error.code : typeof code === "number" ? code : 500;
  if (status >= 400 && status < 500 && STATUS_CODE[status]) {
    return { status, body: errorJson(STATUS_CODE[status], typeof error?.response === "string" ? error.response : "Request failed", requestId) };
  }
  // Not a response a client caused: app.ts logs the error itself with the request id; the client gets neither.
  return { status: 500, body: errorJson("internal_error", "Something went wrong on our side; quote the request id when reporting it", requestId) };
}
