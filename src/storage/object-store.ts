// The ObjectStore interface every storage backend implements (local folder, S3-compatible) and its typed errors.

/** The upload cap of the product: 50 MB per file (spec §8). */
export const MAX_OBJECT_BYTES = 52_428_800;

/** What get() answers: a Blob-like read once, streamed (a Bun.file for the local store, a GET's body for S3). */
export interface StoredObject {
  readonly size: number;
  stream(): ReadableStream<Uint8Array>;
  arrayBuffer(): Promise<ArrayBuffer>;
  text(): Promise<string>;
}

export interface ObjectStore {
  /**
   * Streams `stream` into `key`, replacing any object there only once the whole body has arrived, and only if
   * `commitIf` (asked at that moment) still allows it; else nothing changes and ObjectCommitRefused is thrown.
   */
  put(
    key: string,
    stream: ReadableStream<Uint8Array>,
    opts: { maxBytes: number; commitIf?: () => boolean | Promise<boolean> },
  ): Promise<{ size: number }>;
  /** The object (size, stream(), arrayBuffer(), text()), or null if there is none. */
  get(key: string): Promise<StoredObject | null>;
  /** Size, and the Content-Type the object was stored with where the store keeps one (S3 does, files do not). */
  stat(key: string): Promise<{ size: number; contentType?: string } | null>;
  /** Removes the object; a missing object is not an error. */
  delete(key: string): Promise<void>;
}

/** The whole body arrived, but `commitIf` said no (the upload's document was completed meanwhile); nothing was stored. */
export class ObjectCommitRefused extends Error {
  constructor(key: string) {
    super(`the upload to ${key} was not committed`);
    this.name = "ObjectCommitRefused";
  }
}

/** The body passed maxBytes while streaming; nothing was stored. */
export class ObjectTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the body is larger than ${maxBytes} bytes`);
    this.name = "ObjectTooLargeError";
  }
}

/** A key that could escape the store's folder or is otherwise malformed. */
export class InvalidKeyError extends Error {
  constructor(key: string) {
    super(`invalid object key "${key.slice(0, 100)}"`);
    this.name = "InvalidKeyError";
  }
}

const KEY = /^[A-Za-z0-9_./-]{1,512}$/;

/**
 * Keys are '/'-separated segments of [A-Za-z0-9_.-]. No absolute paths, no empty, "." or ".." segments, and no
 * segment starting with "." (that namespace holds the store's own temporary files), so a key can never name
 * anything outside the store's folder.
 */
export function isValidKey(key: string): boolean {
  if (!KEY.test(key) || key.includes("..")) return false;
  return key.split("/").every((segment) => segment.length > 0 && !segment.startsWith("."));
}

export function assertValidKey(key: string): void {
  if (!isValidKey(key)) throw new InvalidKeyError(key);
}

/** A one-chunk stream over bytes already in memory, for put(). */
export function bytesStream(bytes: Uint8Array): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      if (bytes.length) controller.enqueue(bytes);
      controller.close();
    },
  });
}

/** Content-Disposition with an ASCII fallback and the exact name RFC 5987-encoded when it is not plain ASCII. */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  if (fallback === filename) return `attachment; filename="${filename}"`;
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
