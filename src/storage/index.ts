// The object store as the rest of Assay sees it: one store per data dir, and signed upload/download URLs.
import path from "node:path";
import type { Context } from "../context";
import { LocalObjectStore } from "./local";
import { isValidKey, type ObjectStore } from "./object-store";
import { signUrl, verifySignedUrl } from "./signing";

export { LocalObjectStore } from "./local";
export {
  bytesStream,
  InvalidKeyError,
  isValidKey,
  MAX_OBJECT_BYTES,
  ObjectCommitRefused,
  type ObjectStore,
  ObjectTooLargeError,
} from "./object-store";
export { signUrl, verifySignedUrl } from "./signing";

/** Upload URLs live 15 minutes, download URLs 1 hour (CONTRACT.md "Uploads and downloads"). */
export const UPLOAD_URL_TTL_S = 15 * 60;
const DOWNLOAD_URL_TTL_S = 60 * 60;

// The Context has no storage field; stores are cached here by data dir so every caller shares one instance.
const stores = new Map<string, ObjectStore>();

export function objectStore(ctx: Pick<Context, "config">): ObjectStore {
  const dir = ctx.config.dataDir;
  const store = stores.get(dir) ?? new LocalObjectStore(path.join(dir, "objects"));
  stores.set(dir, store);
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
 * (a URL a user put in metadata, say) are left as they are, so this never signs anything new.
 */
export function resignDownloadUrls(json: string, secret: string, publicUrl: string, nowMs: number): string {
  const prefix = `${publicUrl.replace(/\/+$/, "")}/v1/objects/`;
  if (!json.includes(prefix)) return json;
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
    }
    for (const child of Object.values(o)) visit(child);
  };
  const value = JSON.parse(json) as unknown;
  visit(value);
  return JSON.stringify(value);
}
