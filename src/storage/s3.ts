// S3ObjectStore: objects in an S3-compatible bucket (AWS S3, MinIO, Ceph) over plain fetch + our SigV4 signer, and the
// presigned URLs that let clients upload and download without the bytes passing through Assay.
import { timingSafeEqual } from "node:crypto";
import type { S3Config } from "../config";
import { assertValidKey, isValidKey, ObjectCommitRefused, type ObjectStore, ObjectTooLargeError, type StoredObject } from "./object-store";
import { presign, type S3Credentials, signedHeaders } from "./sigv4";

/** 8 MiB parts: S3's minimum is 5 MiB (all parts but the last); one part is the most a put holds in memory. */
const PART_BYTES = 8 * 1024 * 1024;
/** One request (a part, a HEAD) that takes longer than this is given up: the store is as good as unreachable. */
const REQUEST_TIMEOUT_MS = 120_000;

/** The store answered with an error (or not at all). The message names the operation and S3's code, never a credential. */
export class ObjectStoreError extends Error {
  constructor(
    readonly operation: string,
    /** The store's HTTP status (null: no answer). Not `status`: that would read as our own answer's status. */
    readonly httpStatus: number | null,
    readonly code: string,
  ) {
    super(`object store: ${operation} failed: ${httpStatus ?? "no answer"} ${code}`);
    this.name = "ObjectStoreError";
  }
}

/** <Code>NoSuchKey</Code> from an S3 XML error body. */
function xmlField(xml: string, field: string): string | null {
  return new RegExp(`<${field}>([^<]*)</${field}>`).exec(xml)?.[1] ?? null;
}

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** "20261125T122827Z" → ms. */
function parseAmzDate(s: string): number | null {
  const m = /^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/.exec(s);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : null;
}

export class S3ObjectStore implements ObjectStore {
  private readonly creds: S3Credentials;
  private readonly partBytes: number;

  constructor(
    readonly config: S3Config,
    opts: { partBytes?: number } = {},
  ) {
    this.creds = {
      accessKeyId: config.accessKeyId,
      secretAccessKey: config.secretAccessKey,
      sessionToken: config.sessionToken,
      region: config.region,
    };
    this.partBytes = opts.partBytes ?? PART_BYTES;
  }

  /** The bucket's URL: https://host/bucket/ (path style) or https://bucket.host/. */
  private bucketUrl(): string {
    const e = new URL(this.config.endpoint);
    return this.config.forcePathStyle ? `${e.origin}/${this.config.bucket}/` : `${e.protocol}//${this.config.bucket}.${e.host}/`;
  }

  /** Where every object of this store lives: the bucket URL plus the prefix. */
  get baseUrl(): string {
    return this.bucketUrl() + this.config.prefix;
  }

  private objectUrl(key: string, query: Record<string, string> = {}): URL {
    assertValidKey(key);
    const url = new URL(this.baseUrl + key);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    return url;
  }

