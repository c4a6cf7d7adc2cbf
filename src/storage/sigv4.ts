// AWS Signature Version 4 for S3: signed request headers and presigned URLs, synchronous (node:crypto) so a URL can be
// presigned inside a SQLite transaction. Payloads are never hashed (UNSIGNED-PAYLOAD): bodies stream through once.
import { createHash, createHmac } from "node:crypto";

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string | null;
  region: string;
}

const UNSIGNED = "UNSIGNED-PAYLOAD";

/** RFC 3986 percent-encoding, as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** 20130524T000000Z */
function amzDate(ms: number): string {
  return new Date(ms).toISOString().replace(/[:-]|\.\d{3}/g, "");
}

const hmac = (key: string | Buffer, data: string) => createHmac("sha256", key).update(data).digest();
const sha256Hex = (data: string) => createHash("sha256").update(data).digest("hex");

// Signing keys change once a day per region: cache the last few.
const keyCache = new Map<string, Buffer>();
function signingKey(c: S3Credentials, day: string): Buffer {
  const id = `${c.secretAccessKey}\n${day}\n${c.region}`;
  let key = keyCache.get(id);
  if (!key) {
    key = hmac(hmac(hmac(hmac(`AWS4${c.secretAccessKey}`, day), c.region), "s3"), "aws4_request");
    if (keyCache.size > 16) keyCache.clear();
    keyCache.set(id, key);
  }
  return key;
}

/** The path as S3 canonicalises it: each segment encoded once, slashes kept. */
function canonicalPath(url: URL): string {
  return url.pathname
    .split("/")
    .map((segment) => rfc3986(decodeURIComponent(segment)))
    .join("/");
}

function canonicalQuery(params: URLSearchParams): string {
  return [...params]
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort(([k1, v1], [k2, v2]) => (k1 < k2 ? -1 : k1 > k2 ? 1 : v1 < v2 ? -1 : v1 > v2 ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
}

/** The signature over method, URL (its query as it stands) and `headers` (names lower case; host added here). */
function sign(
  c: S3Credentials,
  method: string,
  url: URL,
  headers: Record<string, string>,
  date: string,
): { signature: string; signedHeaders: string } {
  const all: Record<string, string> = { ...headers, host: url.host };
  const names = Object.keys(all).sort();
  const signedHeaders = names.join(";");
  const canonical = [
    method,
    canonicalPath(url),
    canonicalQuery(url.searchParams),
    names.map((n) => `${n}:${all[n].trim().replace(/\s+/g, " ")}\n`).join(""),
    signedHeaders,
    headers["x-amz-content-sha256"] ?? UNSIGNED,
  ].join("\n");
  const scope = `${date.slice(0, 8)}/${c.region}/s3/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", date, scope, sha256Hex(canonical)].join("\n");
  return {
    signature: createHmac("sha256", signingKey(c, date.slice(0, 8)))
      .update(toSign)
      .digest("hex"),
    signedHeaders,
  };
}

/** Headers to send with a request signed in the Authorization header (`headers` are signed too; names lower case). */
export function signedHeaders(c: S3Credentials, method: string, url: URL, headers: Record<string, string>, nowMs: number): Record<string, string> {
  const date = amzDate(nowMs);
  const out: Record<string, string> = { ...headers, "x-amz-date": date, "x-amz-content-sha256": UNSIGNED };
  if (c.sessionToken) out["x-amz-security-token"] = c.sessionToken;
  const { signature, signedHeaders } = sign(c, method, url, out, date);
  out.authorization = `AWS4-HMAC-SHA256 Credential=${c.accessKeyId}/${date.slice(0, 8)}/${c.region}/s3/aws4_request, SignedHeaders=${signedHeaders}, Signature=${signature}`;
  return out;
}

/**
 * A presigned URL: `url` (with any response-* parameters already in its query) valid `expiresS` seconds from `nowMs`.
 * `headers` (names lower case) become signed headers the caller must send exactly: content-type, content-length.
 */
export function presign(
  c: S3Credentials,
  method: string,
  url: URL,
  opts: { headers?: Record<string, string>; nowMs: number; expiresS: number },
): string {
  const date = amzDate(opts.nowMs);
  const out = new URL(url);
  const headers = opts.headers ?? {};
  const q = out.searchParams;
  q.set("X-Amz-Algorithm", "AWS4-HMAC-SHA256");
  q.set("X-Amz-Credential", `${c.accessKeyId}/${date.slice(0, 8)}/${c.region}/s3/aws4_request`);
  q.set("X-Amz-Date", date);
  q.set("X-Amz-Expires", String(opts.expiresS));
  q.set("X-Amz-SignedHeaders", ["host", ...Object.keys(headers)].sort().join(";"));
  if (c.sessionToken) q.set("X-Amz-Security-Token", c.sessionToken);
  const { signature } = sign(c, method, out, headers, date);
  // Written out in the canonical encoding (%20, not "+"), so every store decodes the query the way it was signed.
  out.search = `${canonicalQuery(q)}&X-Amz-Signature=${signature}`;
  return out.toString();
}
