// Signed object URLs: {publicUrl}/v1/objects/<key>?expires=…&sig=… where sig is an HMAC over everything the URL allows.
import { createHmac, timingSafeEqual } from "node:crypto";
import { assertValidKey } from "./object-store";

type SignedMethod = "PUT" | "GET";

export interface SignOptions {
  method: SignedMethod;
  key: string;
  /** Unix seconds. */
  expiresAt: number;
  /** PUT: the Content-Type the upload must carry. GET: the Content-Type the download is served with. */
  contentType?: string;
  /** GET: the download's filename (Content-Disposition). */
  filename?: string;
  /** PUT: the most bytes the upload may have. */
  maxBytes?: number;
}

export type VerifyResult =
  | { ok: true; expiresAt: number; contentType: string | null; filename: string | null; maxBytes: number | null }
  | { ok: false; code: "signature_invalid" | "url_expired" };

/**
 * The signed string names the method, so a download URL cannot be replayed as an upload, and every parameter the
 * URL carries, so none can be changed. Fields are joined by "\n", which none of them may contain.
 */
function signature(secret: string, o: SignOptions): string {
  const canonical = ["assay-object-v1", o.method, o.key, String(o.expiresAt), o.contentType ?? "", o.maxBytes ?? "", o.filename ?? ""].join("\n");
  return createHmac("sha256", secret).update(canonical).digest("base64url");
}

export function signUrl(secret: string, publicUrl: string, o: SignOptions): string {
  assertValidKey(o.key);
  for (const v of [o.contentType, o.filename]) {
    if (v !== undefined && /[\n\r]/.test(v)) throw new Error("signed URL parameters cannot contain line breaks");
  }
  const q = new URLSearchParams();
  q.set("expires", String(o.expiresAt));
  if (o.contentType !== undefined) q.set("ct", o.contentType);
  if (o.maxBytes !== undefined) q.set("max", String(o.maxBytes));
  if (o.filename !== undefined) q.set("fn", o.filename);
  q.set("sig", signature(secret, o));
  return `${publicUrl.replace(/\/+$/, "")}/v1/objects/${o.key}?${q.toString()}`;
}

/** Checks a request against its URL's signature (constant-time) and then its expiry; `nowMs` is the clock's time. */
export function verifySignedUrl(
  secret: string,
  req: { method: string; key: string; query: URLSearchParams | Record<string, string | undefined>; nowMs: number },
): VerifyResult {
  const get = (name: string) => (req.query instanceof URLSearchParams ? req.query.get(name) : req.query[name]) ?? null;
  const expiresRaw = get("expires");
  const sig = get("sig");
  const maxRaw = get("max");
  const method = req.method.toUpperCase() === "HEAD" ? "GET" : req.method.toUpperCase();
  if (!expiresRaw || !/^\d{1,12}$/.test(expiresRaw) || !sig || (maxRaw !== null && !/^\d{1,15}$/.test(maxRaw))) {
    return { ok: false, code: "signature_invalid" };
  }
  if (method !== "PUT" && method !== "GET") return { ok: false, code: "signature_invalid" };
  const o: SignOptions = {
    method,
    key: req.key,
    expiresAt: Number(expiresRaw),
    contentType: get("ct") ?? undefined,
    filename: get("fn") ?? undefined,
    maxBytes: maxRaw === null ? undefined : Number(maxRaw),
  };
  const expected = Buffer.from(signature(secret, o));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, code: "signature_invalid" };
  if (o.expiresAt * 1000 <= req.nowMs) return { ok: false, code: "url_expired" };
  return { ok: true, expiresAt: o.expiresAt, contentType: o.contentType ?? null, filename: o.filename ?? null, maxBytes: o.maxBytes ?? null };
}
