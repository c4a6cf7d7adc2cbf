// The object store as the rest of Assay sees it: one store per data dir, and signed upload/download URLs.
import path from "node:path";
import type { Context } from "../context";
import { LocalObjectStore } from "./local";
import { signUrl } from "./signing";
import type { ObjectStore } from "./object-store";

export { LocalObjectStore } from "./local";
export { bytesStream, InvalidKeyError, isValidKey, MAX_OBJECT_BYTES, ObjectTooLargeError, type ObjectStore } from "./object-store";
export { signUrl, verifySignedUrl, type SignOptions, type VerifyResult } from "./signing";

/** Upload URLs live 15 minutes, download URLs 1 hour (CONTRACT.md "Uploads and downloads"). */
export const UPLOAD_URL_TTL_S = 15 * 60;
export const DOWNLOAD_URL_TTL_S = 60 * 60;

// The Context has no storage field; stores are cached here by data dir so every caller shares one instance.
const stores = new Map<string, ObjectStore>();

export function objectStore(ctx: Pick<Context, "config">): ObjectStore {
  const dir = ctx.config.dataDir;
  let store = stores.get(dir);
  if (!store) stores.set(dir, (store = new LocalObjectStore(path.join(dir, "objects"))));
  return store;
}

export interface SignedUrl {
  url: string;
  /** ISO date-time. */
  expires_at: string;
}

function expiry(ctx: Pick<Context, "clock">, ttlS: number): number {
  return Math.floor(ctx.clock.now() / 1000) + ttlS;
}

/** A PUT URL for `key` that accepts exactly `contentType` (media type, parameters ignored) and at most `maxBytes`. */
export function signedUploadUrl(ctx: Pick<Context, "config" | "clock">, key: string, opts: { contentType: string; maxBytes: number }): SignedUrl {
  const expiresAt = expiry(ctx, UPLOAD_URL_TTL_S);
  const url = signUrl(ctx.config.secret, ctx.config.publicUrl, { method: "PUT", key, expiresAt, contentType: opts.contentType, maxBytes: opts.maxBytes });
  return { url, expires_at: new Date(expiresAt * 1000).toISOString() };
}

/** A GET URL for `key`, served with `contentType` and as an attachment named `filename`. */
export function signedDownloadUrl(ctx: Pick<Context, "config" | "clock">, key: string, opts: { filename: string; contentType: string }): SignedUrl {
  const expiresAt = expiry(ctx, DOWNLOAD_URL_TTL_S);
  const url = signUrl(ctx.config.secret, ctx.config.publicUrl, { method: "GET", key, expiresAt, contentType: opts.contentType, filename: opts.filename });
  return { url, expires_at: new Date(expiresAt * 1000).toISOString() };
}