  private async send(
    operation: string,
    method: string,
    url: URL,
    init: { headers?: Record<string, string>; body?: Uint8Array | string } = {},
  ): Promise<Response> {
    const headers = signedHeaders(this.creds, method, url, init.headers ?? {}, Date.now());
    try {
      return await fetch(url, { method, headers, body: init.body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS), redirect: "manual" });
    } catch (err) {
      const code = (err as { code?: string }).code ?? (err as Error).name ?? "unreachable";
      throw new ObjectStoreError(operation, null, code);
    }
  }

  /** The error an unexpected answer stands for (its body read for S3's code). */
  private async failure(operation: string, res: Response): Promise<ObjectStoreError> {
    const text = await res.text().catch(() => "");
    return new ObjectStoreError(operation, res.status, xmlField(text, "Code") ?? (res.statusText || "error"));
  }

  async put(
    key: string,
    stream: ReadableStream<Uint8Array>,
    opts: { maxBytes: number; commitIf?: () => boolean | Promise<boolean> },
  ): Promise<{ size: number }> {
    const url = this.objectUrl(key);
    const reader = stream.getReader();
    let size = 0;
    let chunks: Uint8Array[] = [];
    let buffered = 0;
    let uploadId: string | null = null;
    const parts: string[] = [];
    let done = false;
    const uploadPart = async () => {
      uploadId ??= await this.createMultipart(url);
      const body = concat(chunks, buffered);
      chunks = [];
      buffered = 0;
      const partUrl = new URL(url);
      partUrl.searchParams.set("partNumber", String(parts.length + 1));
      partUrl.searchParams.set("uploadId", uploadId);
      const res = await this.send("UploadPart", "PUT", partUrl, { body });
      if (!res.ok) throw await this.failure("UploadPart", res);
      await res.body?.cancel();
      parts.push(res.headers.get("etag") ?? "");
    };
    try {
      for (;;) {
        const { done: end, value } = await reader.read();
        if (end) break;
        size += value.byteLength;
        // Checked before a byte of it is sent: over the cap, nothing becomes visible (the multipart upload is aborted).
        if (size > opts.maxBytes) throw new ObjectTooLargeError(opts.maxBytes);
        chunks.push(value);
        buffered += value.byteLength;
        if (buffered >= this.partBytes) await uploadPart();
      }
      if (uploadId === null) {
        // Small enough for one PUT: commitIf is asked right before the request that makes the object visible.
        if (opts.commitIf && !(await opts.commitIf())) throw new ObjectCommitRefused(key);
        const res = await this.send("PutObject", "PUT", url, { body: concat(chunks, buffered) });
        if (!res.ok) throw await this.failure("PutObject", res);
        await res.body?.cancel();
      } else {
        if (buffered > 0) await uploadPart();
        // The parts are invisible until CompleteMultipartUpload: the last moment to say no.
        if (opts.commitIf && !(await opts.commitIf())) throw new ObjectCommitRefused(key);
        await this.completeMultipart(url, uploadId, parts);
      }
      done = true;
      return { size };
    } finally {
      // Released, not cancelled: a refused request body is read away by the error handler (lingering close).
      reader.releaseLock();
      if (!done && uploadId !== null) await this.abortMultipart(url, uploadId);
    }
  }

  private async createMultipart(url: URL): Promise<string> {
    const u = new URL(url);
    u.searchParams.set("uploads", "");
    const res = await this.send("CreateMultipartUpload", "POST", u);
    if (!res.ok) throw await this.failure("CreateMultipartUpload", res);
    const id = xmlField(await res.text(), "UploadId");
    if (!id) throw new ObjectStoreError("CreateMultipartUpload", res.status, "NoUploadId");
    return id;
  }

  private async completeMultipart(url: URL, uploadId: string, etags: string[]): Promise<void> {
    const u = new URL(url);
    u.searchParams.set("uploadId", uploadId);
    const xml = `<CompleteMultipartUpload>${etags.map((e, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${e}</ETag></Part>`).join("")}</CompleteMultipartUpload>`;
    const res = await this.send("CompleteMultipartUpload", "POST", u, { body: xml, headers: { "content-type": "application/xml" } });
    const text = await res.text();
    // S3 may answer 200 and still report an error in the body (it has started streaming keep-alive whitespace).
    if (!res.ok || xmlField(text, "Code")) throw new ObjectStoreError("CompleteMultipartUpload", res.status, xmlField(text, "Code") ?? "error");
  }

  /** Best effort: an upload left behind costs storage until the bucket's lifecycle rule (docs/scale.md) removes it. */
  private async abortMultipart(url: URL, uploadId: string): Promise<void> {
    const u = new URL(url);
    u.searchParams.set("uploadId", uploadId);
    try {
      const res = await this.send("AbortMultipartUpload", "DELETE", u);
      await res.body?.cancel();
    } catch {}
  }

  async get(key: string): Promise<StoredObject | null> {
    const res = await this.send("GetObject", "GET", this.objectUrl(key));
    if (res.status === 404) {
      const err = await this.failure("GetObject", res);
      if (err.code === "NoSuchBucket") throw err;
      return null;
    }
    if (!res.ok) throw await this.failure("GetObject", res);
    const size = Number(res.headers.get("content-length") ?? Number.NaN);
    if (!Number.isSafeInteger(size)) {
      await res.body?.cancel();
      throw new ObjectStoreError("GetObject", res.status, "NoContentLength");
    }
    // The body is streamed from the store as it is read; it can be read once.
    return {
      size,
      stream: () => res.body ?? new ReadableStream({ start: (c) => c.close() }),
      arrayBuffer: () => res.arrayBuffer(),
      text: () => res.text(),
    };
  }

  async stat(key: string): Promise<{ size: number; contentType?: string } | null> {
    const res = await this.send("HeadObject", "HEAD", this.objectUrl(key));
    if (res.status === 404) return null;
    if (!res.ok) throw new ObjectStoreError("HeadObject", res.status, res.statusText || "error");
    const contentType = res.headers.get("content-type");
    return { size: Number(res.headers.get("content-length") ?? 0), ...(contentType ? { contentType } : {}) };
  }

  async delete(key: string): Promise<void> {
    const res = await this.send("DeleteObject", "DELETE", this.objectUrl(key));
    if (!res.ok && res.status !== 404) throw await this.failure("DeleteObject", res);
    await res.body?.cancel();
  }

  /** HeadBucket at start: the bucket exists and the credentials are accepted, or the reason why not. */
  async probe(): Promise<void> {
    const res = await this.send("HeadBucket", "HEAD", new URL(this.bucketUrl()));
    // A HEAD answer has no body, so S3's code is inferred from the status.
    if (res.status === 404) throw new ObjectStoreError("HeadBucket", 404, "NoSuchBucket");
    if (!res.ok) throw new ObjectStoreError("HeadBucket", res.status, res.status === 403 ? "AccessDenied" : res.statusText || "error");
  }

  /**
   * A presigned PUT: the client must send exactly `contentType`, and exactly `size` bytes when one was declared
   * (both are signed headers; the store refuses anything else with 403 SignatureDoesNotMatch).
   */
  presignUpload(key: string, opts: { contentType: string; size?: number; nowMs: number; expiresS: number }): string {
    const headers: Record<string, string> = { "content-type": opts.contentType };
    if (opts.size !== undefined) headers["content-length"] = String(opts.size);
    return presign(this.creds, "PUT", this.objectUrl(key), { headers, nowMs: opts.nowMs, expiresS: opts.expiresS });
  }

  /** A presigned GET that the store answers with `contentType` and `disposition` (response-* parameters, signed). */
  presignDownload(key: string, opts: { contentType: string; disposition: string; nowMs: number; expiresS: number }): string {
    const url = this.objectUrl(key, { "response-content-type": opts.contentType, "response-content-disposition": opts.disposition });
    return presign(this.creds, "GET", url, { nowMs: opts.nowMs, expiresS: opts.expiresS });
  }

  /** A GET URL this store presigned (its signature verifies, expired or not): its key and response headers; else null. */
  verifyDownload(raw: string): { key: string; contentType: string; disposition: string } | null {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return null;
    }
    const base = new URL(this.baseUrl);
    if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) return null;
    const q = url.searchParams;
    const key = decodeURIComponent(url.pathname.slice(base.pathname.length));
    const contentType = q.get("response-content-type");
    const disposition = q.get("response-content-disposition");
    const date = parseAmzDate(q.get("X-Amz-Date") ?? "");
    const expiresS = Number(q.get("X-Amz-Expires"));
    const given = q.get("X-Amz-Signature") ?? "";
    if (!isValidKey(key) || contentType === null || disposition === null || date === null || !Number.isSafeInteger(expiresS)) return null;
    const again = new URL(this.presignDownload(key, { contentType, disposition, nowMs: date, expiresS })).searchParams.get("X-Amz-Signature") ?? "";
    if (given.length !== again.length || !timingSafeEqual(Buffer.from(given), Buffer.from(again))) return null;
    return { key, contentType, disposition };
  }
}
