// The object store as the rest of Assay sees it: one store per data dir (or S3 bucket), and signed upload/download URLs.
import path from "node:path";
import { type Config, ConfigError } from "../config";
import type { Context } from "../context";
import { LocalObjectStore } from "./local";
import { contentDisposition, isValidKey, type ObjectStore } from "./object-store";
import { ObjectStoreError, S3ObjectStore } from "./s3";
import { signUrl, verifySignedUrl } from "./signing";

export { copyObjectsFolder, LocalObjectStore } from "./local";
export {
  bytesStream,
  contentDisposition,
  InvalidKeyError,
  isValidKey,
  MAX_OBJECT_BYTES,
  ObjectCommitRefused,
  type ObjectStore,
  ObjectTooLargeError,
} from "./object-store";
export { ObjectStoreError, S3ObjectStore } from "./s3";
export { signUrl, verifySignedUrl } from "./signing";

/** Upload URLs live 15 minutes, download URLs 1 hour (CONTRACT.md "Uploads and downloads"). */
export const UPLOAD_URL_TTL_S = 15 * 60;
const DOWNLOAD_URL_TTL_S = 60 * 60;

// The Context has no storage field; stores are cached here by data dir (or S3 settings) so every caller shares one.
const stores = new Map<string, ObjectStore>();

/** ASSAY_OBJECT_STORE unset: files under <dataDir>/objects. s3://…: the S3-compatible store. */
export function objectStore(ctx: { config: Pick<Config, "dataDir" | "s3"> }): ObjectStore {
  const { s3, dataDir } = ctx.config;
  const id = s3 ? `s3\n${JSON.stringify(s3)}` : dataDir;
  let store = stores.get(id);
  if (!store) {
    store = s3 ? new S3ObjectStore(s3) : new LocalObjectStore(path.join(dataDir, "objects"));
    stores.set(id, store);
  }
  return store;
}

/**
 * At start, with an S3 store: one HeadBucket request, so a wrong bucket, key or address stops the server with one line
 * naming the setting to fix, instead of failing every upload later.
 */
export async function probeObjectStore(config: Pick<Config, "dataDir" | "s3">): Promise<void> {
  const store = objectStore({ config });
  if (!(store instanceof S3ObjectStore) || !config.s3) return;
  try {
    await store.probe();
  } catch (err) {
    if (!(err instanceof ObjectStoreError)) throw err;
    const { bucket, endpoint } = config.s3;
    const setting =
      err.httpStatus === null
        ? `ASSAY_S3_ENDPOINT: cannot reach ${endpoint}`
        : err.code === "NoSuchBucket"
          ? `ASSAY_OBJECT_STORE: there is no bucket "${bucket}" at ${endpoint}`
          : err.httpStatus === 403
            ? `ASSAY_S3_ACCESS_KEY_ID / ASSAY_S3_SECRET_ACCESS_KEY: ${endpoint} refused them for bucket "${bucket}"`
            : `ASSAY_OBJECT_STORE: ${endpoint} answered an error for bucket "${bucket}"`;
    throw new ConfigError(`${setting} (${err.message})`);
  }
}

export interface SignedUrl {
  url: string;
  /** ISO date-time. */
  expires_at: string;
}

function expiry(ctx: Pick<Context, "clock">, ttlS: number): number {
  return Math.floor(ctx.clock.now() / 1000) + ttlS;
}

/**
 * A PUT URL for `key` that accepts exactly `contentType` (media type, parameters ignored) and at most `maxBytes`.
 * On S3 the store checks it: the content type and the declared size (when there is one) are signed headers, and
 * `complete` checks the stored size and type (checkStoredUpload).
 */
export function signedUploadUrl(
  ctx: Pick<Context, "config" | "clock">,
  key: string,
  opts: { contentType: string; maxBytes: number; declaredSize?: number },
): SignedUrl {
  const expiresAt = expiry(ctx, UPLOAD_URL_TTL_S);
  const store = objectStore(ctx);
  if (store instanceof S3ObjectStore) {
    const url = store.presignUpload(key, {
      contentType: opts.contentType,
      size: opts.declaredSize,
      nowMs: ctx.clock.now(),
      expiresS: UPLOAD_URL_TTL_S,
    });
    return { url, expires_at: new Date(expiresAt * 1000).toISOString() };
  }
  const url = signUrl(ctx.config.secret, ctx.config.publicUrl, {
    method: "PUT",
    key,
    expiresAt,
    contentType: opts.contentType,
    maxBytes: opts.maxBytes,
  });
  return { url, expires_at: new Date(expiresAt * 1000).toISOString() };
}

/** A GET URL for `key`, served with `contentType` and as an attachment named `filename`. */
export function signedDownloadUrl(ctx: Pick<Context, "config" | "clock">, key: string, opts: { filename: string; contentType: string }): SignedUrl {
  const expiresAt = expiry(ctx, DOWNLOAD_URL_TTL_S);
  const store = objectStore(ctx);
  if (store instanceof S3ObjectStore) {
    // Presigned on the store: the bytes go from the bucket to the client, with our type and file name as headers.
    const disposition = contentDisposition(opts.filename);
    const url = store.presignDownload(key, { contentType: opts.contentType, disposition, nowMs: ctx.clock.now(), expiresS: DOWNLOAD_URL_TTL_S });
    return { url, expires_at: new Date(expiresAt * 1000).toISOString() };
  }
  const url = signUrl(ctx.config.secret, ctx.config.publicUrl, {
    method: "GET",
    key,
    expiresAt,
    contentType: opts.contentType,
    filename: opts.filename,
  });
  return { url, expires_at: new Date(expiresAt * 1000).toISOString() };
}

/**
 * A JSON text (a webhook payload) with every download link of ours signed afresh: each object holding a `url` whose
 * signature verifies (expired or not) and its `expires_at` gets a new hour from `nowMs`. Links that do not verify
 * (a URL a user put in metadata, say) are left as they are, so this never signs anything new. Both kinds are
 * handled: our /v1/objects links and, with an S3 store, its presigned GETs (re-presigned from the object key, so a
 * link stored in the payload when the run finished is valid again at each attempt, hours later).
 */
export function resignDownloadUrls(json: string, config: Pick<Config, "secret" | "publicUrl" | "dataDir" | "s3">, nowMs: number): string {
  const { secret, publicUrl } = config;
  const prefix = `${publicUrl.replace(/\/+$/, "")}/v1/objects/`;
  const store = config.s3 ? objectStore({ config }) : null;
  const s3 = store instanceof S3ObjectStore ? store : null;
  if (!json.includes(prefix) && !(s3 && json.includes(s3.baseUrl))) return json;
  const expiresAt = Math.floor(nowMs / 1000) + DOWNLOAD_URL_TTL_S;
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (value === null || typeof value !== "object") return;
    const o = value as Record<string, unknown>;
    if (typeof o.url === "string" && o.url.startsWith(prefix) && "expires_at" in o) {
      const url = new URL(o.url);
      const key = decodeURIComponent(url.pathname.slice(new URL(prefix).pathname.length));
      const checked = verifySignedUrl(secret, { method: "GET", key, query: url.searchParams, nowMs: 0 });
      if (checked.ok && isValidKey(key)) {
        const opts = { contentType: checked.contentType ?? undefined, filename: checked.filename ?? undefined };
        o.url = signUrl(secret, publicUrl, { method: "GET", key, expiresAt, ...opts });
        o.expires_at = new Date(expiresAt * 1000).toISOString();
      }
    } else if (s3 && typeof o.url === "string" && o.url.startsWith(s3.baseUrl) && "expires_at" in o) {
      const link = s3.verifyDownload(o.url);
      if (link) {
        o.url = s3.presignDownload(link.key, { contentType: link.contentType, disposition: link.disposition, nowMs, expiresS: DOWNLOAD_URL_TTL_S });
        o.expires_at = new Date(expiresAt * 1000).toISOString();
      }
    }
    for (const child of Object.values(o)) visit(child);
  };
  const value = JSON.parse(json) as unknown;
  visit(value);
  return JSON.stringify(value);
}
